import { generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { describeKindContract } from '../../../../test/support/destination-kind-contract.js';
import { OPERATOR } from '../../../accounts/account.js';
import { assertion, parseServiceAccountKey } from '../gcp/service-account.js';
import { gcsKind } from './gcs-kind.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const keyOf = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'service_account', client_email: 'w@p.iam.gserviceaccount.com', private_key_id: 'k1', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }), token_uri: 'https://oauth2.googleapis.com/token', ...extra });
const KEY = keyOf();

describe('gcs kind', () => {
  describeKindContract(gcsKind, {
    valid: [
      { bucket: 'edge-events-logs', service_account_key: KEY },
      { bucket: 'logs_2.example', service_account_key: KEY, prefix: 'edge/{event_type}/dt={date}/', output_type: 'csv', compression: 'none', max_upload_records: 1 },
    ],
    invalid: [
      { object: { service_account_key: KEY }, code: 'invalid_body', field: 'bucket' },
      { object: { bucket: 'Logs', service_account_key: KEY }, code: 'invalid_body', field: 'bucket' },
      { object: { bucket: 'google-logs', service_account_key: KEY }, code: 'invalid_body', field: 'bucket' },
      { object: { bucket: 'logs', service_account_key: KEY, prefix: '/x' }, code: 'invalid_body', field: 'prefix' },
      { object: { bucket: 'logs' }, code: 'secret_required', field: 'service_account_key' },
      { object: { bucket: 'logs', service_account_key: 'not json' }, code: 'invalid_body', field: 'service_account_key' },
      { object: { bucket: 'logs', service_account_key: keyOf({ type: 'authorized_user' }) }, code: 'invalid_body', field: 'service_account_key' },
      // The key's token_uri is a customer's text: a JWT goes to Google's endpoint only (the operator's GCS_TOKEN_URL aside).
      { object: { bucket: 'logs', service_account_key: keyOf({ token_uri: 'http://169.254.169.254/token' }) }, code: 'invalid_body', field: 'service_account_key' },
    ],
  });

  it('should fill the layout defaults', () => {
    expect(gcsKind.parse({ bucket: 'logs', service_account_key: KEY }, 't', OPERATOR)).toMatchObject({ ok: true, config: { prefix: '{event_type}/{date}/', outputType: 'ndjson', compression: 'gzip', maxUploadBytes: 8 * 1024 * 1024 } });
  });

  it("should sign the JWT-bearer assertion with the key: RS256, the account as iss, the storage scope, Google's token endpoint as aud, an hour's life", () => {
    const key = parseServiceAccountKey(KEY);
    if (typeof key === 'string') throw new Error(key);
    const jwt = assertion(key, Date.UTC(2026, 11, 2, 4, 0, 0));
    const [h, c, s] = jwt.split('.') as [string, string, string];
    expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT', kid: 'k1' });
    const iat = Date.UTC(2026, 11, 2, 4, 0, 0) / 1000;
    expect(JSON.parse(Buffer.from(c, 'base64url').toString())).toEqual({ iss: 'w@p.iam.gserviceaccount.com', scope: 'https://www.googleapis.com/auth/devstorage.read_write', aud: 'https://oauth2.googleapis.com/token', iat, exp: iat + 3600 });
    expect(verify('sha256', Buffer.from(`${h}.${c}`), publicKey, Buffer.from(s, 'base64url'))).toBe(true);
  });
});
