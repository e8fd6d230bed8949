// /event_destinations through the real server socket and the real broker: every kind, every validation
// error with its status and code, write-only secrets (responses, the raw config topic, audit events). The
// create-time checks have their own tests (destination-checks.test.ts); cloud targets here skip them.
import { join } from 'node:path';
import type { KafkaClient } from '../../../src/kafka/seam.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ACCOUNT_ID } from '../../../src/accounts/account.js';
import { SecretBox } from '../../../src/secrets/secret-box.js';
import { decodeKey } from '../../../src/config/service-config.js';
import { consumeUntil, testClient, type ConsumedMessage } from '../../support/kafka.js';
import { PUBLIC_BASE_URL, startAdmin, type AdminHarness } from './admin-harness.js';

/** Response bodies and delivered objects are read as loosely typed JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const HTTP_SECRET = 'http-signing-secret-5f1c9e7a2b';
const HTTP_SECRET_2 = 'rotated-signing-secret-8d3e0a61';
const CLOUD_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzq8EXAMPLE';
const KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const ROLE = 'arn:aws:iam::123456789012:role/edge-events';
const FIREHOSE = 'arn:aws:firehose:us-east-1:123456789012:deliverystream/edge';
const KINESIS = 'arn:aws:kinesis:us-east-1:123456789012:stream/edge';
const LOGS = 'arn:aws:logs:us-east-1:123456789012:log-group:edge';
/** A destination nobody has delivered to yet. */
const UNKNOWN_STATUS = { state: 'unknown', last_delivered_at: null, last_error: null, parked_events: 0, oldest_parked_at: null, stalled_since: null };

let h: AdminHarness;
let kafka: KafkaClient;

beforeAll(async () => {
  h = await startAdmin();
  kafka = testClient('event-destinations-test');
});
afterAll(async () => {
  await h?.stop();
});

const create = (body: unknown) => h.call('POST', '/event_destinations', { body });

async function created(body: unknown): Promise<Record<string, Json>> {
  const r = await create(body);
  expect(r.status, r.text).toBe(201);
  return r.json;
}

async function expectError(p: Promise<{ status: number; json: Json; text: string }>, status: number, code: string, field?: string): Promise<Json> {
  const r = await p;
  expect(r.status, r.text).toBe(status);
  expect(r.json, r.text).toMatchObject({ error_code: code, status_code: status });
  expect(typeof r.json.msg).toBe('string');
  if (field !== undefined) expect(r.json.details.field, r.text).toBe(field);
  expect(r.text).not.toMatch(/\n\s+at /);
  return r.json;
}

/** Every record of the config topic so far, raw (a sync marker is written last, so waiting for it is enough). */
async function rawTopic(topic: string): Promise<ConsumedMessage[]> {
  const marker = await created({ target: { file: { path: 'marker.ndjson' } } });
  return consumeUntil(kafka, { topics: [topic], until: (got) => got.some((m) => m.key === marker.id) });
}

