// A process that promotes garbage: `node --max-semi-space-size=16 --import tsx test/support/heap-churn.ts fixed|moving`.
// It keeps LIVE_MIB of small linked objects, then allocates WARM_UP_MIB and CHURN_MIB more that each outlive
// two scavenges (a ring of RING_MIB), as a worker's in-flight records do, and prints {"major": N}: the full
// collections of the CHURN_MIB, under a fixed 30% heap growth or the growth that follows the full
// collections' time (src/config/heap-growth.ts).
// Small objects make marking cost what it costs a worker: full collections take 10-30% of the time at 30%
// growth and stay above 5% at 120%, so the moving growth rises to 120% and stays there.
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { gcKind, startHeapGrowth } from '../../src/config/heap-growth.js';

const LIVE_MIB = 20;
const RING_MIB = 80;
const CHURN_MIB = 3_000;
/** Promoted first and not counted: the moving growth has risen from its start by then. */
const WARM_UP_MIB = 500;
/** A chain of 16 objects of two fields, 40 bytes each (measured with process.memoryUsage().heapUsed). */
const CHAIN_BYTES = 640;
interface Link {
  readonly n: number;
  readonly next: Link | undefined;
}
const make = (seed: number): Link | undefined => {
  let link: Link | undefined;
  for (let i = 0; i < 16; i++) link = { n: seed + i, next: link };
  return link;
};
const chains = (mib: number): number => Math.round((mib * 2 ** 20) / CHAIN_BYTES);

const mode = process.argv[2];
if (mode !== 'fixed' && mode !== 'moving') throw new Error('usage: heap-churn.ts fixed|moving');
const growth = startHeapGrowth(mode === 'fixed' ? 30 : undefined);
let major = 0;
const observer = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (gcKind(e) === constants.NODE_PERFORMANCE_GC_MAJOR) major++;
});
observer.observe({ entryTypes: ['gc'] });

const live = Array.from({ length: chains(LIVE_MIB) }, (_, i) => make(i));
const ring = new Array<Link | undefined>(chains(RING_MIB));
const warmUp = chains(WARM_UP_MIB);
const total = warmUp + chains(CHURN_MIB);
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
