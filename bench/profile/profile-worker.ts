// Profiles the real ingest worker under load: `npx tsx bench/profile/profile-worker.ts [records] [subscriptions]`.
// A local broker, preloaded raw topics, one worker process run with --cpu-prof while it drains them; prints the top frames.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KafkaBenchSession } from '../e2e/session.js';
import { areasTable, framesTable, selfTimeByArea, topFrames } from './top-frames.js';

const [records = '200000', subscriptions = '100', which = 'worker'] = process.argv.slice(2);
const progress = (m: string): void => void process.stderr.write(`[profile] ${m}\n`);
const dir = mkdtempSync(join(tmpdir(), 'edge-worker-prof-'));
const session = await KafkaBenchSession.open('profile', progress);
try {
  await session.preload(Number(records));
  const nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
  const config =
    which === 'passthrough'
      ? session.passthrough('passthrough', fileURLToPath(new URL('../e2e/passthrough-platformatic.ts', import.meta.url)), { nodeArgs })
      : session.worker('worker', Number(subscriptions), { nodeArgs });
  const r = await session.drain(config, 600_000);
  process.stdout.write(`${which}: ${Math.round(r.recordsPerSecond)} records/s, ${r.eventsPerRecord.toFixed(2)} events/record, ${r.cores.toFixed(2)} cores, ${Math.round((r.cores / r.recordsPerSecond) * 1e9)} CPU ns/record\n\n`);
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error('the worker wrote no profile');
  process.stdout.write(`${areasTable(selfTimeByArea(join(dir, file)))}\n\n${framesTable(topFrames(join(dir, file), 30))}\n`);
} finally {
  await session.close();
  rmSync(dir, { recursive: true, force: true });
}
