// Event destination targets: exactly one kind, each kind's fields, ARN shapes, auth, sealed secrets.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StoredTarget } from '../../../src/configlog/resources.js';
import { parseTarget } from '../../../src/admin/event-destinations/target-input.js';
import { destinationView, targetView } from '../../../src/admin/event-destinations/destination-view.js';
import type { AdminContext } from '../../../src/admin/context.js';
import { openSecrets } from '../../../src/delivery/build-writer.js';
import { SecretBox } from '../../../src/secrets/secret-box.js';

const box = new SecretBox(randomBytes(32));
const seal = (s: string): string => box.seal(s);
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const HTTP_SECRET = 'a-signing-secret-of-32-characters';
const KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const ROLE = 'arn:aws:iam::123456789012:role/edge-events';
const FIREHOSE = 'arn:aws:firehose:us-east-1:123456789012:deliverystream/edge';
const KINESIS = 'arn:aws:kinesis:eu-west-2:123456789012:stream/edge';
const LOGS = 'arn:aws:logs:us-east-1:123456789012:log-group:/edge/events';

function ok(raw: unknown, previous?: StoredTarget): StoredTarget {
  const r = parseTarget(raw, { seal, previous });
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return r.target;
}

function error(raw: unknown, previous?: StoredTarget): { code: string; field: unknown; message: string } {
  const r = parseTarget(raw, { seal, previous });
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.target)}`);
  return { code: r.error.code, field: r.error.details.field, message: r.error.message };
}

describe('event destination target', () => {
  it('should accept each of the six kinds', () => {
    expect(ok({ kafka: { topic: 'out' } })).toEqual({ kafka: { topic: 'out' } });
    expect(ok({ kafka: { topic: 'out', brokers: ['10.0.0.1:9092'] } })).toEqual({ kafka: { topic: 'out', brokers: ['10.0.0.1:9092'] } });
    expect(ok({ http: { url: 'https://example.com/hook' } })).toEqual({ http: { url: 'https://example.com/hook' } });
    expect(ok({ file: { path: 'out/events.ndjson' } })).toEqual({ file: { path: 'out/events.ndjson' } });
    expect(ok({ delivery_stream: { auth: { role: { role_arn: ROLE } }, delivery_stream_arn: FIREHOSE } })).toEqual({
      delivery_stream: { auth: { role: { role_arn: ROLE } }, delivery_stream_arn: FIREHOSE },
    });
    expect(ok({ data_stream: { auth: { role: { role_arn: ROLE } }, stream_arn: KINESIS } }).data_stream).toBeDefined();
    expect(ok({ log_service: { auth: { role: { role_arn: ROLE } }, log_group_arn: LOGS } }).log_service).toBeDefined();
  });

  it('should treat null kinds as absent, so a target may list every kind', () => {
    expect(ok({ kafka: { topic: 'out' }, http: null, file: null, delivery_stream: null })).toEqual({ kafka: { topic: 'out' } });
    // A response's nulls ("the default") are stored as absent options.
    expect(ok({ kafka: { topic: 'out', brokers: null, key: null } })).toEqual({ kafka: { topic: 'out' } });
    expect(ok({ http: { url: 'https://a.example', secret: null, timeout_ms: null } })).toEqual({ http: { url: 'https://a.example' } });
  });

  it('should refuse a target with no kind, two kinds or an unknown kind', () => {
    expect(error({})).toMatchObject({ code: 'invalid_target_kind', field: 'target' });
    expect(error({ kafka: { topic: 'a' }, file: { path: 'b' } })).toMatchObject({ code: 'invalid_target_kind', field: 'target' });
    expect(error({ kafka: { topic: 'a' }, file: { path: 'b' } }).message).toContain('kafka and file');
    expect(error({ s3: { bucket: 'x' } })).toMatchObject({ code: 'unknown_field', field: 'target.s3' });
    expect(error('kafka')).toMatchObject({ code: 'invalid_target_kind', field: 'target' });
  });

  it('should name the field of a bad kafka, http or file target', () => {
    expect(error({ kafka: { topic: 'bad topic' } })).toMatchObject({ code: 'invalid_body', field: 'target.kafka.topic' });
    expect(error({ kafka: { topic: 'a', brokers: ['nohost'] } })).toMatchObject({ code: 'invalid_body', field: 'target.kafka.brokers' });
    expect(error({ kafka: { topic: 'a', partitions: 3 } })).toMatchObject({ code: 'unknown_field', field: 'target.kafka.partitions' });
    expect(error({ http: { url: 'ftp://example.com' } })).toMatchObject({ code: 'invalid_body', field: 'target.http.url' });
    expect(error({ http: { url: 'https://example.com', secret: 'short' } })).toMatchObject({ code: 'invalid_body', field: 'target.http.secret' });
    expect(error({ http: {} })).toMatchObject({ code: 'invalid_body', field: 'target.http.url' });
  });

  it('should refuse file paths that are absolute or leave the root', () => {
    for (const path of ['/etc/passwd', '../outside.ndjson', 'a/../../outside', 'a/b/../../../c', 'dir/']) {
      expect(error({ file: { path } }), path).toMatchObject({ code: 'invalid_file_path', field: 'target.file.path' });
    }
    expect(ok({ file: { path: 'a/../b.ndjson' } })).toEqual({ file: { path: 'a/../b.ndjson' } });
  });

  it('should check the shape of every ARN', () => {
    const role = (role_arn: string): unknown => ({ delivery_stream: { auth: { role: { role_arn } }, delivery_stream_arn: FIREHOSE } });
    expect(error(role('arn:aws:iam::12345:role/x'))).toMatchObject({ code: 'invalid_arn', field: 'target.delivery_stream.auth.role.role_arn' });
    expect(error(role('arn:aws:iam::123456789012:user/x'))).toMatchObject({ code: 'invalid_arn' });
    expect(ok(role('arn:aws-us-gov:iam::123456789012:role/path/to/name'))).toBeDefined();
    const ds = (arn: string): unknown => ({ delivery_stream: { auth: { role: { role_arn: ROLE } }, delivery_stream_arn: arn } });
    expect(error(ds(KINESIS))).toMatchObject({ code: 'invalid_arn', field: 'target.delivery_stream.delivery_stream_arn' });
    expect(error(ds('arn:aws:firehose:us-east-1:123456789012:deliverystream/'))).toMatchObject({ code: 'invalid_arn' });
    const dataStream = (stream_arn: unknown): unknown => ({ data_stream: { auth: { role: { role_arn: ROLE } }, stream_arn } });
    expect(error(dataStream('arn:aws:kinesis:useast1:123456789012:stream/x'))).toMatchObject({ code: 'invalid_arn', field: 'target.data_stream.stream_arn' });
    expect(error(dataStream(undefined))).toMatchObject({ code: 'invalid_body', field: 'target.data_stream.stream_arn' });
    const logs = (log_group_arn: string): unknown => ({ log_service: { auth: { role: { role_arn: ROLE } }, log_group_arn } });
    expect(ok(logs(`${LOGS}:*`))).toBeDefined();
    expect(error(logs('arn:aws:logs:us-east-1:123456789012:log-group:bad name'))).toMatchObject({ code: 'invalid_arn', field: 'target.log_service.log_group_arn' });
  });

  it('should accept the cloud writers\' endpoint and partition key options and check them', () => {
    const role = { role: { role_arn: ROLE } };
    const t = ok({ data_stream: { auth: role, stream_arn: KINESIS, endpoint: 'http://127.0.0.1:5000', partition_key: 'object.conn.client_ip' } });
    expect(t).toEqual({ data_stream: { auth: role, stream_arn: KINESIS, endpoint: 'http://127.0.0.1:5000', partition_key: 'object.conn.client_ip' } });
    expect(targetView(t)).toEqual({ data_stream: { auth: role, stream_arn: KINESIS, endpoint: 'http://127.0.0.1:5000', partition_key: 'object.conn.client_ip' } });
    expect(ok({ log_service: { auth: role, log_group_arn: LOGS, endpoint: null } })).toEqual({ log_service: { auth: role, log_group_arn: LOGS } });
    expect(error({ log_service: { auth: role, log_group_arn: LOGS, endpoint: 'ftp://x' } })).toMatchObject({ code: 'invalid_body', field: 'target.log_service.endpoint' });
    expect(error({ log_service: { auth: role, log_group_arn: LOGS, partition_key: 'a.b' } })).toMatchObject({ code: 'unknown_field', field: 'target.log_service.partition_key' });
    expect(error({ data_stream: { auth: role, stream_arn: KINESIS, partition_key: 'not a path' } })).toMatchObject({ code: 'invalid_body', field: 'target.data_stream.partition_key' });
  });

  it('should require exactly one of role or creds', () => {
    const auth = (a: unknown): unknown => ({ data_stream: { auth: a, stream_arn: KINESIS } });
    expect(error(auth({}))).toMatchObject({ code: 'invalid_target_auth', field: 'target.data_stream.auth' });
    expect(error(auth(undefined))).toMatchObject({ code: 'invalid_target_auth', field: 'target.data_stream.auth' });
    const both = error(auth({ role: { role_arn: ROLE }, creds: { cloud_access_key_id: KEY_ID, cloud_secret_access_key: SECRET } }));
    expect(both).toMatchObject({ code: 'invalid_target_auth' });
    expect(both.message).toContain('both');
    expect(ok(auth({ role: { role_arn: ROLE }, creds: null }))).toBeDefined();
  });

  it('should seal the cloud secret key, never storing it in clear, and open it back to the same value', () => {
    const target = ok({ log_service: { auth: { creds: { cloud_access_key_id: KEY_ID, cloud_secret_access_key: SECRET } }, log_group_arn: LOGS } });
    expect(JSON.stringify(target)).not.toContain(SECRET);
    const creds = (target.log_service as { auth: { creds: Record<string, string> } }).auth.creds;
    expect(Object.keys(creds).sort()).toEqual(['cloud_access_key_id', 'cloud_secret_access_key_enc']);
    expect(openSecrets(target, box)).toEqual({ log_service: { auth: { creds: { cloud_access_key_id: KEY_ID, cloud_secret_access_key: SECRET } }, log_group_arn: LOGS } });
  });

  it('should require the cloud secret key on create and when the key id changes, and keep it otherwise', () => {
    const creds = (c: Record<string, unknown>): unknown => ({ data_stream: { auth: { creds: c }, stream_arn: KINESIS } });
    expect(error(creds({ cloud_access_key_id: KEY_ID }))).toMatchObject({ code: 'secret_required', field: 'target.data_stream.auth.creds.cloud_secret_access_key' });
    const previous = ok(creds({ cloud_access_key_id: KEY_ID, cloud_secret_access_key: SECRET }));
    const kept = ok(creds({ cloud_access_key_id: KEY_ID, cloud_secret_access_key: null }), previous);
    expect(kept).toEqual(previous);
    expect(error(creds({ cloud_access_key_id: 'AKIAOTHERKEYEXAMPLE1' }), previous)).toMatchObject({ code: 'secret_required' });
    expect(error(creds({ cloud_access_key_id: 'short', cloud_secret_access_key: SECRET }))).toMatchObject({ code: 'invalid_body', field: 'target.data_stream.auth.creds.cloud_access_key_id' });
    const bad = error(creds({ cloud_access_key_id: KEY_ID, cloud_secret_access_key: 'x'.repeat(1025) }));
    expect(bad).toMatchObject({ code: 'invalid_body', field: 'target.data_stream.auth.creds.cloud_secret_access_key' });
    expect(bad.message).not.toContain('xxxx');
  });

  it('should seal the http secret, keep it when omitted or null, and remove it on ""', () => {
    const first = ok({ http: { url: 'https://a.example/hook', secret: HTTP_SECRET } });
    expect(JSON.stringify(first)).not.toContain(HTTP_SECRET);
    expect(openSecrets(first, box)).toEqual({ http: { url: 'https://a.example/hook', secret: HTTP_SECRET } });
    const moved = ok({ http: { url: 'https://b.example/hook' } }, first);
    expect(moved.http?.secret_enc).toBe(first.http?.secret_enc);
    expect(ok({ http: { url: 'https://b.example/hook', secret: null } }, first).http?.secret_enc).toBe(first.http?.secret_enc);
    expect(ok({ http: { url: 'https://b.example/hook', secret: '' } }, first)).toEqual({ http: { url: 'https://b.example/hook' } });
    expect(ok({ kafka: { topic: 'x' } }, first)).toEqual({ kafka: { topic: 'x' } });
  });

  it('should answer every secret as null in the view, whatever is stored', () => {
    const http = ok({ http: { url: 'https://a.example/hook', secret: HTTP_SECRET } });
    expect(targetView(http)).toEqual({ http: { url: 'https://a.example/hook', secret: null, timeout_ms: null } });
    const cloud = ok({ delivery_stream: { auth: { creds: { cloud_access_key_id: KEY_ID, cloud_secret_access_key: SECRET } }, delivery_stream_arn: FIREHOSE } });
    expect(targetView(cloud)).toEqual({
      delivery_stream: { auth: { creds: { cloud_access_key_id: KEY_ID, cloud_secret_access_key: null } }, delivery_stream_arn: FIREHOSE, endpoint: null },
    });
    const ctx = { uri: (p: string) => `https://api.example${p}` } as unknown as AdminContext;
    const view = destinationView(ctx, { id: 'ed_1', created_at: '2026-01-01T00:00:00.000Z', description: 'd', metadata: 'm', format: 'json', target: cloud });
    expect(view).toMatchObject({ id: 'ed_1', uri: 'https://api.example/event_destinations/ed_1', format: 'json' });
    expect(JSON.stringify(view)).not.toContain('_enc');
    expect(targetView({ kafka: { topic: 't' } })).toEqual({ kafka: { topic: 't', brokers: null, key: null } });
  });
});
