// The safety net under the offset tracker, through the real service on the real broker: a record whose
// delivery does not settle for longer than STALLED_RECORD_AFTER_MS shows in its destination's status
// (`stalled_since`) and in /metrics (the oldest unsettled record's age per partition), and both clear once
// it settles (issue 22, finding 1: a batch never waits forever without a trace).
import '../parking/quiet-logs.js';
import { afterEach, expect, it } from 'vitest';
import { startAdmin, type AdminHarness } from '../admin/admin-harness.js';
import { HttpReceiver } from '../delivery/http-receiver.js';
import { createDestination, produceTcp, statusWhen, subscribeAll } from './status-support.js';

const started: AdminHarness[] = [];
const receivers: HttpReceiver[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((h) => h.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

/** The gauge's value for the harness's tcp topic, partition 0, as /metrics shows it. */
async function unsettledAge(api: AdminHarness): Promise<number | undefined> {
  const text = await (await fetch(`${api.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('edge_oldest_unsettled_record_age_seconds{') && l.includes(`topic="${api.prefix}.tcp"`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

it('should show a record waiting past the bound in its destination status and in /metrics, and clear both once it is delivered', async () => {
  // The retry budget outlasts the test: only the destination coming back settles the record.
  const api = await startAdmin({ roles: 'api,worker', env: { STALLED_RECORD_AFTER_MS: '2000', RETRY_MAX_ELAPSED_MS: '120000', DRAIN_TIMEOUT_MS: '1000' } });
  started.push(api);
  const receiver = new HttpReceiver();
  receivers.push(receiver);
  await receiver.start();
  await receiver.stop();
  const d = await createDestination(api, { description: 'down for a while', target: { http: { url: receiver.url } } });
  await subscribeAll(api, [d.id]);
  const before = Date.now();
  await produceTcp(api, 0, 1);

  const { status } = await statusWhen(api, d.id, (s) => s.stalled_since !== null, 20_000, 'stalled_since');
  expect(status.state).toBe('failing');
  expect(Date.parse(status.stalled_since ?? '')).toBeGreaterThanOrEqual(before - 1_000);
  expect(await unsettledAge(api)).toBeGreaterThanOrEqual(2);

  await receiver.start();
  await statusWhen(api, d.id, (s) => s.state === 'ok' && s.stalled_since === null, 20_000, 'ok with nothing stalled');
  expect(await unsettledAge(api)).toBe(0);
  expect(receiver.requests.length).toBeGreaterThan(0);
});
