// A destination's status through the real admin API of a real service (API and worker in one process, the
// suite's broker, real HTTP receivers, the AWS emulator): the workers publish it on the status topic and
// the API reads it. Each test runs its own service, so no other test's records reach its destinations.
import '../parking/quiet-logs.js';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredDestination } from '../../../src/configlog/resources.js';
import { SecretBox } from '../../../src/secrets/secret-box.js';
import { destination } from '../../chaos/harness/service-cluster.js';
import { consumeUntil, testClient, uniqueName, withAdmin } from '../../support/kafka.js';
import { startAdmin, type AdminHarness } from '../admin/admin-harness.js';
import { arnOf } from '../../support/moto.js';
import { motoEndpoint } from '../cloud/cloud-fixtures.js';
import { HttpReceiver } from '../delivery/http-receiver.js';
import { until } from '../parking/parking-harness.js';
import { createDestination, produceTcp, sequences, statusOf, statusWhen, subscribeAll } from './status-support.js';

const SECRET = 'signing-secret-7f3a9c2e5b';
const started: AdminHarness[] = [];
const receivers: HttpReceiver[] = [];

async function service(env: Record<string, string> = {}, roles = 'api,worker'): Promise<AdminHarness> {
  // A short drain: a stop need not wait for deliveries to a receiver that is down.
  const h = await startAdmin({ roles, env: { CLOUD_ENDPOINT_URL: motoEndpoint(), CLOUD_TIMEOUT_MS: '5000', DRAIN_TIMEOUT_MS: '1000', ...env } });
  started.push(h);
  return h;
}

