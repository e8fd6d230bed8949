// A destination's status over two workers of one consumer group, read through an API process of its own:
// each worker reports what it sees on the status topic, and the API shows the worst recent state with the
// latest delivery and error of either. The two workers write a file destination under roots of their own;
// one root is broken (a plain file where the destination's directory should be), so that worker fails
// while the other delivers.
import '../parking/quiet-logs.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../../support/kafka.js';
import { startAdmin, type AdminHarness } from '../admin/admin-harness.js';
import { createDestination, produceTcp, statusWhen, subscribeAll } from './status-support.js';

const rootA = mkdtempSync(join(tmpdir(), 'edge-status-a-'));
const rootB = mkdtempSync(join(tmpdir(), 'edge-status-b-'));
const started: AdminHarness[] = [];
let traffic: NodeJS.Timeout | undefined;

afterAll(async () => {
  clearInterval(traffic);
  await Promise.all(started.map((h) => h.stop()));
  for (const root of [rootA, rootB]) rmSync(root, { recursive: true, force: true });
});

describe('destination status with two workers', () => {
  it('should show the worst recent state of the two, the latest delivery and error of either, and drop a stopped worker at once', async () => {
    const prefix = uniqueName('status-two');
    // Reports every second, so a worker's report expires 3 s after its last one.
    const common = { STATUS_REPORT_INTERVAL_MS: '1000', RETRY_MAX_ATTEMPTS: '2', RETRY_MAX_ELAPSED_MS: '500', PARKING_SCAN_INTERVAL_MS: '1000', DRAIN_TIMEOUT_MS: '2000' };
    const api = await startAdmin({ prefix, roles: 'api', env: common });
    started.push(api);
    const shared = { ...common, SECRET_KEY: api.env.SECRET_KEY as string };
    const workerA = await startAdmin({ prefix, roles: 'worker', env: { ...shared, FILE_DESTINATION_ROOT: rootA } });
    started.push(workerA);
    const workerB = await startAdmin({ prefix, roles: 'worker', env: { ...shared, FILE_DESTINATION_ROOT: rootB } });
    started.push(workerB);

    writeFileSync(join(rootB, 'tenant'), 'not a directory');
    const d = await createDestination(api, { target: { file: { path: 'tenant/events.ndjson' } } });
    await subscribeAll(api, [d.id]);
    // Records keyed by sequence number land on every partition, so both workers get some.
    let seq = 0;
    traffic = setInterval(() => {
      void produceTcp(api, seq, 12);
      seq += 12;
    }, 300);

    // Worker A delivers, worker B fails and parks: the destination shows B's trouble and A's last delivery.
    const mixed = await statusWhen(api, d.id, (s) => s.state === 'parked' && s.last_delivered_at !== null, 30_000, 'parked with a delivery');
    expect(mixed.status.last_error).toMatchObject({ code: 'WRITE_FAILED', message: 'Writing the file failed (ENOTDIR).' });

    // B's root fixed: both deliver, and the state shows it within 10 s.
    rmSync(join(rootB, 'tenant'));
    const fixedAt = Date.now();
    const ok = await statusWhen(api, d.id, (s) => s.state === 'ok', 10_000, 'ok once both deliver');
    expect(Date.parse(ok.status.last_error?.at ?? '')).toBeLessThan(Date.parse(ok.status.last_delivered_at ?? '') + 1);
    expect(Date.parse(ok.status.last_delivered_at ?? '')).toBeGreaterThan(fixedAt - 5_000);

    // Broken again, then B stops cleanly: its state no longer counts, its last error stays on record.
    rmSync(join(rootB, 'tenant'), { recursive: true, force: true });
    writeFileSync(join(rootB, 'tenant'), 'not a directory');
    await statusWhen(api, d.id, (s) => s.state !== 'ok', 15_000, 'B failing again');
    await workerB.stop();
    const after = await statusWhen(api, d.id, (s) => s.state === 'ok', 10_000, 'ok once B stopped');
    expect(after.status.last_error?.message).toBe('Writing the file failed (ENOTDIR).');
  });
});
