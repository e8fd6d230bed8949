// A destination's target as the API takes it: exactly one kind, that kind's rules with their API codes,
// nulls stored as absent, secrets sealed, kept or removed, and views that never show a secret.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { StoredTarget } from '../../../src/configlog/resources.js';
import { destinationView } from '../../../src/admin/event-destinations/destination-view.js';
import type { AdminContext } from '../../../src/admin/context.js';
import { compileValidator } from '../../../src/admin/validation.js';
import { openSecrets } from '../../../src/delivery/build-writer.js';
import { acceptTarget, targetSchema, targetView } from '../../../src/delivery/destination-target.js';
import { DESTINATION_KINDS } from '../../../src/delivery/destinations/kinds.js';
import { SecretBox } from '../../../src/secrets/secret-box.js';
import { OPERATOR } from '../../../src/accounts/account.js';
import { TEST_EGRESS } from '../../support/writer-deps.js';

const box = new SecretBox(randomBytes(32));
const VIEW = { fileRoot: '/srv/files', account: OPERATOR };
const seal = (s: string): string => box.seal(s);
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const HTTP_SECRET = 'a-signing-secret-of-32-characters';
const KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const ROLE = 'arn:aws:iam::123456789012:role/edge-events';
const FIREHOSE = 'arn:aws:firehose:us-east-1:123456789012:deliverystream/edge';
const KINESIS = 'arn:aws:kinesis:eu-west-2:123456789012:stream/edge';
const LOGS = 'arn:aws:logs:us-east-1:123456789012:log-group:/edge/events';

function ok(raw: unknown, previous?: StoredTarget): StoredTarget {
  const r = acceptTarget(raw, { seal, previous, account: OPERATOR, egress: TEST_EGRESS });
  if (!r.ok) throw new Error(`expected ok, got ${r.problem.code}: ${r.problem.message}`);
  return r.target;
}

