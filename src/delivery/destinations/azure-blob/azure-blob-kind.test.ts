import { describe, expect, it } from 'vitest';
import { describeKindContract } from '../../../../test/support/destination-kind-contract.js';
import { DEFAULT_EGRESS } from '../../../../test/support/writer-deps.js';
import { OPERATOR, type AccountContext } from '../../../accounts/account.js';
import { stringToSign } from '../azure/storage-auth.js';
import { azureBlobKind } from './azure-blob-kind.js';
import { blobUrlOf } from './config.js';

const KEY = Buffer.alloc(64, 1).toString('base64');
const sharedKey = { shared_key: { account_key: KEY } };
const sas = { sas: { sas_token: '?sv=2024-08-04&sr=c&sp=cw&se=2030-01-01T00%3A00%3A00Z&sig=abc%2Bdef%3D' } };
const CUSTOMER: AccountContext = { accountId: 'acct_2customer', isOperator: false };

describe('azure_blob kind', () => {
  describeKindContract(azureBlobKind, {
    valid: [
      { auth: sharedKey, account_name: 'myaccount', container: 'edge-events' },
      { auth: sas, account_url: 'https://myaccount.blob.core.windows.net', container: 'logs' },
      {
        auth: sharedKey,
        account_url: 'http://127.0.0.1:10000/devstoreaccount1',
        container: 'a-b-c',
        prefix: 'edge/{account_id}/{event_type}/{subscription_id}/dt={date}/hour={hour}/',
        output_type: 'csv',
        compression: 'none',
        max_upload_bytes: 1024,
        max_upload_records: 1,
        max_upload_interval_seconds: 300,
      },
    ],
    invalid: [
      { object: { auth: sharedKey, account_name: 'myaccount' }, code: 'invalid_body', field: 'container' },
      { object: { auth: sharedKey, account_name: 'myaccount', container: 'Upper' }, code: 'invalid_body', field: 'container' },
      { object: { auth: sharedKey, account_name: 'myaccount', container: 'a--b' }, code: 'invalid_body', field: 'container' },
      { object: { auth: sharedKey, container: 'logs' }, code: 'invalid_body', field: 'account_name' },
      { object: { auth: sharedKey, account_name: 'My_Account', container: 'logs' }, code: 'invalid_body', field: 'account_name' },
      { object: { auth: sharedKey, account_url: 'ftp://x.example', container: 'logs' }, code: 'invalid_body', field: 'account_url' },
      // An IP address's URL names the account by its path, as the emulator does; without one nothing names it.
      { object: { auth: sharedKey, account_url: 'http://127.0.0.1:10000', container: 'logs' }, code: 'invalid_body', field: 'account_name' },
      { object: { auth: sharedKey, account_name: 'myaccount', container: 'logs', prefix: '../x/' }, code: 'invalid_body', field: 'prefix' },
      { object: { auth: sharedKey, account_name: 'myaccount', container: 'logs', output_type: 'json_array' }, code: 'invalid_body', field: 'output_type' },
      { object: { auth: { ...sharedKey, ...sas }, account_name: 'myaccount', container: 'logs' }, code: 'invalid_target_kind', field: 'auth' },
      { object: { auth: { shared_key: {} }, account_name: 'myaccount', container: 'logs' }, code: 'secret_required', field: 'auth.shared_key.account_key' },
      { object: { auth: { shared_key: { account_key: 'short' } }, account_name: 'myaccount', container: 'logs' }, code: 'invalid_body', field: 'auth.shared_key.account_key' },
      { object: { auth: { sas: { sas_token: 'sv=1 sig=2' } }, account_name: 'myaccount', container: 'logs' }, code: 'invalid_body', field: 'auth.sas.sas_token' },
    ],
  });

  it('should take the account from the URL: the host for the public endpoint, the path for an emulator', () => {
    const r1 = azureBlobKind.parse({ auth: sharedKey, account_url: 'https://acct1.blob.core.windows.net/', container: 'logs' }, 't', OPERATOR);
    expect(r1).toMatchObject({ ok: true, config: { account: 'acct1', accountUrl: 'https://acct1.blob.core.windows.net' } });
    const r2 = azureBlobKind.parse({ auth: sharedKey, account_url: 'http://127.0.0.1:10000/devstoreaccount1', container: 'logs' }, 't', OPERATOR);
    expect(r2).toMatchObject({ ok: true, config: { account: 'devstoreaccount1', accountUrl: 'http://127.0.0.1:10000/devstoreaccount1' } });
    const r3 = azureBlobKind.parse({ auth: sharedKey, account_name: 'acct2', container: 'logs' }, 't', OPERATOR);
    expect(r3).toMatchObject({ ok: true, config: { account: 'acct2', prefix: '{event_type}/{date}/', outputType: 'ndjson', compression: 'gzip' } });
    if (!r3.ok) throw new Error('refused');
    expect(blobUrlOf(r3.config, undefined)).toBe('https://acct2.blob.core.windows.net');
    // The operator's AZURE_BLOB_ENDPOINT_URL serves every account without an account_url, path-style as an emulator does.
    expect(blobUrlOf(r3.config, 'http://127.0.0.1:10000/')).toBe('http://127.0.0.1:10000/acct2');
  });

  it("should hold a customer's account_url to the egress rules, and let the operator's name an emulator", () => {
    const target = { auth: sharedKey, account_url: 'http://127.0.0.1:10000/devstoreaccount1', container: 'logs' };
    const refused = azureBlobKind.parse(target, 'target.azure_blob', CUSTOMER, DEFAULT_EGRESS);
    expect(refused.ok ? [] : refused.problems.map((p) => [p.code, p.field])).toEqual([['insecure_url', 'target.azure_blob.account_url']]);
    const internal = azureBlobKind.parse({ ...target, account_url: 'https://10.0.0.8/acct' }, 'target.azure_blob', CUSTOMER, DEFAULT_EGRESS);
    expect(internal.ok ? [] : internal.problems.map((p) => p.code)).toEqual(['internal_address']);
    expect(azureBlobKind.parse(target, 'target.azure_blob', OPERATOR, DEFAULT_EGRESS)).toMatchObject({ ok: true });
  });

  it('should sign the canonical form Shared Key defines: verb, standard headers, sorted x-ms- headers, then /account/path and sorted query', () => {
    const url = new URL('http://127.0.0.1:10000/devstoreaccount1/logs?restype=container&Comp=list');
    const headers = { 'x-ms-version': '2024-08-04', 'x-ms-date': 'Wed, 02 Dec 2026 03:00:00 GMT', 'content-length': 0, 'Content-Type': 'text/plain' };
    expect(stringToSign('get', url, headers, 'devstoreaccount1')).toBe(
      'GET\n\n\n\n\ntext/plain\n\n\n\n\n\n\nx-ms-date:Wed, 02 Dec 2026 03:00:00 GMT\nx-ms-version:2024-08-04\n/devstoreaccount1/devstoreaccount1/logs\ncomp:list\nrestype:container',
    );
  });
});
