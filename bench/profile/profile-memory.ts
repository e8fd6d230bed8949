// Where a worker's memory goes at 10,000 subscriptions: `npx tsx bench/profile/profile-memory.ts [subscriptions] [soak seconds]`.
// A local broker, one worker loaded with the memory benchmark's subscriptions (memory-probe.js imported), its
// memory figures read idle and under 4,000 records/s; MEMORY_PROBE_SNAPSHOTS=1 also writes heap snapshots
// (summarize them with heap-summary.ts). The worker inherits the environment (KAFKA_CLIENT, HEAP_GROWTH_PERCENT).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { produceTraffic } from '../../src/traffic/kafka-traffic.js';
import { KafkaBenchSession } from '../e2e/session.js';

const [subscriptions = '10000', soakSeconds = '60'] = process.argv.slice(2);
const RATE = 4_000;
const progress = (m: string): void => void process.stderr.write(`[memory] ${m}\n`);
const dir = mkdtempSync(join(tmpdir(), 'edge-memory-'));
const file = join(dir, 'probe.jsonl');
const probe = fileURLToPath(new URL('./memory-probe.js', import.meta.url));
const MiB = (n: number): string => (n / 1048576).toFixed(1);

async function read(pid: number, label: string): Promise<void> {
  const before = (() => {
    try {
      return readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  })();
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 600; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const lines = readFileSync(file, { encoding: 'utf8', flag: 'a+' }).split('\n').filter(Boolean);
    if (lines.length > before) {
      const r = JSON.parse(lines[lines.length - 1] as string);
      const spaces = (r.spaces as { space_name: string; space_used_size: number; space_size: number }[]).map((s) => `${s.space_name} ${MiB(s.space_used_size)}/${MiB(s.space_size)}`).join(', ');
      process.stdout.write(
        `${label}: RSS ${MiB(r.status.VmRSS)} MiB (anon ${MiB(r.status.RssAnon)}, file ${MiB(r.status.RssFile)}), peak ${MiB(r.status.VmHWM)}; ` +
          `heap used ${MiB(r.memory.heapUsed)} of ${MiB(r.memory.heapTotal)}, external ${MiB(r.memory.external)}, array buffers ${MiB(r.memory.arrayBuffers)}, ` +
          `malloced ${MiB(r.heap.malloced_memory)} (peak ${MiB(r.heap.peak_malloced_memory)}), code+metadata ${MiB(r.heap.total_heap_code_and_metadata_size ?? 0)}\n  spaces used/size MiB: ${spaces}\n` +
          (r.snapshot !== undefined ? `  snapshot: ${r.snapshot}\n` : ''),
      );
      return;
    }
  }
  throw new Error('the worker wrote no memory figures');
}

const session = await KafkaBenchSession.open('profile-memory', progress);
try {
  const env = { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2', MEMORY_PROBE_FILE: file };
  const config = session.worker('worker', Number(subscriptions), { kind: 'tenant', destinations: 4, nodeArgs: ['--import', probe], env });
  await config.prepare();
  const [worker] = await config.start(session.groupOf(config));
  if (worker === undefined) throw new Error('no worker process');
  try {
    await new Promise((r) => setTimeout(r, 5_000));
    await read(worker.pid, `idle, ${subscriptions} subscriptions`);
    const seconds = Number(soakSeconds);
    const load = produceTraffic({ brokers: session.broker.brokers, topics: session.topics.traffic, source: session.source, count: RATE * seconds, rate: RATE, batchSize: 200, maxInFlight: 8, maxDurationMs: seconds * 1500 });
    for (let t = 1; t <= 3; t++) {
      await new Promise((r) => setTimeout(r, (seconds * 1000) / 3 - 1_000));
      await read(worker.pid, `under load, ${Math.round((t * seconds) / 3)} s`);
    }
    await load;
  } finally {
    await worker.stop();
  }
} finally {
  await session.close();
  process.stdout.write(`files in ${dir}\n`);
}
