// Delivery history memory at 10,000 destinations: the API's store (src/delivery/history/history-store.ts)
// filled with a day of minute points and 30 days of hour points from two workers' records, and a worker's
// open counters (history-recorder.ts), each measured in a fresh process as the heap's growth after a full
// collection, array buffers included.
import { cpus, loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Counters } from '../src/delivery/history/counters.js';
import type { HistoryRecord, SeriesPoint } from '../src/delivery/history/history-record.js';
import { HistoryRecorder } from '../src/delivery/history/history-recorder.js';
import { HistoryStore } from '../src/delivery/history/history-store.js';
import type { KafkaClient } from '../src/kafka/seam.js';
import { createRootLogger } from '../src/telemetry/logger.js';
import { runIsolated } from './lib/isolate.js';
import type { BenchContext, BenchReport, BenchRow } from './lib/types.js';

const DESTINATIONS = Number(process.env.BENCH_HISTORY_DESTINATIONS ?? 10_000);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The API process's memory target, the worker's in bench/results/memory.md. */
const TARGET_MB = 300;

interface CaseArgs {
  readonly destinations: number;
  /** One minute in this many has activity (1: every minute of the day, the most a series can hold). */
  readonly activeEvery: number;
}

interface CaseResult {
  readonly heapMB: number;
  readonly jsHeapMB: number;
  readonly logBytes: number;
  readonly series: number;
  readonly feedMs: number;
  readonly dayQueryMs: number;
  readonly monthQueryMs: number;
}

/** A full collection, twice with a pause between: V8 frees array buffers' backing stores on a thread of its own after a collection. */
async function gc(): Promise<void> {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as () => void;
  collect();
  await new Promise((r) => setTimeout(r, 200));
  collect();
}

