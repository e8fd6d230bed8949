import { describe, expect, it } from 'vitest';
import { describeKindContract } from '../../../../test/support/destination-kind-contract.js';
import { OPERATOR } from '../../../accounts/account.js';
import { DEFAULT_EGRESS } from '../../../../test/support/writer-deps.js';
import { acceptTarget } from '../../destination-target.js';
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

  it('should say where the file is written, resolved under the file root, and take that back from a request unread', () => {
    expect(fileKind.view({ path: 'tenant/events.ndjson' }, { fileRoot: '/srv/edge/files', account: OPERATOR })).toEqual({ path: 'tenant/events.ndjson', resolved_path: '/srv/edge/files/tenant/events.ndjson', output_type: null });
    const sentBack = acceptTarget({ file: { path: 'tenant/events.ndjson', resolved_path: '/elsewhere/x' } }, { seal: (s) => s, account: OPERATOR, egress: DEFAULT_EGRESS });
    expect(sentBack).toEqual({ ok: true, target: { file: { path: 'tenant/events.ndjson' } } });
  });
});
