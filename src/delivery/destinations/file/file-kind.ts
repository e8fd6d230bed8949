// The file destination kind: NDJSON appended to a file under the service's file root (README.md here).
import type { DestinationKind } from '../../destination-kind.js';
import { FILE_PATH_RULE, FILE_TARGET_SCHEMA, parseFileTarget, type FileTargetConfig } from './config.js';
import { FILE_LIMITS, FileWriter } from './file-writer.js';

export const fileKind: DestinationKind<FileTargetConfig> = {
  name: 'file',
  schema: FILE_TARGET_SCHEMA,
  rules: [FILE_PATH_RULE],
  secrets: [],
  limits: FILE_LIMITS,
  parse: parseFileTarget,
  view: (stored) => ({ path: stored.path }),
  createWriter: (config, deps) => new FileWriter(config, { root: deps.fileRoot }),
  // verify: none yet; a path that parse() accepts can always be created under the root.
};