/** The heap and the array buffers' backing stores (where point logs keep their bytes), after a full collection. */
function used(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

const id = (prefix: string, n: number): string => `${prefix}_01JD3${String(n).padStart(21, '0')}`;

/** A busy minute of one worker for one series: a few hundred events, their bytes, latencies over three buckets, sometimes a failure. */
function minuteOf(n: number, k: number): Counters {
  const c = new Counters();
  const events = 100 + ((n * 7 + k * 13) % 200);
  c.matched = events;
  c.delivered = events;
  c.deliveredBytes = events * (350 + (k % 50));
  c.latency[6] = Math.floor(events * 0.6);
  c.latency[7] = events - Math.floor(events * 0.6) - 2;
  c.latency[9] = 2;
  if ((n + k) % 97 === 0) c.fail('DESTINATION_TIMEOUT', 3);
  return c;
}

/** Child-process side: the store filled as two workers' records would fill it, then measured. */
export async function measureStore(args: CaseArgs): Promise<CaseResult> {
  const now = 1_000 * DAY;
  const store = new HistoryStore({ minuteMs: MINUTE, minuteRetentionMs: DAY, hourRetentionMs: 30 * DAY });
  await gc();
  const before = used();
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const series = (k: number): SeriesPoint[] =>
    Array.from({ length: args.destinations }, (_, n) => ({ destination: id('ed', n), subscription: id('esb', n), counters: minuteOf(n, k) })).filter(
      (_, n) => (n + k) % args.activeEvery === 0,
    );
  // 30 days of hours (each of a worker's hour records), then the last day's minutes; two workers each.
  const firstHour = Math.floor((now - 30 * DAY) / HOUR) + 1;
  for (let h = firstHour; h * HOUR < now; h++) {
    for (const worker of ['w1', 'w2']) {
      // An hour of the minutes above: their counts times the hour's active minutes.
      const points = series(h).map((p) => {
        const c = p.counters;
        const k = 60 / args.activeEvery;
        c.matched *= k;
        c.delivered *= k;
        c.deliveredBytes *= k;
        c.latency.forEach((n, i) => (c.latency[i] = n * k));
        return p;
      });
      store.apply({ worker, start: h * HOUR, lengthMs: HOUR, points } satisfies HistoryRecord, now);
    }
  }
  const firstMinute = Math.floor((now - DAY) / MINUTE) + 1;
  for (let m = firstMinute; m * MINUTE < now; m++) {
    for (const worker of ['w1', 'w2']) store.apply({ worker, start: m * MINUTE, lengthMs: MINUTE, points: series(m) }, now);
  }
  const feedMs = performance.now() - started;
  store.prune(now, () => true);
  await gc();
  const heapMB = (used() - before) / 2 ** 20;
  const jsHeapMB = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  const t0 = performance.now();
  const day = store.query(id('ed', 0), undefined, now - DAY, now, 'minute', now);
  const t1 = performance.now();
  const month = store.query(id('ed', 0), undefined, now - 30 * DAY, now, 'hour', now);
  const t2 = performance.now();
  if (day.length === 0 || month.length === 0) throw new Error('the store answered no points');
  const { series: count, bytes } = store.size();
  return { heapMB, jsHeapMB, logBytes: bytes, series: count, feedMs, dayQueryMs: t1 - t0, monthQueryMs: t2 - t1 };
}

/** Child-process side: a worker's open minute and hour with every destination active. */
export async function measureWorker(args: { destinations: number }): Promise<{ heapMB: number }> {
  const kafka = { idempotentProducer: () => ({ connect: async () => undefined, close: async () => undefined, send: async () => undefined }) } as unknown as KafkaClient;
  let t = 1_000 * DAY + 30 * MINUTE;
  const clock = { now: () => t, sleep: async () => undefined };
  const recorder = new HistoryRecorder({ kafka, topics: { minutes: 'm', hours: 'h' }, workerId: 'w', minuteMs: MINUTE, clock, logger: createRootLogger({ write: () => undefined }, 'info') });
  await gc();
  const before = used();
  const tallies = Array.from({ length: args.destinations }, (_, n) => recorder.forDestination(id('ed', n)));
  const item = (n: number) => ({ eventId: `ev_01JD3${'0'.repeat(21)}`, payload: Buffer.alloc(0), size: 400, subscriptionId: id('esb', n), source: { topic: 't', partition: 0, offset: n, reading: 1 } });
  // The previous minute closed into the open hour, and the open minute counting.
  tallies.forEach((tally, n) => tally.queued(item(n)));
  t += MINUTE;
  await recorder.publish();
  tallies.forEach((tally, n) => {
    const i = item(n);
    tally.queued(i);
    tally.settled(i, 'acked');
  });
  await gc();
  return { heapMB: (used() - before) / 2 ** 20 };
}

/** Why the busiest case can pass the target, from the point logs' bytes this benchmark reports. */
const WHY_MISSED =
  "A busy minute of a series costs about 10.7 bytes in its point log and a busy hour about 14.2 (varints of counts in the hundreds, and of hours' counts in the tens of thousands: src/delivery/history/point-log.ts), about 25 KB a series at full retention, and 10,000 series busy every minute of the day and every hour of the month are 14.4 million minute and 7.2 million hour points. What would close it: counts written as differences from the point before (about 3 bytes less a point on this benchmark's counts), or the API role in processes of its own (ROLES=api), beside no worker.";

const round = (v: number, digits = 0): number => Number(v.toFixed(digits));

export default async function run(ctx: BenchContext): Promise<BenchReport> {
  const loadBefore = loadavg()[0] ?? 0;
  const rows: BenchRow[] = [];
  let busyMB = 0;
  for (const activeEvery of [1, 10]) {
    ctx.progress(`the API's store, ${DESTINATIONS} destinations, one minute in ${activeEvery} active`);
    const r = await runIsolated<CaseResult>(import.meta.url, 'measureStore', { destinations: DESTINATIONS, activeEvery } satisfies CaseArgs);
    if (activeEvery === 1) busyMB = r.heapMB;
    rows.push({
      side: 'API store',
      destinations: DESTINATIONS,
      'active minutes': activeEvery === 1 ? 'every minute' : `1 in ${activeEvery}`,
      'heap MiB': round(r.heapMB, 1),
      'of it JS objects MiB': round(r.jsHeapMB, 1),
      'KiB per destination': round((r.heapMB * 1024) / DESTINATIONS, 1),
      'point log bytes per destination': round(r.logBytes / r.series),
      'feed s': round(r.feedMs / 1000, 1),
      '24 h minute query ms': round(r.dayQueryMs, 2),
      '30 d hour query ms': round(r.monthQueryMs, 2),
    });
  }
  ctx.progress(`a worker's open minute and hour, ${DESTINATIONS} destinations`);
  const w = await runIsolated<{ heapMB: number }>(import.meta.url, 'measureWorker', { destinations: DESTINATIONS });
  rows.push({ side: 'worker', destinations: DESTINATIONS, 'active minutes': 'the open minute and hour', 'heap MiB': round(w.heapMB, 1), 'KiB per destination': round((w.heapMB * 1024) / DESTINATIONS, 2) });
  return {
    title: `Delivery history memory at ${DESTINATIONS.toLocaleString('en-US')} destinations`,
    rows,
    settings: { destinations: DESTINATIONS, minuteRetention: '24 h', hourRetention: '30 d', workers: 2 },
    notes: [
      `API store: ${DESTINATIONS.toLocaleString('en-US')} destinations with one subscription each, filled from two workers' records: 30 days of hour records, then 24 hours of minute records (1,440 minutes, 720 hours a series), each busy minute 100 to 300 events over three latency buckets, one in 97 with failures. The growth of the heap and of its array buffers (the point logs' bytes) after a full collection, in a fresh process (BENCH_HISTORY_DESTINATIONS).`,
      '"every minute" is the most a series can hold: its retention full of points. A minute without activity costs nothing, so "1 in 10" is a destination delivering in one minute of ten.',
      "Worker: every destination's counters in the open minute and the open hour, which is all a worker holds (src/delivery/history/README.md \"Memory\").",
      `Machine: ${cpus().length} CPUs, 1-minute load average ${round(loadBefore, 1)} at the start and ${round(loadavg()[0] ?? 0, 1)} at the end.`,
    ],
    targets: [
      {
        name: `delivery history in the API process, ${DESTINATIONS.toLocaleString('en-US')} destinations each busy every minute of the day`,
        target: `<= ${TARGET_MB} MiB`,
        figure: `${round(busyMB)} MiB`,
        met: busyMB <= TARGET_MB,
        ...(busyMB > TARGET_MB && { why: WHY_MISSED }),
      },
    ],
  };
}