describe('event destinations', () => {
  it('should create each kind of target and answer it with absolute uris and format "json"', async () => {
    const topic = `${h.prefix}.out`;
    const kafkaDest = await created({ description: 'to kafka', metadata: '{"team":"edge"}', format: 'JSON', target: { kafka: { topic } } });
    expect(kafkaDest).toEqual({
      id: expect.stringMatching(/^ed_[0-9A-Z]{26}$/),
      uri: `${PUBLIC_BASE_URL}/event_destinations/${kafkaDest.id}`,
      account_id: OPERATOR_ACCOUNT_ID,
      created_at: expect.any(String),
      description: 'to kafka',
      metadata: '{"team":"edge"}',
      format: 'json',
      timestamp_format: 'rfc3339',
      target: { kafka: { topic, brokers: null, key: null, partitions: null, replication_factor: null } },
      status: UNKNOWN_STATUS,
    });
    expect(Date.parse(kafkaDest.created_at)).toBeGreaterThan(Date.now() - 60_000);
    for (const format of ['json', 'Json', 'jSoN']) expect((await created({ format, target: { file: { path: 'x.ndjson' } } })).format).toBe('json');
    expect((await created({ target: { file: { path: 'y.ndjson' } } })).format).toBe('json');

    expect((await created({ target: { kafka: { topic: 't', brokers: ['203.0.113.10:9092', '198.51.100.7:9093'] } }, verify: false })).target.kafka.brokers).toEqual([
      '203.0.113.10:9092',
      '198.51.100.7:9093',
    ]);
    expect((await created({ target: { http: { url: 'https://hooks.example/in', secret: HTTP_SECRET } } })).target).toEqual({
      http: { url: 'https://hooks.example/in', secret: null, timeout_ms: null, output_type: null, compression: null },
    });
    // Where the workers write, resolved under the service's file root (the harness's: the default, relative to the working directory).
    expect((await created({ target: { file: { path: 'audit/all.ndjson' } } })).target).toEqual({
      file: { path: 'audit/all.ndjson', resolved_path: join(process.cwd(), '.local', 'destinations', 'audit', 'all.ndjson'), output_type: null },
    });
    expect((await created({ target: { delivery_stream: { auth: { role: { role_arn: ROLE } }, delivery_stream_arn: FIREHOSE } }, verify: false })).target).toEqual({
      // The role's ExternalId is the destination's account id (SECURITY.md "Egress"), read-only.
      delivery_stream: { auth: { role: { role_arn: ROLE, external_id: OPERATOR_ACCOUNT_ID } }, delivery_stream_arn: FIREHOSE, endpoint: null },
    });
    const creds = { cloud_access_key_id: KEY_ID, cloud_secret_access_key: CLOUD_SECRET };
    expect((await created({ target: { data_stream: { auth: { creds }, stream_arn: KINESIS } }, verify: false })).target).toEqual({
      data_stream: { auth: { creds: { cloud_access_key_id: KEY_ID, cloud_secret_access_key: null } }, stream_arn: KINESIS, endpoint: null, partition_key: null },
    });
    const logs = await created({ target: { log_service: { auth: { creds }, log_group_arn: LOGS, endpoint: 'http://127.0.0.1:4566' } }, verify: false });
    expect(logs.target.log_service).toMatchObject({ log_group_arn: LOGS, endpoint: 'http://127.0.0.1:4566' });
    const unset = { region: null, endpoint: null, prefix: null, output_type: null, compression: null, max_upload_bytes: null, max_upload_records: null, max_upload_interval_seconds: null };
    expect((await created({ target: { object_store: { auth: { creds }, bucket: 'edge-logs' } }, verify: false })).target).toEqual({
      object_store: { auth: { creds: { cloud_access_key_id: KEY_ID, cloud_secret_access_key: null } }, bucket: 'edge-logs', ...unset },
    });

    const got = await h.call('GET', `/event_destinations/${kafkaDest.id}`);
    expect(got.status).toBe(200);
    expect(got.json).toEqual(kafkaDest);
  });

  it('should refuse every invalid destination with 400, its error code and the field', async () => {
    const role = { role: { role_arn: ROLE } };
    await expectError(create({}), 400, 'invalid_body', 'target');
    await expectError(create({ target: {} }), 400, 'invalid_target_kind', 'target');
    await expectError(create({ target: { kafka: { topic: 'a' }, file: { path: 'b' } } }), 400, 'invalid_target_kind', 'target');
    await expectError(create({ target: { s3: { bucket: 'b' } } }), 400, 'unknown_field', 'target.s3');
    await expectError(create({ target: { kafka: { topic: 'a', replicas: 2 } } }), 400, 'unknown_field', 'target.kafka.replicas');
    await expectError(create({ target: { kafka: { topic: 'a' } }, colour: 'red' }), 400, 'unknown_field', 'colour');
    await expectError(create({ target: { kafka: {} } }), 400, 'invalid_body', 'target.kafka.topic');
    await expectError(create({ target: { kafka: { topic: 'a', partitions: 0 } } }), 400, 'invalid_body', 'target.kafka.partitions');
    await expectError(create({ target: { kafka: { topic: 'a' } }, verify: 'no' }), 400, 'invalid_body', 'verify');
    await expectError(create({ target: { kafka: { topic: 'a', brokers: ['nohost'] } } }), 400, 'invalid_body', 'target.kafka.brokers');
    await expectError(create({ target: { http: { url: 'not a url' } } }), 400, 'invalid_body', 'target.http.url');
    await expectError(create({ target: { http: { url: 'ftp://example.com/x' } } }), 400, 'invalid_body', 'target.http.url');
    const short = await expectError(create({ target: { http: { url: 'https://a.example', secret: 'tooshort' } } }), 400, 'invalid_body', 'target.http.secret');
    expect(JSON.stringify(short)).not.toContain('tooshort');
    await expectError(create({ target: { file: { path: '../escape.ndjson' } } }), 400, 'invalid_file_path', 'target.file.path');
    await expectError(create({ target: { file: { path: 'a/../../escape.ndjson' } } }), 400, 'invalid_file_path', 'target.file.path');
    await expectError(create({ target: { file: { path: '/etc/passwd' } } }), 400, 'invalid_file_path', 'target.file.path');
    await expectError(create({ target: { delivery_stream: { auth: role, delivery_stream_arn: KINESIS } } }), 400, 'invalid_arn', 'target.delivery_stream.delivery_stream_arn');
    await expectError(create({ target: { data_stream: { auth: role, stream_arn: 'arn:aws:kinesis:us-east-1:1234:stream/x' } } }), 400, 'invalid_arn', 'target.data_stream.stream_arn');
    await expectError(create({ target: { log_service: { auth: role, log_group_arn: 'edge' } } }), 400, 'invalid_arn', 'target.log_service.log_group_arn');
    await expectError(create({ target: { log_service: { auth: { role: { role_arn: 'arn:aws:iam::123456789012:user/bob' } }, log_group_arn: LOGS } } }), 400, 'invalid_arn', 'target.log_service.auth.role.role_arn');
    await expectError(create({ target: { data_stream: { auth: {}, stream_arn: KINESIS } } }), 400, 'invalid_target_auth', 'target.data_stream.auth');
    await expectError(
      create({ target: { data_stream: { auth: { ...role, creds: { cloud_access_key_id: KEY_ID, cloud_secret_access_key: CLOUD_SECRET } }, stream_arn: KINESIS } } }),
      400,
      'invalid_target_auth',
      'target.data_stream.auth',
    );
    await expectError(create({ target: { data_stream: { auth: { creds: { cloud_access_key_id: KEY_ID } }, stream_arn: KINESIS } } }), 400, 'secret_required', 'target.data_stream.auth.creds.cloud_secret_access_key');
    await expectError(create({ target: { data_stream: { auth: { creds: { cloud_access_key_id: 'ab', cloud_secret_access_key: CLOUD_SECRET } }, stream_arn: KINESIS } } }), 400, 'invalid_body', 'target.data_stream.auth.creds.cloud_access_key_id');
    await expectError(create({ target: { log_service: { auth: role, log_group_arn: LOGS, endpoint: 'not a url' } } }), 400, 'invalid_body', 'target.log_service.endpoint');
    await expectError(create({ format: 'xml', target: { file: { path: 'a' } } }), 400, 'invalid_body', 'format');
    // The limit counts bytes here: 128 two-byte characters are 256 bytes.
    const tooLong = await expectError(create({ description: 'é'.repeat(128), target: { file: { path: 'a' } } }), 400, 'field_too_long', 'description');
    expect(tooLong.details).toMatchObject({ limit: 255, unit: 'bytes', actual: 256 });
    await expectError(create({ metadata: 'é'.repeat(2049), target: { file: { path: 'a' } } }), 400, 'field_too_long', 'metadata');
    expect((await created({ description: 'é'.repeat(127) + 'a', metadata: 'é'.repeat(2048), target: { file: { path: 'a' } } })).description).toHaveLength(128);

    await expectError(h.call('GET', '/event_destinations/ed_01JD0000000000000000000000'), 404, 'not_found');
    await expectError(h.call('PATCH', '/event_destinations/ed_01JD0000000000000000000000', { body: { description: 'x' } }), 404, 'not_found');
    await expectError(h.call('DELETE', '/event_destinations/ed_01JD0000000000000000000000'), 404, 'not_found');
  });

  it('should answer every problem of a destination at once in details.problems, the first as before', async () => {
    const body = { description: 'a'.repeat(300), target: { http: { url: 'ftp://example.com/x', secret: 'tooshort', timeout_ms: 5 } } };
    const first = await expectError(create(body), 400, 'field_too_long', 'description');
    const problems = first.details.problems as { path: string; code: string; message: string }[];
    expect(problems.map((p) => [p.path, p.code])).toEqual([
      ['description', 'field_too_long'],
      ['target.http.url', 'invalid_body'],
      ['target.http.secret', 'invalid_body'],
      ['target.http.timeout_ms', 'invalid_body'],
    ]);
    expect(problems[0]?.message).toBe(first.msg);
    // Each problem is what the API answers when it is the only one.
    const alone = await create({ target: { http: { url: 'https://a.example', timeout_ms: 5 } } });
    expect(problems[3]?.message).toBe(alone.json.msg);
    expect(JSON.stringify(first)).not.toContain('tooshort');
  });

  it('should update description, metadata and target, keeping an omitted secret and replacing a sent one', async () => {
    const d = await created({ description: 'before', target: { http: { url: 'https://a.example/in', secret: HTTP_SECRET } } });
    const renamed = await h.call('PATCH', `/event_destinations/${d.id}`, { body: { description: 'after' } });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toEqual({ ...d, description: 'after' });
    // A GET response sent back unchanged (secret: null) keeps the stored secret.
    const moved = await h.call('PATCH', `/event_destinations/${d.id}`, { body: { target: { ...renamed.json.target, http: { ...renamed.json.target.http, url: 'https://b.example/in' } } } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json.target.http).toEqual({ url: 'https://b.example/in', secret: null, timeout_ms: null, output_type: null, compression: null });
    const sealedAfterMove = await storedSecret(d.id);
    expect(sealedAfterMove).toBe(HTTP_SECRET);
    await h.call('PATCH', `/event_destinations/${d.id}`, { body: { target: { http: { url: 'https://b.example/in', secret: HTTP_SECRET_2 } } } });
    expect(await storedSecret(d.id)).toBe(HTTP_SECRET_2);
    await h.call('PATCH', `/event_destinations/${d.id}`, { body: { target: { http: { url: 'https://b.example/in', secret: '' } } } });
    expect(await storedSecret(d.id)).toBeUndefined();

    const c = await created({ target: { log_service: { auth: { creds: { cloud_access_key_id: KEY_ID, cloud_secret_access_key: CLOUD_SECRET } }, log_group_arn: LOGS } }, verify: false });
    const kept = await h.call('PATCH', `/event_destinations/${c.id}`, { body: { target: c.target, verify: false } });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.json).toEqual(c);
    await expectError(
      h.call('PATCH', `/event_destinations/${c.id}`, { body: { target: { log_service: { auth: { creds: { cloud_access_key_id: 'AKIAOTHEREXAMPLE0001' } }, log_group_arn: LOGS } } } }),
      400,
      'secret_required',
      'target.log_service.auth.creds.cloud_secret_access_key',
    );
    const toKafka = await h.call('PATCH', `/event_destinations/${c.id}`, { body: { target: { kafka: { topic: `${h.prefix}.moved` } } } });
    expect(toKafka.json.target).toEqual({ kafka: { topic: `${h.prefix}.moved`, brokers: null, key: null, partitions: null, replication_factor: null } });
    await expectError(h.call('PATCH', `/event_destinations/${c.id}`, { body: { target: { file: { path: '../x' } } } }), 400, 'invalid_file_path', 'target.file.path');
  });

  it('should take a timestamp_format, answer rfc3339 by default, change it alone with PATCH, and refuse one it does not know', async () => {
    const d = await created({ target: { file: { path: 'formats.ndjson' } } });
    expect(d.timestamp_format).toBe('rfc3339');
    const changed = await h.call('PATCH', `/event_destinations/${d.id}`, { body: { timestamp_format: 'unixnano' } });
    expect([changed.status, changed.json.timestamp_format, changed.json.target]).toEqual([200, 'unixnano', d.target]);
    expect((await created({ timestamp_format: 'unix', target: { file: { path: 'unix.ndjson' } } })).timestamp_format).toBe('unix');
    await expectError(create({ timestamp_format: 'iso8601', target: { file: { path: 'x.ndjson' } } }), 400, 'invalid_body', 'timestamp_format');
  });

  it('should list destinations newest first, a page at a time', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await created({ description: `page ${i}`, target: { file: { path: `p${i}` } } })).id);
    const first = await h.call('GET', '/event_destinations?limit=2');
    expect(first.status).toBe(200);
    expect(first.json.event_destinations.map((d: { id: string }) => d.id)).toEqual([ids[2], ids[1]]);
    expect(first.json.uri).toBe(`${PUBLIC_BASE_URL}/event_destinations`);
    expect(first.json.next_page_uri).toBe(`${PUBLIC_BASE_URL}/event_destinations?limit=2&before_id=${ids[1]}`);
    const second = await h.call('GET', `/event_destinations?limit=2&before_id=${ids[1]}`);
    expect(second.json.event_destinations[0].id).toBe(ids[0]);
    await expectError(h.call('GET', '/event_destinations?limit=101'), 400, 'invalid_parameter');
  });

  it('should refuse to delete a destination a subscription uses, naming the subscription, and delete it once unused', async () => {
    const d = await created({ target: { file: { path: 'used.ndjson' } } });
    const s = await h.call('POST', '/event_subscriptions', { body: { sources: [{ type: 'api_key_created.v0' }], destination_ids: [d.id] } });
    expect(s.status, s.text).toBe(201);
    const refused = await expectError(h.call('DELETE', `/event_destinations/${d.id}`), 409, 'event_destination_in_use');
    expect(refused.details).toEqual({ id: d.id, subscriptions: [s.json.id] });
    expect(refused.msg).toContain(s.json.id);
    expect((await h.call('PATCH', `/event_subscriptions/${s.json.id}`, { body: { destination_ids: [] } })).status).toBe(200);
    const del = await h.call('DELETE', `/event_destinations/${d.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    await expectError(h.call('GET', `/event_destinations/${d.id}`), 404, 'not_found');
  });

  it('should never return a secret, and keep it only sealed in the config topic and out of audit events', async () => {
    const http = await created({ target: { http: { url: 'https://c.example/in', secret: HTTP_SECRET } } });
    const cloud = await created({ target: { delivery_stream: { auth: { creds: { cloud_access_key_id: KEY_ID, cloud_secret_access_key: CLOUD_SECRET } }, delivery_stream_arn: FIREHOSE } }, verify: false });
    const listed = await h.call('GET', '/event_destinations?limit=100');
    for (const text of [JSON.stringify(http), JSON.stringify(cloud), listed.text, (await h.call('GET', `/event_destinations/${cloud.id}`)).text]) {
      expect(text).not.toContain(HTTP_SECRET);
      expect(text).not.toContain(CLOUD_SECRET);
      expect(text).not.toContain('_enc');
    }

    const records = await rawTopic(`${h.prefix}.config`);
    const raw = records.map((m) => m.value ?? '').join('\n');
    for (const secret of [HTTP_SECRET, HTTP_SECRET_2, CLOUD_SECRET]) {
      expect(raw).not.toContain(secret);
      expect(raw).not.toContain(Buffer.from(secret).toString('base64'));
    }
    // The sealed values are there, and open to the secrets with this service's key.
    const box = new SecretBox(decodeKey(h.env.SECRET_KEY as string) as Buffer);
    const stored = (id: string): Json => JSON.parse(records.filter((m) => m.key === id).at(-1)?.value ?? 'null').data;
    expect(box.open(stored(http.id).target.http.secret_enc)).toBe(HTTP_SECRET);
    expect(box.open(stored(cloud.id).target.delivery_stream.auth.creds.cloud_secret_access_key_enc)).toBe(CLOUD_SECRET);

    const audit = await consumeUntil(kafka, { topics: [`${h.prefix}.audit`], until: (got) => got.some((m) => m.key === cloud.id) });
    const events = audit.map((m) => JSON.parse(m.value ?? '{}'));
    // The audit object is the destination as the API answers it, but for its status: that is the workers' report, not config.
    const { status, ...config } = cloud;
    expect(status).toEqual(UNKNOWN_STATUS);
    expect(events.find((e) => e.object.id === cloud.id)).toEqual(expect.objectContaining({ event_type: 'event_destination_created.v0', object: config }));
    const auditText = audit.map((m) => m.value).join('\n');
    for (const secret of [HTTP_SECRET, HTTP_SECRET_2, CLOUD_SECRET]) expect(auditText).not.toContain(secret);
    expect(auditText).not.toContain('_enc');
  });
});

/** The clear http secret a destination holds in the config log, read the way the destination pool does. */
async function storedSecret(id: string): Promise<string | undefined> {
  const box = new SecretBox(decodeKey(h.env.SECRET_KEY as string) as Buffer);
  const v = h.app.configLog.get(id);
  const enc = (v?.data as { target?: { http?: { secret_enc?: string } } } | undefined)?.target?.http?.secret_enc;
  return enc === undefined ? undefined : box.open(enc);
}
