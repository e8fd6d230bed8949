// End to end through a real local broker: raw topics -> ingest worker -> kafka destinations, against a kafkajs passthrough.
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { LatencyResult } from './e2e/latency.js';
import { KafkaBenchSession, type Configuration, type DrainReport } from './e2e/session.js';
import type { BenchContext, BenchReport, BenchRow } from './lib/types.js';

const COUNT = Number(process.env.BENCH_E2E_COUNT ?? 1_000_000);
const SUBSCRIPTIONS = (process.env.BENCH_E2E_SUBSCRIPTIONS ?? '100').split(',').map(Number);
const LATENCY_SECONDS = Number(process.env.BENCH_E2E_LATENCY_SECONDS ?? 15);
/** The latency runs send at this share of the slowest configuration's drain rate, so every configuration keeps up. */
const LATENCY_LOAD = 0.5;
/** Subscriptions of the extra worker run with V8's own heap sizing. */
const HEAP_VARIANT_SUBSCRIPTIONS = 100;
const PASSTHROUGH = fileURLToPath(new URL('./e2e/passthrough-kafkajs.ts', import.meta.url));

const round = (n: number, d = 0): number => Math.round(n * 10 ** d) / 10 ** d;

export default async function run(ctx: BenchContext): Promise<BenchReport> {
  const started = Date.now();
  const loadBefore = loadavg()[0] ?? 0;
  // A drain may take a while on a busy 2-core machine; at 2,000 records/s it is given up.
  const drainTimeoutMs = Math.max(120_000, (COUNT / 2_000) * 1000);
  const session = await KafkaBenchSession.open('e2e', ctx.progress);
  try {
    await session.preload(COUNT);
    const workers = SUBSCRIPTIONS.map((n) => session.worker(`worker-${n}`, n));
    // The worker as it runs by default caps its old generation's growth (HEAP_GROWTH_PERCENT=30, for
    // the memory target); the same worker with V8's own heap sizing shows what that costs here.
    const v8Heap = session.worker(`worker-${HEAP_VARIANT_SUBSCRIPTIONS}-v8-heap`, HEAP_VARIANT_SUBSCRIPTIONS, { env: { HEAP_GROWTH_PERCENT: '0' } });
    const configs: Configuration[] = [session.passthrough('passthrough', PASSTHROUGH), ...workers, v8Heap];
    const drains = new Map<Configuration, DrainReport>();
    for (const c of configs) drains.set(c, await session.drain(c, drainTimeoutMs));
    const rate = LATENCY_LOAD * Math.min(...[...drains.values()].map((d) => d.recordsPerSecond));
    const latencies = new Map<Configuration, LatencyResult>();
    for (const c of configs) latencies.set(c, await session.latency(c, rate, LATENCY_SECONDS, drainTimeoutMs));

    const base = drains.get(configs[0] as Configuration) as DrainReport;
    const rows: BenchRow[] = configs.map((c) => {
      const d = drains.get(c) as DrainReport;
      const l = latencies.get(c) as LatencyResult;
      return {
        configuration:
          c === v8Heap
            ? `worker, ${HEAP_VARIANT_SUBSCRIPTIONS} subscriptions, HEAP_GROWTH_PERCENT=0 (V8's heap sizing)`
            : c.name === 'passthrough'
              ? 'passthrough (kafkajs, baseline)'
              : `worker, ${c.name.slice(7)} subscriptions`,
        'records/s': round(d.recordsPerSecond),
        'x passthrough': round(d.recordsPerSecond / base.recordsPerSecond, 2),
        'events/s': round(d.eventsPerSecond),
        'events/record': round(d.eventsPerRecord, 2),
        'CPU cores': round(d.cores, 2),
        'peak RSS MiB': round(d.peakRssMiB),
        'latency p50 ms': round(l.p50),
        'p90 ms': round(l.p90),
        'p99 ms': round(l.p99),
        'max ms': round(l.max),
        'latency events': l.events,
      };
    });
    const notes: string[] = [];
    for (const n of SUBSCRIPTIONS) {
      const c = configs.find((x) => x.name === `worker-${n}`) as Configuration;
      const ratio = (drains.get(c) as DrainReport).recordsPerSecond / base.recordsPerSecond;
      const target = n === 100 ? ` (target >= 0.8: ${ratio >= 0.8 ? 'met' : 'missed'})` : '';
      notes.push(`Worker with ${n} subscriptions: ${round(ratio, 2)}x the passthrough rate${target}; ${c.workload?.distinctFilters ?? '?'} distinct filters, ${c.workload?.distinctFieldSets ?? '?'} distinct field sets, about ${round(c.workload?.expectedMatchesPerRecord ?? 0, 2)} expected matches per record.`);
    }
    const v8Ratio = (drains.get(v8Heap) as DrainReport).recordsPerSecond / base.recordsPerSecond;
    notes.push(
      `The same worker with HEAP_GROWTH_PERCENT=0 (V8 sizes its heap itself; the default of 30 keeps the memory target, see memory.md): ${round(v8Ratio, 2)}x the passthrough rate, peak RSS ${round((drains.get(v8Heap) as DrainReport).peakRssMiB)} MiB.`,
      `Throughput: ${COUNT.toLocaleString('en-US')} generated Avro records (80% http_request_complete.v0) were preloaded into the two raw topics (6 partitions each); each configuration then started in its own consumer group and read them all from the beginning. records/s counts the records committed between the first commit seen and the last (start-up and the group join excluded), polling the group's offsets every 250 ms. Events/s counts what reached the output topics over the same records.`,
      `The worker is the real service (src/main.ts, ROLES=worker) in its own process, its subscriptions written to the config log and delivering to one kafka destination (acks=all, idempotent, the runner's default batching). The passthrough (bench/e2e/passthrough-kafkajs.ts) uses the same client with the worker's consumer settings and the kafka writer's producer settings, and produces every record unchanged to one topic.`,
      `Latency: after the drains, each configuration resumed its group and caught up, then ${round(LATENCY_SECONDS)} s of records were sent at ${round(rate).toLocaleString('en-US')} records/s (${LATENCY_LOAD * 100}% of the slowest drain rate). Latency = the output record's broker append time (LogAppendTime) minus the raw record's create time, same clock.`,
      `CPU cores: user+system CPU time of the measured process(es) over the drain window divided by its length (from /proc). Peak RSS: VmHWM of the process.`,
      `Broker: Kafka ${session.broker.version}, single node on 127.0.0.1, extra JVM flags "${session.broker.jvmOpts}" (full JIT instead of the test broker's C1-only start-up setting). Producer, broker, worker and passthrough all share the same ${cpus().length} cores, so absolute rates are low; the ratio is the result. 1-minute load average ${round(loadBefore, 1)} at the start, ${round(loadavg()[0] ?? 0, 1)} at the end.`,
      `This run took ${round((Date.now() - started) / 1000)} s in all (BENCH_E2E_COUNT=${COUNT}).`,
    );
    return {
      title: 'End to end through Kafka: raw topics to kafka destinations',
      usesKafka: true,
      settings: { records: COUNT, subscriptions: SUBSCRIPTIONS.join(' '), latencySeconds: LATENCY_SECONDS, latencyRate: round(rate), brokerJvmOpts: session.broker.jvmOpts },
      rows,
      notes,
      charts: [
        {
          kind: 'bar',
          id: 'throughput',
          title: 'End to end: records/s drained from the raw topics',
          yLabel: 'records per second',
          categories: rows.map((r) => String(r.configuration)),
          series: [{ name: 'records/s', points: rows.map((r, i) => [i, Number(r['records/s'])]) }],
        },
        {
          kind: 'bar',
          id: 'latency',
          title: `End to end latency, produce to delivered, at ${round(rate).toLocaleString('en-US')} records/s`,
          yLabel: 'milliseconds',
          categories: rows.map((r) => String(r.configuration)),
          series: (['p50', 'p90', 'p99'] as const).map((p) => ({ name: p, points: configs.map((c, i) => [i, round((latencies.get(c) as LatencyResult)[p])] as [number, number]) })),
        },
      ],
    };
  } finally {
    await session.close();
  }
}
