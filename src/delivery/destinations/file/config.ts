// Config of the file destination: a path relative to the service's file root.
import { ConfigReader, type ParseResult } from '../../destination-config.js';
import { relativePathProblem } from './safe-path.js';

export interface FileTargetConfig {
  /** Relative to the configured root directory; it can never point outside it. */
  readonly path: string;
}

export function parseFileTarget(raw: unknown, prefix: string): ParseResult<FileTargetConfig> {
  const r = new ConfigReader(raw, prefix, ['path']);
  const path = r.string('path', true);
  if (path !== undefined) {
    const problem = relativePathProblem(path);
    if (problem !== undefined) r.problem('path', `${prefix}.path ${problem}`);
  }
  return r.result({ path: path ?? '' });
}
