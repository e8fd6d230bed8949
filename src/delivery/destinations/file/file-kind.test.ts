import { describe } from 'vitest';
import { describeKindContract } from '../../../../test/support/destination-kind-contract.js';
import { fileKind } from './file-kind.js';

describe('file kind', () => {
  describeKindContract(fileKind, {
    valid: [{ path: 'events.ndjson' }, { path: 'tenant/a/../events.ndjson' }, { path: `${'d'.repeat(255)}/${'é'.repeat(125)}` }],
    invalid: [
      { object: { path: '' }, code: 'invalid_body', field: 'path' },
      { object: { path: '/etc/passwd' }, code: 'invalid_file_path', field: 'path' },
      { object: { path: '../outside.ndjson' }, code: 'invalid_file_path', field: 'path' },
      { object: { path: 'a/../../outside' }, code: 'invalid_file_path', field: 'path' },
      { object: { path: 'dir/' }, code: 'invalid_file_path', field: 'path' },
      { object: { path: 'a\u0000b' }, code: 'invalid_file_path', field: 'path' },
      // A name the file system refuses (ENAMETOOLONG) would fail every write instead of the request.
      { object: { path: `${'d'.repeat(256)}/events.ndjson` }, code: 'invalid_file_path', field: 'path' },
      { object: { path: `tenant/${'é'.repeat(126)}` }, code: 'invalid_file_path', field: 'path' },
    ],
  });
});
