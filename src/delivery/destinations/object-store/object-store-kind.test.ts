import { describe, expect, it } from 'vitest';
import { describeKindContract } from '../../../../test/support/destination-kind-contract.js';
import { TEST_EGRESS, DEFAULT_EGRESS } from '../../../../test/support/writer-deps.js';
import { OPERATOR, type AccountContext } from '../../../accounts/account.js';
import { objectStoreKind } from './object-store-kind.js';
import { ObjectStoreWriter } from './object-store-writer.js';

const role = { role: { role_arn: 'arn:aws:iam::123456789012:role/edge-events' } };
const creds = { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSTEST01', cloud_secret_access_key: 'a-very-secret-key' } };
const CUSTOMER: AccountContext = { accountId: 'acct_2customer', isOperator: false };

describe('object_store kind', () => {
  describeKindContract(objectStoreKind, {
    valid: [
      { auth: role, bucket: 'edge-events-logs' },
      // AWS's reserved names are its own: an S3-compatible store may have such a bucket.
      { auth: creds, bucket: 'sthree-logs--x-s3', endpoint: 'http://127.0.0.1:9000' },
      // MinIO's default access key id, shorter than AWS's 16 characters.
      { auth: { creds: { cloud_access_key_id: 'minioadmin', cloud_secret_access_key: 'a-minio-secret' } }, bucket: 'logs', endpoint: 'http://127.0.0.1:9000' },
      {
        auth: creds,
        bucket: 'logs.example-1',
        region: 'auto',
        endpoint: 'http://127.0.0.1:9000',
        prefix: "edge/{account_id}/{event_type}/{subscription_id}/dt={date}/hour={hour}/!_.*'()-",
        output_type: 'csv',
        compression: 'none',
        max_upload_bytes: 1024,
        max_upload_records: 1,
        max_upload_interval_seconds: 300,
      },
    ],
    invalid: [
      { object: { auth: role }, code: 'invalid_body', field: 'bucket' },
      { object: { auth: role, bucket: 'Upper_Case' }, code: 'invalid_body', field: 'bucket' },
      { object: { auth: role, bucket: 'ab' }, code: 'invalid_body', field: 'bucket' },
      // Names S3 never takes though they match its characters: adjacent periods, an IP address, and on AWS its reserved prefixes and suffixes.
      ...['a..b', '192.168.1.1', 'xn--abc', 'sthree-logs', 'amzn-s3-demo-logs', 'logs-s3alias', 'logs--ol-s3', 'logs.mrap', 'logs--x-s3', 'logs--table-s3'].map((bucket) => ({
        object: { auth: role, bucket },
        code: 'invalid_body',
        field: 'bucket',
      })),
      { object: { auth: role, bucket: 'a..b', endpoint: 'https://store.example' }, code: 'invalid_body', field: 'bucket' },
      { object: { auth: role, bucket: 'logs', prefix: '{unknown}/' }, code: 'invalid_body', field: 'prefix' },
      { object: { auth: role, bucket: 'logs', prefix: 'a b' }, code: 'invalid_body', field: 'prefix' },
      { object: { auth: role, bucket: 'logs', prefix: 'x'.repeat(513) }, code: 'invalid_body', field: 'prefix' },
      // Paths a proxy before the store might fold into another bucket's: a leading "/", empty, "." or ".." segments.
      ...['/logs/', '../other-bucket/', 'logs/../../x/', 'logs//x/', 'a/./b/', '..'].map((prefix) => ({ object: { auth: role, bucket: 'logs', prefix }, code: 'invalid_body', field: 'prefix' })),
      // Within 512 characters, but its placeholders could make a key past S3's 1,024 bytes.
      { object: { auth: role, bucket: 'logs', prefix: '{event_type}'.repeat(42) }, code: 'invalid_body', field: 'prefix' },
      { object: { auth: role, bucket: 'logs', output_type: 'json_array' }, code: 'invalid_body', field: 'output_type' },
      { object: { auth: role, bucket: 'logs', compression: 'zstd' }, code: 'invalid_body', field: 'compression' },
      { object: { auth: role, bucket: 'logs', max_upload_bytes: 1023 }, code: 'invalid_body', field: 'max_upload_bytes' },
      { object: { auth: role, bucket: 'logs', max_upload_records: 50_001 }, code: 'invalid_body', field: 'max_upload_records' },
      { object: { auth: role, bucket: 'logs', max_upload_interval_seconds: 0 }, code: 'invalid_body', field: 'max_upload_interval_seconds' },
      { object: { auth: role, bucket: 'logs', endpoint: 'ftp://store.example' }, code: 'invalid_body', field: 'endpoint' },
      { object: { auth: { role: role.role, creds: creds.creds }, bucket: 'logs' }, code: 'invalid_target_auth', field: 'auth' },
      { object: { auth: { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSTEST01' } }, bucket: 'logs' }, code: 'secret_required', field: 'auth.creds.cloud_secret_access_key' },
    ],
  });

  it('should fill the defaults: us-east-1, {event_type}/{date}/, ndjson, gzip, 8 MiB, 10,000 records, 30 s', () => {
    const r = objectStoreKind.parse({ auth: role, bucket: 'logs' }, 't', OPERATOR);
    expect(r).toMatchObject({
      ok: true,
      config: { region: 'us-east-1', prefix: '{event_type}/{date}/', outputType: 'ndjson', compression: 'gzip', maxUploadBytes: 8 * 1024 * 1024, maxUploadRecords: 10_000, maxUploadIntervalSeconds: 30 },
    });
  });

  it('should pass the role the account id as ExternalId', () => {
    const r = objectStoreKind.parse({ auth: role, bucket: 'logs' }, 't', CUSTOMER, TEST_EGRESS);
    expect(r).toMatchObject({ ok: true, config: { accountId: 'acct_2customer', auth: { kind: 'role', externalId: 'acct_2customer' } } });
  });

  it("should hold a customer's endpoint to the egress rules, and let the operator's name an emulator", () => {
    const target = { auth: role, bucket: 'logs', endpoint: 'http://127.0.0.1:9000' };
    const refused = objectStoreKind.parse(target, 'target.object_store', CUSTOMER, DEFAULT_EGRESS);
    expect(refused.ok ? [] : refused.problems.map((p) => [p.code, p.field])).toEqual([['insecure_url', 'target.object_store.endpoint']]);
    const internal = objectStoreKind.parse({ ...target, endpoint: 'https://10.0.0.8' }, 'target.object_store', CUSTOMER, DEFAULT_EGRESS);
    expect(internal.ok ? [] : internal.problems.map((p) => p.code)).toEqual(['internal_address']);
    expect(objectStoreKind.parse(target, 'target.object_store', OPERATOR, DEFAULT_EGRESS)).toMatchObject({ ok: true });
  });

  it("should batch by the destination's upload limits, its interval as the linger", async () => {
    const r = objectStoreKind.parse({ auth: role, bucket: 'logs', max_upload_bytes: 4096, max_upload_records: 7, max_upload_interval_seconds: 2 }, 't', OPERATOR);
    if (!r.ok) throw new Error('refused');
    const w = new ObjectStoreWriter(r.config);
    // The limits cut objects; one event may be larger than max_upload_bytes, up to the largest object the kind writes (64 MiB).
    expect(w.limits).toEqual({ maxRecords: 7, maxBytes: 4096, maxRecordBytes: 64 * 1024 * 1024 - 1, recordOverheadBytes: 1, lingerMs: 2000 });
    await w.close();
  });
});
