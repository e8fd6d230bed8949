// Config of the file destination: a path relative to the service's file root, its JSON schema and its rules.
import { posix } from 'node:path';
import type { AccountContext } from '../../../accounts/account.js';
import { accountFolder, type EgressRules } from '../../egress-rules.js';
import { ConfigReader, problem, type ParseResult } from '../../destination-config.js';
import { choiceOrNull, named, nullable, obj, str, withError } from '../target-schema.js';
import { relativePathProblem } from './safe-path.js';

export interface FileTargetConfig {
  /**
   * Relative to the configured root directory; it can never point outside it. Parsed for a normal account,
   * it begins with the account's folder (egress-rules.ts accountFolder); stored, it is the path as sent.
   */
  readonly path: string;
  /** One envelope per line (the default), or CSV with a header line per batch; a file is never compressed. */
  readonly outputType?: FileOutputType;
}

export const FILE_OUTPUT_TYPES = ['ndjson', 'csv'] as const;
export type FileOutputType = (typeof FILE_OUTPUT_TYPES)[number];
const outputType =
  'ndjson: one envelope per line (the default); csv: each batch appended as a header line, then one line per event, one column per selected field by its dotted name, a headers map one column of its JSON, formulas neutralised (RFC 4180). A file is never compressed.';

/**
 * What a pattern can say of relativePathProblem's rules: not empty, no NUL, not absolute ("/", "\\",
 * "C:"), not ending with "/". Whether ".." segments leave the root and how long the names are in bytes
 * are FILE_PATH_RULE, beyond the schema.
 */
const FILE_PATH = '^(?:[^/\\\\\\x00]|[^/\\\\\\x00A-Za-z][^\\x00]*[^/\\x00]|[A-Za-z](?:[^:/\\x00]|[^:\\x00][^\\x00]*[^/\\x00]))$';

const about = "Path of the file, relative to the account's folder of the service's file destination root (the root itself for the operator account, <root>/<account id> for the others); it cannot leave that folder.";
const resolvedPath =
  "Read-only: where the workers write the file, the path under the folder the operator gave file destinations, made absolute, as this API process resolves it. Rotated files add .1, .2, ... A request may send it back; it is ignored.";

/** A request sets the path; a response also says where the file is (read-only). Nothing is secret. */
export const FILE_TARGET_SCHEMA = {
  request: named('FileTarget', obj(
    {
      path: withError(str(`${about} Names are at most 255 bytes, the file's own 250 (rotation adds .<n>).`, { maxLength: 4096, pattern: FILE_PATH, examples: ['events/edge.ndjson'] }), 'invalid_file_path', {
        reason: 'must be a relative path to a file, without NUL characters',
      }),
      resolved_path: nullable(str(resolvedPath, { readOnly: true })),
      output_type: choiceOrNull(FILE_OUTPUT_TYPES, outputType),
    },
    ['path'],
    'A newline-delimited JSON file.',
  )),
  response: named('FileTargetView', obj(
    { path: str(about), resolved_path: str(resolvedPath, { readOnly: true }), output_type: choiceOrNull(FILE_OUTPUT_TYPES, `${outputType} null means the default.`) },
    ['path', 'resolved_path', 'output_type'],
    'A newline-delimited JSON file.',
  )),
};

export const FILE_PATH_RULE = {
  code: 'invalid_file_path',
  rule: 'target.file.path stays under the file root once its ".." segments are resolved, names a file (not "." or a directory), and has names of at most 255 bytes, the last at most 250',
} as const;

export const FILE_ACCOUNT_RULE = {
  code: 'file_destinations_disabled',
  rule: 'an account other than the operator\'s may have file destinations only while the service allows it (FILE_DESTINATIONS_FOR_ACCOUNTS); their paths are under the account\'s own folder of the file root',
} as const;

/** The file target of a destination of `account`: its path under the account's folder (the root itself for the operator). */
export function parseFileTarget(raw: unknown, prefix: string, account: AccountContext, egress?: EgressRules): ParseResult<FileTargetConfig> {
  const r = new ConfigReader(raw, prefix, ['path', 'output_type']);
  const path = r.string('path', true);
  const why = path === undefined ? undefined : relativePathProblem(path);
  if (why !== undefined) r.add(problem.filePath(r.path('path'), why.replace(/\.$/, '')));
  const refused = egress?.fileRefusal(account);
  if (refused !== undefined) r.add(problem.egress('file_destinations_disabled', prefix, refused));
  const folder = accountFolder(account);
  const output = r.has('output_type') && { outputType: r.oneOf('output_type', FILE_OUTPUT_TYPES, 'ndjson') };
  return r.result({ path: folder === '' || path === undefined ? (path ?? '') : posix.join(folder, path), ...output });
}
