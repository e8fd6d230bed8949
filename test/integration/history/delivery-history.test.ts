// The delivery history through the real admin API of a real service (API and worker in one process, the
// suite's broker, a real HTTP receiver on 127.0.0.1): the runner counts, the worker publishes each closed
// minute on the history topic, the API reads it back. A "minute" is 1 s here (HISTORY_MINUTE_MS), so a
// failure window of a few seconds spans several points and the test takes seconds, not minutes.
import '../parking/quiet-logs.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startAdmin, type AdminHarness } from '../admin/admin-harness.js';
import { HttpReceiver } from '../delivery/http-receiver.js';
import { until } from '../parking/parking-harness.js';
import { createDestination, produceTcp } from '../status/status-support.js';

const MINUTE_MS = 1_000;
const started: AdminHarness[] = [];
const receivers: HttpReceiver[] = [];

interface Point {
  start: string;
  matched: number;
  delivered: number;
  delivered_bytes: number;
  failed_attempts: number;
  failures: { code: string; count: number }[];
  parked: number;
  redriven: number;
  dead_lettered: number;
  latency_ms: { p50: number; p99: number } | null;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((h) => h.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

const sum = (points: readonly Point[], f: (p: Point) => number): number => points.reduce((n, p) => n + f(p), 0);
const at = (p: Point): number => Date.parse(p.start);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('delivery history', () => {
  it("should show a failure window's failed attempts by code in its own minutes, and the events delivered before and after it", async () => {
    const api = await startAdmin({ roles: 'api,worker', env: { HISTORY_MINUTE_MS: String(MINUTE_MS), DRAIN_TIMEOUT_MS: '1000' } });
    started.push(api);
    const receiver = new HttpReceiver();
    receivers.push(receiver);
    let failing = false;
    receiver.script = () => (failing ? { status: 500 } : undefined);
    await receiver.start();
    const d = await createDestination(api, { description: 'fails for a window', target: { http: { url: receiver.url } } });
    const sub = await api.call('POST', '/event_subscriptions', {
      body: { description: 'every tcp record', destination_ids: [d.id], sources: [{ type: 'tcp_connection_closed.v0', fields: ['conn.bytes_in'] }] },
    });
    expect(sub.status, sub.text).toBe(201);
    const began = Date.now();

    // Before: 10 events delivered at once.
    await produceTcp(api, 0, 10);
    await until(() => receiver.delivered().length >= 10, 20_000, 'the first 10 events');
    await sleep(MINUTE_MS);

    // The window: the receiver answers 500 for 3 s, while 10 more events are tried again and again.
    failing = true;
    const windowFrom = Date.now();
    await produceTcp(api, 10, 10);
    await sleep(3_000);
    failing = false;
    const windowTo = Date.now();
    await until(() => receiver.delivered().length >= 20, 20_000, 'the 10 events of the window, once it ended');
    // A quiet stretch: nothing happens, so its minutes are gaps.
    const quietFrom = Date.now();
    await sleep(2.5 * MINUTE_MS);
    const quietTo = Date.now();

    // After: 10 more.
    await produceTcp(api, 20, 10);
    await until(() => receiver.delivered().length >= 30, 20_000, 'the last 10 events');
    const range = `from=${new Date(began - 2 * MINUTE_MS).toISOString()}&to=${new Date(Date.now() + 2 * MINUTE_MS).toISOString()}&resolution=minute`;
    let points: Point[] = [];
    let answer: Record<string, unknown> = {};
    await until(
      async () => {
        const r = await api.call('GET', `/event_destinations/${d.id}/history?${range}`);
        expect(r.status, r.text).toBe(200);
        answer = r.json;
        points = r.json.points as Point[];
        return sum(points, (p) => p.delivered) >= 30;
      },
      15_000,
      'the history to count 30 delivered events',
    );
    expect(answer).toMatchObject({ destination: { id: d.id, uri: d.uri }, resolution: 'minute', resolution_ms: MINUTE_MS });
    expect(sum(points, (p) => p.delivered)).toBe(30);
    expect(sum(points, (p) => p.matched)).toBe(30);
    expect(sum(points, (p) => p.delivered_bytes)).toBe(receiver.delivered().reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0));
    expect(sum(points, (p) => p.parked + p.redriven + p.dead_lettered)).toBe(0);
    // Points are aligned to the resolution, in time order, and none is a zero standing for a gap.
    for (const p of points) {
      expect(at(p) % MINUTE_MS).toBe(0);
      expect(p.matched + p.delivered + p.failed_attempts).toBeGreaterThan(0);
    }
    expect(points.map(at)).toEqual(points.map(at).sort((x, y) => x - y));

    // Every failure lies in the window's minutes, all of them the receiver's 500: each of the 10 events failed at least once.
    const failed = points.filter((p) => p.failed_attempts > 0);
    expect(failed.length).toBeGreaterThan(0);
    for (const p of failed) {
      expect(at(p)).toBeGreaterThanOrEqual(Math.floor(windowFrom / MINUTE_MS) * MINUTE_MS);
      expect(at(p)).toBeLessThan(windowTo);
      expect(p.failures.map((f) => f.code)).toEqual(['DESTINATION_SERVER_ERROR']);
    }
    expect(sum(failed, (p) => p.failures[0]?.count ?? 0)).toBeGreaterThanOrEqual(10);
    // Delivered: 10 in the minutes before the window, none inside it, 20 from its end on.
    const windowStart = Math.floor(windowFrom / MINUTE_MS) * MINUTE_MS;
    const windowEnd = Math.floor(windowTo / MINUTE_MS) * MINUTE_MS;
    expect(sum(points.filter((p) => at(p) < windowStart), (p) => p.delivered)).toBe(10);
    expect(sum(points.filter((p) => at(p) >= windowStart + MINUTE_MS && at(p) < windowEnd), (p) => p.delivered)).toBe(0);
    expect(sum(points.filter((p) => at(p) >= windowEnd), (p) => p.delivered)).toBe(20);
    // The window's events waited at least its 3 s from their records' time: a p99 in a bucket of 5 s or more.
    const firstAfter = points.find((p) => at(p) >= windowEnd && p.delivered > 0);
    expect(firstAfter?.latency_ms?.p99).toBeGreaterThanOrEqual(5_000);
    // The quiet stretch has no point at all.
    expect(points.filter((p) => at(p) >= Math.ceil(quietFrom / MINUTE_MS) * MINUTE_MS && at(p) + MINUTE_MS <= quietTo)).toEqual([]);

    // The subscription's history holds the same series for its destination.
    const bySub = await api.call('GET', `/event_subscriptions/${sub.json.id}/history?${range}`);
    expect(bySub.status, bySub.text).toBe(200);
    expect(bySub.json.destinations).toEqual([{ destination: { id: d.id, uri: d.uri }, points }]);
  });

  it('should refuse a range that is not one, with its code, and answer 404 for a destination that does not exist', async () => {
    const api = await startAdmin({ env: { DRAIN_TIMEOUT_MS: '1000' } });
    started.push(api);
    const d = await createDestination(api, { target: { file: { path: 'history/none.ndjson' } } });
    const backwards = await api.call('GET', `/event_destinations/${d.id}/history?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z`);
    expect([backwards.status, backwards.json.error_code, backwards.json.details.field]).toEqual([400, 'invalid_history_range', 'from']);
    const tooLong = await api.call('GET', `/event_destinations/${d.id}/history?from=2026-01-01T00:00:00Z&to=2026-01-03T00:00:00Z&resolution=minute`);
    expect([tooLong.status, tooLong.json.error_code, tooLong.json.details.field]).toEqual([400, 'invalid_history_range', 'resolution']);
    const notATime = await api.call('GET', `/event_destinations/${d.id}/history?from=yesterday`);
    expect([notATime.status, notATime.json.error_code, notATime.json.details.field]).toEqual([400, 'invalid_parameter', 'from']);
    const badResolution = await api.call('GET', `/event_destinations/${d.id}/history?resolution=second`);
    expect([badResolution.status, badResolution.json.error_code]).toEqual([400, 'invalid_parameter']);
    const missing = await api.call('GET', '/event_destinations/ed_01JD3000000000000000000009/history');
    expect([missing.status, missing.json.error_code]).toEqual([404, 'not_found']);
    // A quiet destination's default range: the last hour, in minutes, with no points rather than zeros.
    const quiet = await api.call('GET', `/event_destinations/${d.id}/history`);
    expect(quiet.status, quiet.text).toBe(200);
    expect(quiet.json).toMatchObject({ resolution: 'minute', resolution_ms: 60_000, points: [] });
    expect(Date.parse(quiet.json.to) - Date.parse(quiet.json.from)).toBe(61 * 60_000);
  });
});
