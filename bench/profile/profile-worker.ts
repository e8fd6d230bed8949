// Profiles the real ingest worker (or a copy) under load:
// `npx tsx bench/profile/profile-worker.ts [records] [subscriptions] [worker|fifth|<bench/e2e passthrough script name>] [avro|json] [one-percent|fifth-percent]`.
// A local broker, preloaded raw topics, one process run with --cpu-prof while it drains them; prints the
// top frames and where the time went along the Kafka client's path (client-path.ts).
// `fifth` is the worker at the 20% workload (as `worker` with `fifth-percent`); e.g. `passthrough-platformatic`
// is that client's copy. PROFILE_KEEP=<file> keeps the .cpuprofile. PROFILE_ALLOCATIONS=<file> samples the
// worker's allocations instead (allocation-probe.js) and prints the functions that allocated most.
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WireForm } from '../../src/records/record-types.js';
import { serviceNodeFlags } from '../e2e/child.js';
import { KafkaBenchSession } from '../e2e/session.js';
import type { SubscriptionKind } from '../workload/subscriptions.js';
import { allocationSites, allocationTable } from './allocation-sites.js';
import { CLIENT_PATH } from './client-path.js';
import { areasTable, framesTable, partShares, partsTable, selfTimeByArea, topFrames } from './top-frames.js';

const [records = '200000', subscriptions = '100', which = 'worker', form = 'avro', kind = 'one-percent'] = process.argv.slice(2);
const progress = (m: string): void => void process.stderr.write(`[profile] ${m}\n`);
const dir = mkdtempSync(join(tmpdir(), 'edge-worker-prof-'));
const session = await KafkaBenchSession.open('profile', progress);
try {
  await session.preload(Number(records), form as WireForm);
  // The worker runs with `npm start`'s Node flags (its young generation's size moves the garbage collector's share).
  const allocations = process.env.PROFILE_ALLOCATIONS;
  const probe = fileURLToPath(new URL('./allocation-probe.js', import.meta.url));
  const nodeArgs = [...serviceNodeFlags(), ...(allocations === undefined ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : ['--import', probe])];
  const config =
    which === 'worker' || which === 'fifth'
      ? session.worker('worker', Number(subscriptions), { nodeArgs, kind: which === 'fifth' ? 'fifth-percent' : (kind as SubscriptionKind), input: form as WireForm })
      : session.passthrough(which, fileURLToPath(new URL(`../e2e/${which}.ts`, import.meta.url)), { nodeArgs, input: form as WireForm });
  const r = await session.drain(config, 600_000);
  process.stdout.write(`${which}: ${Math.round(r.recordsPerSecond)} records/s, ${r.eventsPerRecord.toFixed(2)} events/record, ${r.cores.toFixed(2)} cores, ${Math.round((r.cores / r.recordsPerSecond) * 1e9)} CPU ns/record\n\n`);
  if (allocations !== undefined) {
    const { bySite, byCaller, total } = allocationSites(allocations);
    const perRecord = { count: Number(records), unit: 'record' };
    const gc = readFileSync(`${allocations}.gc.json`, 'utf8');
    process.stdout.write(`${(total / Number(records)).toFixed(0)} bytes allocated a record (sampled, start-up included); garbage collections by kind: ${gc}\n\n${allocationTable(bySite, total, 30, perRecord)}\n\n${allocationTable(byCaller, total, 30, perRecord)}\n`);
  } else {
    const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error('the worker wrote no profile');
    if (process.env.PROFILE_KEEP !== undefined) copyFileSync(join(dir, file), process.env.PROFILE_KEEP);
    const profile = join(dir, file);
    process.stdout.write(`${partsTable(partShares(profile, CLIENT_PATH))}\n\n${areasTable(selfTimeByArea(profile))}\n\n${framesTable(topFrames(profile, 30))}\n`);
  }
} finally {
  await session.close();
  rmSync(dir, { recursive: true, force: true });
}