/** A receiver that is down: its port was taken once and freed, so connections to it are refused until start(). */
async function closedReceiver(): Promise<HttpReceiver> {
  const r = new HttpReceiver();
  receivers.push(r);
  await r.start();
  await r.stop();
  return r;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((h) => h.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

describe('destination status', () => {
  it('should create the topic of a new kafka destination, deliver its events there, and show it ok', async () => {
    const api = await service();
    const topic = uniqueName('status.new-topic');
    const d = await createDestination(api, { description: 'to a topic nobody created', target: { kafka: { topic } } });
    expect(d.status).toEqual({ state: 'unknown', last_delivered_at: null, last_error: null, parked_events: 0, oldest_parked_at: null, stalled_since: null });
    await subscribeAll(api, [d.id]);
    await produceTcp(api, 0, 20);
    const got = await consumeUntil(testClient(), { topics: [topic], until: (m) => m.length >= 20 });
    expect(sequences(got.map((m) => JSON.parse(m.value ?? '{}') as { object: unknown }))).toEqual(new Set(Array.from({ length: 20 }, (_, i) => i)));
    const { status } = await statusWhen(api, d.id, (s) => s.state === 'ok', 10_000, 'ok');
    expect(status).toMatchObject({ last_error: null, parked_events: 0, oldest_parked_at: null });
    expect(Date.parse(status.last_delivered_at ?? '')).toBeGreaterThan(Date.now() - 60_000);
    // The list carries the same status.
    const listed = await api.call('GET', '/event_destinations');
    expect(listed.json.event_destinations.find((x: { id: string }) => x.id === d.id).status.state).toBe('ok');
  });

  it('should show an http destination whose receiver is down as failing, with the reason, within 10 s of the first matching record', async () => {
    const api = await service();
    const receiver = await closedReceiver();
    const d = await createDestination(api, { target: { http: { url: receiver.url, secret: SECRET } } });
    await subscribeAll(api, [d.id]);
    // Nothing matched yet: nothing is known.
    expect((await statusOf(api, d.id)).state).toBe('unknown');
    await produceTcp(api, 0, 1);
    const { status } = await statusWhen(api, d.id, (s) => s.state !== 'unknown', 10_000, 'a state other than unknown');
    expect(status.state).toBe('failing');
    expect(status.last_error).toMatchObject({ code: 'DESTINATION_UNREACHABLE', message: expect.stringContaining(`${new URL(receiver.url).host} could not be reached`) });
    expect(status.last_delivered_at).toBeNull();
    expect(JSON.stringify(status)).not.toContain(SECRET);
  });

  it('should show ok within 10 s of a receiver coming back with the default retry settings, whether its deliveries were still retried or already parked', async () => {
    const api = await service();
    const retrying = await closedReceiver();
    const parked = await closedReceiver();
    const a = await createDestination(api, { description: 'back while retried', target: { http: { url: retrying.url } } });
    const b = await createDestination(api, { description: 'back once parked', target: { http: { url: parked.url } } });
    await subscribeAll(api, [a.id, b.id]);
    await produceTcp(api, 0, 1);
    const failedAt = Date.now();
    await statusWhen(api, a.id, (s) => s.state === 'failing', 10_000, 'a failing');
    // No more traffic: only the service's own retries and health checks can notice the receivers coming back.
    await new Promise((r) => setTimeout(r, Math.max(0, failedAt + 8_000 - Date.now())));
    await retrying.start();
    await statusWhen(api, a.id, (s) => s.state === 'ok', 10_000, 'ok after its receiver came back while its batch was retried');
    await statusWhen(api, b.id, (s) => s.state === 'parked', Math.max(1_000, failedAt + 40_000 - Date.now()), 'b parked');
    await parked.start();
    await statusWhen(api, b.id, (s) => s.state === 'ok', 10_000, 'ok after its receiver came back once its deliveries were parked');
    expect([retrying.delivered().length, parked.delivered().length]).toEqual([1, 1]);
  });

  it('should count parked events and their age, then show ok within 10 s of the receiver coming up and drain the backlog', async () => {
    // A retry budget of two quick attempts, so deliveries park at once.
    const api = await service({ RETRY_MAX_ATTEMPTS: '2', RETRY_MAX_ELAPSED_MS: '500', PARKING_SCAN_INTERVAL_MS: '1000' });
    const receiver = await closedReceiver();
    const d = await createDestination(api, { target: { http: { url: receiver.url } } });
    await subscribeAll(api, [d.id]);
    const firstRecordAt = Date.now();
    await produceTcp(api, 0, 30);
    const parked = await statusWhen(api, d.id, (s) => s.state === 'parked' && s.parked_events >= 30, 15_000, '30 parked events');
    expect(parked.status.last_error?.code).toBe('DESTINATION_UNREACHABLE');
    const oldest = Date.parse(parked.status.oldest_parked_at ?? '');
    expect(oldest).toBeGreaterThanOrEqual(firstRecordAt - 1_000);
    expect(oldest).toBeLessThanOrEqual(Date.now());

    // Traffic keeps coming while the receiver comes back.
    let seq = 30;
    const traffic = setInterval(() => void produceTcp(api, seq++, 1), 500);
    try {
      await receiver.start();
      const upAt = Date.now();
      const ok = await statusWhen(api, d.id, (s) => s.state === 'ok', 10_000, 'ok after the receiver came up');
      expect(Date.parse(ok.status.last_delivered_at ?? '')).toBeGreaterThanOrEqual(upAt - 1_000);
      await statusWhen(api, d.id, (s) => s.parked_events === 0 && s.oldest_parked_at === null, 30_000, 'the backlog drained');
    } finally {
      clearInterval(traffic);
    }
    const all = Array.from({ length: 30 }, (_, i) => i);
    await statusWhen(api, d.id, () => all.every((s) => sequences(receiver.delivered()).has(s)), 30_000, 'every parked event delivered');
  });

  it('should show a destination whose writer cannot be built as failing with DESTINATION_MISCONFIGURED, before any event, and start afresh once fixed', async () => {
    const api = await service();
    // Sealed with a key this service does not have, as after a SECRET_KEY rotation gone wrong.
    const foreign = new SecretBox(randomBytes(32));
    const receiver = new HttpReceiver();
    receivers.push(receiver);
    await receiver.start();
    const broken: StoredDestination = destination({ http: { url: receiver.url, secret_enc: foreign.seal(SECRET) } });
    await api.app.configLog.write([{ id: broken.id, kind: 'event_destination', data: broken }]);
    const { status } = await statusWhen(api, broken.id, (s) => s.state === 'failing', 10_000, 'failing');
    expect(status.last_error).toMatchObject({ code: 'DESTINATION_MISCONFIGURED', message: expect.stringContaining("cannot be opened with this service's SECRET_KEY") });
    expect(JSON.stringify(status)).not.toContain(SECRET);

    const fixed = await api.call('PATCH', `/event_destinations/${broken.id}`, { body: { target: { http: { url: receiver.url, secret: SECRET } } } });
    expect(fixed.status, fixed.text).toBe(200);
    // What the old target did says nothing of the new one; the last error stays for reference.
    await statusWhen(api, broken.id, (s) => s.state === 'unknown' && s.last_error?.code === 'DESTINATION_MISCONFIGURED', 10_000, 'unknown after the fix');
    await subscribeAll(api, [broken.id]);
    await produceTcp(api, 0, 5);
    await statusWhen(api, broken.id, (s) => s.state === 'ok', 10_000, 'ok once an event was delivered');
  });

  it("should show a cloud destination stored without its check as failing with AWS's own error once events flow", async () => {
    const api = await service();
    const missing = arnOf('data_stream', uniqueName('status-missing'));
    const d = await createDestination(api, {
      target: { data_stream: { auth: { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSWRITER', cloud_secret_access_key: 'writer-secret-0001' } }, stream_arn: missing } },
      verify: false,
    });
    await subscribeAll(api, [d.id]);
    await produceTcp(api, 0, 3);
    const { status } = await statusWhen(api, d.id, (s) => s.state === 'failing', 10_000, 'failing');
    expect(status.last_error).toMatchObject({
      code: 'DESTINATION_NOT_FOUND',
      // The first write's error, or the health check's describe of the stream when it runs first: AWS's words either way.
      message: expect.stringMatching(/(Kinesis PutRecords to .* failed|Describing the destination failed): ResourceNotFoundException/),
    });
    expect(JSON.stringify(status)).not.toContain('writer-secret-0001');
  });

  it('should check the destinations a worker finds at start: a missing topic is created, a missing stream shows failing at once', async () => {
    // Stored with their checks skipped by an API-only service: nothing created, nothing called.
    const api = await service({}, 'api');
    const topic = uniqueName('status.created-at-start');
    const k = await createDestination(api, { target: { kafka: { topic } }, verify: false });
    const creds = { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSWRITER', cloud_secret_access_key: 'writer-secret-0002' } };
    const c = await createDestination(api, { target: { log_service: { auth: creds, log_group_arn: arnOf('log_service', uniqueName('gone')) } }, verify: false });
    const exists = () => withAdmin(testClient(), async (admin) => (await admin.listTopics()).includes(topic));
    expect(await exists()).toBe(false);

    // A worker of the same service (its topics and SECRET_KEY) starts with that config.
    const worker = await startAdmin({ prefix: api.prefix, roles: 'worker', env: { SECRET_KEY: api.env.SECRET_KEY as string, CLOUD_ENDPOINT_URL: motoEndpoint() } });
    started.push(worker);
    const { status } = await statusWhen(api, c.id, (s) => s.state === 'failing', 20_000, 'failing without any event');
    expect(status.last_error).toMatchObject({ code: 'DESTINATION_NOT_FOUND', message: expect.stringMatching(/Log group .* does not exist/) });
    await until(exists, 20_000, 'the topic to be created');
    expect((await statusOf(api, k.id)).state).toBe('unknown');
  });
});
