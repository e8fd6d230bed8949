// Destination health events through the pipeline itself (docs/events.md "Health events"), with two
// processes of the real service (each an API replica, so a candidate emitter, and a worker) on the suite's
// broker, and real HTTP receivers on 127.0.0.1. Account A's destination F is fed A's own audit events
// (an IP policy created every 300 ms); its receiver answers 500 for a while, then 200. Health
// subscriptions: A's, B's (another account) and the operator's, each to a receiver of its own, and F to
// its own health events (the loop case).
import '../parking/quiet-logs.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Envelope } from '../../../src/events/envelope.js';
import { uniqueName } from '../../support/kafka.js';
import { startAdmin, type AdminHarness, type Body, type CallResult } from '../admin/admin-harness.js';
import { HttpReceiver } from '../delivery/http-receiver.js';
import { until } from '../parking/parking-harness.js';

interface Health {
  readonly account_id: string;
  readonly destination: { readonly id: string; readonly uri: string };
  readonly state_before: string;
  readonly state: string;
  readonly reason: string | null;
  readonly error_code: string | null;
  readonly changed_at: string;
  readonly transitions: number;
}

const started: AdminHarness[] = [];
const receivers: HttpReceiver[] = [];
const timers: NodeJS.Timeout[] = [];

afterEach(async () => {
  for (const t of timers.splice(0)) clearInterval(t);
  await Promise.all(started.splice(0).map((h) => h.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

async function receiver(): Promise<HttpReceiver> {
  const r = new HttpReceiver();
  receivers.push(r);
  await r.start();
  return r;
}

async function ok(p: Promise<CallResult>, status = 201): Promise<Body> {
  const r = await p;
  expect(r.status, r.text).toBe(status);
  return r.json;
}

/** The health events a receiver was delivered about destination `id`, in arrival order, one per event (a redelivery is dropped by event_id). */
function healthOf(r: HttpReceiver, id: string): Health[] {
  const seen = new Set<string>();
  const out: Health[] = [];
  for (const e of r.delivered() as Envelope[]) {
    if (e.event_type !== 'event_destination_health.v0' || seen.has(e.event_id)) continue;
    seen.add(e.event_id);
    const h = e.object as unknown as Health;
    if (h.destination.id === id) out.push(h);
  }
  return out;
}

async function fleet(env: Record<string, string>): Promise<{ api: AdminHarness; other: AdminHarness }> {
  const prefix = uniqueName('health');
  const common = { STATUS_REPORT_INTERVAL_MS: '1000', RETRY_MAX_ATTEMPTS: '2', RETRY_MAX_ELAPSED_MS: '500', PARKING_SCAN_INTERVAL_MS: '500', DRAIN_TIMEOUT_MS: '1000', ...env };
  const api = await startAdmin({ prefix, roles: 'api,worker', env: common });
  started.push(api);
  const other = await startAdmin({ prefix, roles: 'api,worker', token: api.token, env: { ...common, SECRET_KEY: api.env.SECRET_KEY as string } });
  started.push(other);
  return { api, other };
}

async function account(api: AdminHarness, description: string): Promise<string> {
  const a = await ok(api.call('POST', '/accounts', { body: { description } }));
  return (await ok(api.call('POST', '/api_keys', { body: { account_id: a.id } }))).token as string;
}

async function healthSubscriber(api: AdminHarness, token: string | undefined, description: string): Promise<HttpReceiver> {
  const r = await receiver();
  const as = token === undefined ? {} : { token };
  const d = await ok(api.call('POST', '/event_destinations', { ...as, body: { description, target: { http: { url: r.url } } } }));
  await ok(api.call('POST', '/event_subscriptions', { ...as, body: { description, destination_ids: [d.id], sources: [{ type: 'event_destination_health.v0' }] } }));
  return r;
}

/** Account A's destination F, fed an audit event of A's every 300 ms, and its subscription to its own health events. */
async function fedDestination(api: AdminHarness, token: string, feedVia: { api: AdminHarness } = { api }): Promise<{ id: string; flaky: HttpReceiver }> {
  const flaky = await receiver();
  const f = await ok(api.call('POST', '/event_destinations', { token, body: { description: 'flaky', target: { http: { url: flaky.url } } } }));
  await ok(api.call('POST', '/event_subscriptions', { token, body: { description: 'feed', destination_ids: [f.id], sources: [{ type: 'ip_policy_created.v0' }] } }));
  await ok(api.call('POST', '/event_subscriptions', { token, body: { description: 'loop', destination_ids: [f.id], sources: [{ type: 'event_destination_health.v0' }] } }));
  let n = 0;
  timers.push(setInterval(() => void feedVia.api.call('POST', '/ip_policies', { token, body: { description: `p${n++}` } }).catch(() => undefined), 300));
  return { id: f.id as string, flaky };
}

/** Polls the destination's state as its owner sees it until `accept` holds. */
async function stateWhen(api: AdminHarness, token: string, id: string, accept: (state: string) => boolean, what: string): Promise<void> {
  let last = '';
  await until(async () => {
    last = ((await ok(api.call('GET', `/event_destinations/${id}`, { token }), 200)) as { status: { state: string } }).status.state;
    return accept(last);
  }, 30_000, `${what} (last: ${last})`);
}

describe('destination health events', () => {
  it('should deliver exactly one health event each way, failing and back, to its own account and the operator, across a change of emitter', async () => {
    const { api, other } = await fleet({ HEALTH_EVENT_INTERVAL_MS: '2000' });
    const a = await account(api, 'owner');
    const b = await account(api, 'another');
    const toA = await healthSubscriber(api, a, 'A notifications');
    const toB = await healthSubscriber(api, b, 'B notifications');
    const toOperator = await healthSubscriber(api, undefined, 'operator notifications');
    const feed = { api };
    const { id, flaky } = await fedDestination(api, a, feed);
    await stateWhen(api, a, id, (s) => s === 'ok', 'F delivering');
    // The emitter sees F ok before it fails (a first state that is not ok would come from unknown).
    await until(() => [api, other].some((h) => h.app.healthEmitter?.emitting === true), 20_000, 'an emitter');
    await new Promise((r) => setTimeout(r, 2_000));
    flaky.script = () => ({ status: 500 });
    await until(() => healthOf(toA, id).length >= 1, 30_000, 'the failure event');

    // The emitter stops (cleanly: its group hands the partition over at once): the other takes over and
    // must neither repeat the failure nor miss the recovery.
    const emitter = [api, other].find((h) => h.app.healthEmitter?.emitting === true);
    expect(emitter, 'one of the two processes emits').toBeDefined();
    const survivor = emitter === api ? other : api;
    feed.api = survivor;
    await (emitter as AdminHarness).stop();
    await until(() => survivor.app.healthEmitter?.emitting === true, 20_000, 'the other process emitting');

    flaky.script = () => undefined;
    await until(() => healthOf(toA, id).some((h) => h.state === 'ok'), 40_000, 'the recovery event');
    // Twice the interval, four status reports: anything repeated would have come by now.
    await new Promise((r) => setTimeout(r, 4_000));

    const seen = healthOf(toA, id);
    const chain = seen.map((h) => `${h.state_before}>${h.state}`);
    expect(seen.filter((h) => h.state_before === 'ok'), chain.join(' ')).toHaveLength(1);
    expect(seen.filter((h) => h.state === 'ok'), chain.join(' ')).toHaveLength(1);
    expect(seen[0]?.state_before, chain.join(' ')).toBe('ok');
    expect(seen.at(-1)?.state, chain.join(' ')).toBe('ok');
    // Each event starts where the one before ended, through failing or parked.
    for (let i = 1; i < seen.length; i++) expect(seen[i]?.state_before, chain.join(' ')).toBe(seen[i - 1]?.state);
    for (const h of seen.slice(0, -1)) expect(['failing', 'parked']).toContain(h.state);
    expect(seen[0]).toMatchObject({ error_code: 'DESTINATION_SERVER_ERROR', destination: { id, uri: expect.stringMatching(new RegExp(`/event_destinations/${id}$`)) } });
    expect(seen[0]?.reason).toContain('500');
    expect(seen.at(-1)).toMatchObject({ reason: null, error_code: null });

    // The operator receives every account's; another account nothing of A's.
    expect(healthOf(toOperator, id).map((h) => `${h.state_before}>${h.state}@${h.changed_at}`)).toEqual(seen.map((h) => `${h.state_before}>${h.state}@${h.changed_at}`));
    expect(toB.delivered().filter((e) => e.event_type === 'event_destination_health.v0')).toEqual([]);

    // The loop: F's own events failed with it, were parked and re-driven once it recovered, and added no event.
    await until(() => healthOf(flaky, id).length === seen.length, 30_000, 'F receiving its own health events');
    expect(new Set(healthOf(flaky, id).map((h) => h.changed_at))).toEqual(new Set(seen.map((h) => h.changed_at)));
  });

  it('should send a destination flapping at most one event per interval, each from the state the last one gave', async () => {
    const interval = 6_000;
    const { api, other } = await fleet({ HEALTH_EVENT_INTERVAL_MS: String(interval) });
    const a = await account(api, 'flapper');
    const toA = await healthSubscriber(api, a, 'A notifications');
    const { id, flaky } = await fedDestination(api, a);
    await stateWhen(api, a, id, (s) => s === 'ok', 'F delivering');
    await until(() => [api, other].some((h) => h.app.healthEmitter?.emitting === true), 20_000, 'an emitter');
    await new Promise((r) => setTimeout(r, 1_500));

    // Flapping, as fast as the status follows: failing until the API shows it, then ok until it shows that.
    const started = Date.now();
    let flips = 0;
    while (Date.now() - started < 12_000) {
      // Each state held a little longer than the emitter's one-second look once the API shows it.
      flaky.script = () => ({ status: 500 });
      await stateWhen(api, a, id, (s) => s !== 'ok', 'F failing');
      await new Promise((r) => setTimeout(r, 1_200));
      flaky.script = () => undefined;
      await stateWhen(api, a, id, (s) => s === 'ok', 'F back');
      await new Promise((r) => setTimeout(r, 1_200));
      flips += 2;
    }
    const flapFor = Date.now() - started;
    // Ended ok: an event within the interval brings a subscriber there, if the last one said otherwise.
    // Without the bound each flip the emitter saw would be an event, a few seconds apart.
    await new Promise((r) => setTimeout(r, interval + 2_000));

    const seen = healthOf(toA, id);
    const at = seen.map((h) => Date.parse(h.changed_at));
    const told = JSON.stringify({ flips, flapFor, seen: seen.map((h) => [h.state_before, h.state, h.transitions, h.changed_at]) });
    expect(seen.length, told).toBeGreaterThanOrEqual(2);
    expect(seen[0]?.state_before, told).toBe('ok');
    expect(seen.length, told).toBeLessThanOrEqual(Math.ceil(flapFor / interval) + 2);
    for (let i = 1; i < at.length; i++) expect((at[i] as number) - (at[i - 1] as number), told).toBeGreaterThanOrEqual(interval);
    for (let i = 1; i < seen.length; i++) expect(seen[i]?.state_before, told).toBe(seen[i - 1]?.state);
    expect(seen.at(-1)?.state, told).toBe('ok');
  });
});
