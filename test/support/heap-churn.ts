// A process that promotes garbage: `node --max-semi-space-size=16 --import tsx test/support/heap-churn.ts fixed|moving`.
// It keeps LIVE_MIB of objects, then allocates WARM_UP_MIB and CHURN_MIB more that each outlive two scavenges (a ring of
// RING_MIB), as a worker's in-flight records do, and prints {"major": N}: the full collections of the CHURN_MIB,
// under a fixed 30% heap growth or the growth that follows the full collections' time (src/config/heap-growth.ts).
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { gcKind, startHeapGrowth } from '../../src/config/heap-growth.js';

const LIVE_MIB = 8;
const RING_MIB = 32;
const CHURN_MIB = 600;
/** Promoted first and not counted: the moving growth has risen from its start by then. */
const WARM_UP_MIB = 200;
/** An array of 62 small integers: 8 bytes each plus the array's own header, about 512 bytes. */
const OBJECT_BYTES = 512;
const make = (seed: number): number[] => Array.from({ length: 62 }, (_, i) => (seed + i) & 0xff);

const mode = process.argv[2];
if (mode !== 'fixed' && mode !== 'moving') throw new Error('usage: heap-churn.ts fixed|moving');
const growth = startHeapGrowth(mode === 'fixed' ? 30 : undefined);
let major = 0;
const observer = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (gcKind(e) === constants.NODE_PERFORMANCE_GC_MAJOR) major++;
});
observer.observe({ entryTypes: ['gc'] });

const live = Array.from({ length: (LIVE_MIB * 2 ** 20) / OBJECT_BYTES }, (_, i) => make(i));
const ring: number[][] = new Array<number[]>((RING_MIB * 2 ** 20) / OBJECT_BYTES);
const warmUp = (WARM_UP_MIB * 2 ** 20) / OBJECT_BYTES;
const total = warmUp + (CHURN_MIB * 2 ** 20) / OBJECT_BYTES;
for (let i = 0; i < total; i++) {
  if (i === warmUp) major = 0;
  ring[i % ring.length] = make(i);
  // Yield now and then, so the observer's callbacks run and the moving growth follows the collections.
  if (i % 4_096 === 0) await new Promise((resolve) => setImmediate(resolve));
}
await new Promise((resolve) => setTimeout(resolve, 50));
observer.disconnect();
growth.stop();
process.stdout.write(`${JSON.stringify({ major, percent: growth.percent(), kept: live.length + ring.length })}\n`);
