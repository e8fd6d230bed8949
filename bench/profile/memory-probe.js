// Loaded into a worker with `--import` by profile-memory.ts: on SIGUSR2 it writes the process's memory
// figures (process.memoryUsage, V8's heap and heap space statistics, /proc/self/status) as one JSON line
// to MEMORY_PROBE_FILE, and a heap snapshot next to it when MEMORY_PROBE_SNAPSHOTS=1.
import { appendFileSync, readFileSync } from 'node:fs';
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from 'node:v8';

const file = process.env.MEMORY_PROBE_FILE;
let taken = 0;

function procStatus() {
  const out = {};
  for (const line of readFileSync('/proc/self/status', 'utf8').split('\n')) {
    const m = /^(Vm\w+|Rss\w+):\s+(\d+) kB/.exec(line);
    if (m !== null) out[m[1]] = Number(m[2]) * 1024;
  }
  return out;
}

if (file !== undefined && file !== '') {
  process.on('SIGUSR2', () => {
    taken += 1;
    const record = { at: Date.now(), n: taken, memory: process.memoryUsage(), heap: getHeapStatistics(), spaces: getHeapSpaceStatistics(), status: procStatus() };
    if (process.env.MEMORY_PROBE_SNAPSHOTS === '1') record.snapshot = writeHeapSnapshot(`${file}.${taken}.heapsnapshot`);
    appendFileSync(file, `${JSON.stringify(record)}\n`);
  });
}
