// Config of the file destination: a path relative to the service's file root, its JSON schema and its rules.
import { ConfigReader, problem, type ParseResult } from '../../destination-config.js';
import { obj, str } from '../target-schema.js';
import { relativePathProblem } from './safe-path.js';

export interface FileTargetConfig {
  /** Relative to the configured root directory; it can never point outside it. */
  readonly path: string;
}

/** The same in requests and responses: the path is the only field, and it is not secret. */
export const FILE_TARGET_SCHEMA = obj(
  { path: str("Path of the file, relative to the service's file destination root; it cannot leave the root.") },
  ['path'],
  'A newline-delimited JSON file.',
);

export function parseFileTarget(raw: unknown, prefix: string): ParseResult<FileTargetConfig> {
  const r = new ConfigReader(raw, prefix, ['path']);
  const path = r.string('path', true);
  const why = path === undefined ? undefined : relativePathProblem(path);
  if (why !== undefined) r.add(problem.filePath(r.path('path'), why.replace(/\.$/, '')));
  return r.result({ path: path ?? '' });
}
