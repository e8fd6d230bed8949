// Config of the file destination: a path relative to the service's file root, its JSON schema and its rules.
import { ConfigReader, problem, type ParseResult } from '../../destination-config.js';
import { nullable, obj, str } from '../target-schema.js';
import { relativePathProblem } from './safe-path.js';

export interface FileTargetConfig {
  /** Relative to the configured root directory; it can never point outside it. */
  readonly path: string;
}

const path = str("Path of the file, relative to the service's file destination root; it cannot leave the root.");
const resolvedPath =
  "Read-only: where the workers write the file, the path under the service's file destination root (FILE_DESTINATION_ROOT) made absolute, as this API process resolves it. Rotated files add .1, .2, ... A request may send it back; it is ignored.";

/** A request sets the path; a response also says where the file is (read-only). Nothing is secret. */
export const FILE_TARGET_SCHEMA = {
  request: obj({ path, resolved_path: nullable(str(resolvedPath, { readOnly: true })) }, ['path'], 'A newline-delimited JSON file.'),
  response: obj({ path, resolved_path: str(resolvedPath, { readOnly: true }) }, ['path', 'resolved_path'], 'A newline-delimited JSON file.'),
};

export function parseFileTarget(raw: unknown, prefix: string): ParseResult<FileTargetConfig> {
  const r = new ConfigReader(raw, prefix, ['path']);
  const path = r.string('path', true);
  const why = path === undefined ? undefined : relativePathProblem(path);
  if (why !== undefined) r.add(problem.filePath(r.path('path'), why.replace(/\.$/, '')));
  return r.result({ path: path ?? '' });
}