function error(raw: unknown, previous?: StoredTarget): { code: string; field: unknown; message: string } {
  const r = acceptTarget(raw, { seal, previous, account: OPERATOR, egress: TEST_EGRESS });
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.target)}`);
  return { code: r.problem.code, field: r.problem.details.field, message: r.problem.message };
}

describe('event destination target', () => {
  it('should accept each of the six kinds', () => {
    expect(ok({ kafka: { topic: 'out' } })).toEqual({ kafka: { topic: 'out' } });
    expect(ok({ kafka: { topic: 'out', brokers: ['203.0.113.10:9092'] } })).toEqual({ kafka: { topic: 'out', brokers: ['203.0.113.10:9092'] } });
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
    expect(ok({ data_stream: { auth: { role: { role_arn: ROLE }, creds: null }, stream_arn: KINESIS, endpoint: null } })).toEqual({
      data_stream: { auth: { role: { role_arn: ROLE } }, stream_arn: KINESIS },
    });
  });

  it('should refuse a target with no kind, two kinds or an unknown kind, listing the kinds', () => {
    expect(error({})).toMatchObject({ code: 'invalid_target_kind', field: 'target' });
    expect(error({}).message).toContain(DESTINATION_KINDS.map((k) => k.name).join(', '));
    expect(error({ kafka: { topic: 'a' }, file: { path: 'b' } })).toMatchObject({ code: 'invalid_target_kind', field: 'target' });
    expect(error({ kafka: { topic: 'a' }, file: { path: 'b' } }).message).toContain('kafka and file');
    expect(error({ s3: { bucket: 'x' } })).toMatchObject({ code: 'unknown_field', field: 'target.s3' });
    expect(error('kafka')).toMatchObject({ code: 'invalid_target_kind', field: 'target' });
    expect(error({ kafka: 'x' })).toMatchObject({ code: 'invalid_body', field: 'target.kafka' });
  });

  it("should answer a kind's first problem with its API code", () => {
    expect(error({ kafka: { topic: 'bad topic' } })).toMatchObject({ code: 'invalid_topic_name', field: 'target.kafka.topic' });
    expect(error({ kafka: { topic: 'edge.config' } })).toMatchObject({ code: 'internal_topic', field: 'target.kafka.topic' });
    expect(error({ kafka: { topic: 'a', partitions: 0 } })).toMatchObject({ code: 'invalid_body', field: 'target.kafka.partitions' });
    expect(error({ kafka: { topic: 'a', replicas: 3 } })).toMatchObject({ code: 'unknown_field', field: 'target.kafka.replicas' });
    expect(error({ file: { path: '../outside' } })).toMatchObject({ code: 'invalid_file_path', field: 'target.file.path' });
    expect(error({ data_stream: { auth: {}, stream_arn: 'x' } })).toMatchObject({ code: 'invalid_arn', field: 'target.data_stream.stream_arn' });
    expect(error({ data_stream: { auth: {}, stream_arn: KINESIS } })).toMatchObject({ code: 'invalid_target_auth', field: 'target.data_stream.auth' });
  });

  it('should seal the cloud secret key, never storing it in clear, and open it back to the same value', () => {
    const target = ok({ log_service: { auth: { creds: { cloud_access_key_id: KEY_ID, cloud_secret_access_key: SECRET } }, log_group_arn: LOGS } });
    expect(JSON.stringify(target)).not.toContain(SECRET);
    const creds = (target.log_service as { auth: { creds: Record<string, string> } }).auth.creds;
    expect(Object.keys(creds).sort()).toEqual(['cloud_access_key_id', 'cloud_secret_access_key_enc']);
    expect(openSecrets(target, box)).toEqual({ log_service: { auth: { creds: { cloud_access_key_id: KEY_ID, cloud_secret_access_key: SECRET } }, log_group_arn: LOGS } });
  });

  it('should require the cloud secret key on create and when the key id changes, after every other problem, and keep it otherwise', () => {
    const creds = (c: Record<string, unknown>, arn = KINESIS): unknown => ({ data_stream: { auth: { creds: c }, stream_arn: arn } });
    const required = error(creds({ cloud_access_key_id: KEY_ID }));
    expect(required).toMatchObject({ code: 'secret_required', field: 'target.data_stream.auth.creds.cloud_secret_access_key' });
    expect(required.message).toContain('with creds');
    expect(error(creds({ cloud_access_key_id: KEY_ID }, 'bad'))).toMatchObject({ code: 'invalid_arn' });
    expect(error(creds({ cloud_access_key_id: 'ab' }))).toMatchObject({ code: 'invalid_body', field: 'target.data_stream.auth.creds.cloud_access_key_id' });
    const previous = ok(creds({ cloud_access_key_id: KEY_ID, cloud_secret_access_key: SECRET }));
    const kept = ok(creds({ cloud_access_key_id: KEY_ID, cloud_secret_access_key: null }), previous);
    expect(kept).toEqual(previous);
    const changed = error(creds({ cloud_access_key_id: 'AKIAOTHERKEYEXAMPLE1' }), previous);
    expect(changed).toMatchObject({ code: 'secret_required' });
    expect(changed.message).toContain('when cloud_access_key_id changes');
    const bad = error(creds({ cloud_access_key_id: KEY_ID, cloud_secret_access_key: 'x'.repeat(1025) }));
    expect(bad).toMatchObject({ code: 'invalid_body', field: 'target.data_stream.auth.creds.cloud_secret_access_key' });
    expect(bad.message).not.toContain('xxxx');
    // Another kind's secret is never kept.
    expect(error(creds({ cloud_access_key_id: KEY_ID }), { log_service: (previous.data_stream as Record<string, unknown>) })).toMatchObject({ code: 'secret_required' });
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
    expect(error({ http: { url: 'https://b.example/hook', secret: 'short' } }, first)).toMatchObject({ code: 'invalid_body', field: 'target.http.secret' });
  });

  it('should answer every secret as null in the view, whatever is stored', () => {
    const http = ok({ http: { url: 'https://a.example/hook', secret: HTTP_SECRET } });
    expect(targetView(http, VIEW)).toEqual({ http: { url: 'https://a.example/hook', secret: null, timeout_ms: null, output_type: null, compression: null } });
    const cloud = ok({ delivery_stream: { auth: { creds: { cloud_access_key_id: KEY_ID, cloud_secret_access_key: SECRET } }, delivery_stream_arn: FIREHOSE } });
    expect(targetView(cloud, VIEW)).toEqual({
      delivery_stream: { auth: { creds: { cloud_access_key_id: KEY_ID, cloud_secret_access_key: null } }, delivery_stream_arn: FIREHOSE, endpoint: null },
    });
    const ctx = { uri: (p: string) => `https://api.example${p}`, config: { fileDestinationRoot: '/srv/files' } } as unknown as AdminContext;
    const view = destinationView(ctx, { id: 'ed_1', created_at: '2026-01-01T00:00:00.000Z', description: 'd', metadata: 'm', format: 'json', target: cloud });
    expect(view).toMatchObject({ id: 'ed_1', uri: 'https://api.example/event_destinations/ed_1', format: 'json' });
    expect(JSON.stringify(view)).not.toContain('_enc');
    expect(targetView({ kafka: { topic: 't' } }, VIEW)).toEqual({ kafka: { topic: 't', brokers: null, key: null, partitions: null, replication_factor: null } });
    expect(targetView({ carrier_pigeon: { loft: 'x' } }, VIEW)).toEqual({});
  });

  it("should give target one optional property per kind, each the kind's named schema, a request's taking a kind sent as null as absent", () => {
    for (const use of ['create', 'update', 'response'] as const) {
      const schema = targetSchema(use);
      const properties = schema.properties as Record<string, { title?: string }>;
      expect(Object.keys(properties)).toEqual(DESTINATION_KINDS.map((k) => k.name));
      expect(schema.required).toBeUndefined();
      expect(schema['x-null-is-absent']).toBe(use === 'response' ? undefined : true);
      // Named in its kind's folder: <Kind>Target, its update's <Kind>TargetUpdate where a secret changes it, its response's <Kind>TargetView.
      for (const k of DESTINATION_KINDS) {
        const own = use === 'response' ? k.schema.response.title : k.schema.request.title;
        expect(properties[k.name]?.title, k.name).toBe(use === 'update' && k.secrets.length > 0 ? `${String(own)}Update` : own);
      }
    }
  });

  it('should take a target without its cloud secret in an update only, where leaving it out keeps the stored one', () => {
    const create = compileValidator({ schema: targetSchema('create'), httpPart: 'body' });
    const update = compileValidator({ schema: targetSchema('update'), httpPart: 'body' });
    const creds = (secret: unknown) => ({ delivery_stream: { delivery_stream_arn: FIREHOSE, auth: { creds: { cloud_access_key_id: KEY_ID, ...(secret !== undefined && { cloud_secret_access_key: secret }) } } } });
    expect([create(creds('s3cret')), update(creds('s3cret'))]).toEqual([true, true]);
    expect([create(creds(undefined)), update(creds(undefined))]).toEqual([false, true]);
    expect([create(creds(null)), update(creds(null))]).toEqual([false, true]);
    expect(create({ http: { url: 'https://example.com/in' }, kafka: null })).toBe(true);
    expect(create({ delivery_stream: { delivery_stream_arn: FIREHOSE, auth: { role: { role_arn: ROLE }, creds: null } } })).toBe(true);
    // Exactly one kind is a rule beyond the schema, which acceptTarget applies.
    for (const target of [{ http: { url: 'https://example.com/in' }, kafka: { topic: 't' } }, {}]) {
      expect(create(target)).toBe(true);
      expect(acceptTarget(target, { seal, account: OPERATOR, egress: TEST_EGRESS })).toMatchObject({ ok: false, problem: { code: 'invalid_target_kind' } });
    }
  });
});
