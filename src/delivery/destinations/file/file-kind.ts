// The file destination kind: NDJSON appended to a file under the service's file root (README.md here).
import { resolve } from 'node:path';
import type { DestinationKind } from '../../destination-kind.js';
import { accountFolder } from '../../egress-rules.js';
import { FILE_ACCOUNT_RULE, FILE_PATH_RULE, FILE_TARGET_SCHEMA, parseFileTarget, type FileTargetConfig } from './config.js';
import { FILE_LIMITS, FileWriter } from './file-writer.js';

export const fileKind: DestinationKind<FileTargetConfig> = {
  name: 'file',
  schema: FILE_TARGET_SCHEMA,
  rules: [FILE_PATH_RULE, FILE_ACCOUNT_RULE],
  secrets: [],
  readOnly: ['resolved_path'],
  limits: FILE_LIMITS,
  parse: parseFileTarget,
  // Where the file is written, as the service resolves it: the path under the account's folder of the file root, made absolute.
  view: (stored, deps) => ({ path: stored.path, resolved_path: resolve(deps.fileRoot, accountFolder(deps.account), String(stored.path)), output_type: stored.output_type ?? null }),
  createWriter: (config, deps) => new FileWriter(config, { root: deps.fileRoot }),
  // No check: the root exists (the service creates it at start), and a path parse() accepts can be
  // created under it. The root belongs to the workers' machines, which the API may not share.
};
