// kafkajs against @platformatic/kafka 1.x on the passthrough baseline: consume the raw topics and produce every record, same settings.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { compare } from './e2e/compare.js';
import { KafkaBenchSession } from './e2e/session.js';
import type { BenchContext, BenchReport, BenchRow } from './lib/types.js';

const COUNT = Number(process.env.BENCH_KAFKA_CLIENT_COUNT ?? 300_000);
const ROUNDS = Number(process.env.BENCH_KAFKA_CLIENT_ROUNDS ?? 2);
const LATENCY_SECONDS = Number(process.env.BENCH_KAFKA_CLIENT_LATENCY_SECONDS ?? 15);
const script = (name: string): string => fileURLToPath(new URL(`./e2e/${name}`, import.meta.url));
const round = (n: number, d = 0): number => Math.round(n * 10 ** d) / 10 ** d;
/** The installed version of a package (not every package exports its package.json). */
const versionOf = (name: string): string =>
  (JSON.parse(readFileSync(new URL(`../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as { version: string }).version;

export default async function run(ctx: BenchContext): Promise<BenchReport> {
  const loadBefore = loadavg()[0] ?? 0;
  const platformaticVersion = versionOf('@platformatic/kafka');
  const kafkajsVersion = versionOf('kafkajs');
  const session = await KafkaBenchSession.open('kafka-client', ctx.progress);
  try {
    await session.preload(COUNT);
    const results = await compare(
      session,
      [
        { name: `kafkajs ${kafkajsVersion}`, make: (r) => session.passthrough(`kafkajs-${r}`, script('passthrough-kafkajs.ts')) },
        { name: `@platformatic/kafka ${platformaticVersion}`, make: (r) => session.passthrough(`platformatic-${r}`, script('passthrough-platformatic.ts')) },
      ],
      { rounds: ROUNDS, drainTimeoutMs: Math.max(120_000, (COUNT / 2_000) * 1000), latencySeconds: LATENCY_SECONDS },
    );
    const [kjs, plat] = results;
    if (kjs === undefined || plat === undefined) throw new Error('both clients must have run');
    const rows: BenchRow[] = results.map((r) => ({
      client: r.name,
      'records/s': round(r.best.recordsPerSecond),
      'x kafkajs': round(r.best.recordsPerSecond / kjs.best.recordsPerSecond, 2),
      'records/s per round': r.rounds.map((d) => round(d.recordsPerSecond)).join(' / '),
      'CPU cores': round(r.best.cores, 2),
      'CPU µs/record': round((r.best.cores / r.best.recordsPerSecond) * 1e6, 1),
      'peak RSS MiB': round(r.best.peakRssMiB),
      'latency p50 ms': round(r.latency?.p50 ?? Number.NaN),
      'p99 ms': round(r.latency?.p99 ?? Number.NaN),
    }));
    const speedup = plat.best.recordsPerSecond / kjs.best.recordsPerSecond;
    const cpuRatio = kjs.best.cores / kjs.best.recordsPerSecond / (plat.best.cores / plat.best.recordsPerSecond);
    const notes = [
      `@platformatic/kafka ran the passthrough at ${round(speedup, 2)}x the kafkajs rate and used ${round(1 / cpuRatio, 2)}x its CPU per record. ` +
        (speedup >= 1.3
          ? 'That is at least 1.3x faster end to end: see the closing note of bench/results/PROFILE.md for what switching would take.'
          : 'That is under the 1.3x bar the issue sets for recommending a switch.'),
      `Method: ${COUNT.toLocaleString('en-US')} generated Avro records preloaded into two raw topics of 6 partitions; each client, in its own process and consumer group, consumes them all and produces each record unchanged (idempotent producer, acks=all, writes of at most 1000 records, up to 4 waiting and one on the wire at a time (kafkajs: maxInFlightRequests 1; the other client: a queue, since its idempotent producer refuses overlapping writes); commits behind each write). ${ROUNDS} alternating rounds, the best round of each is shown. Latency: ${LATENCY_SECONDS} s of traffic at half the slower rate, broker append time of the copy minus create time of the raw record.`,
      `Scripts: bench/e2e/passthrough-kafkajs.ts and bench/e2e/passthrough-platformatic.ts. Kafka ${session.broker.version} on 127.0.0.1 with "${session.broker.jvmOpts}" (@platformatic/kafka 1.x states support for Kafka 3.5 to 4.1; it ran against ${session.broker.version} here). ${cpus().length} cores shared; load average ${round(loadBefore, 1)} at the start, ${round(loadavg()[0] ?? 0, 1)} at the end.`,
    ];
    return {
      title: 'Kafka client: kafkajs against @platformatic/kafka on the passthrough baseline',
      usesKafka: true,
      settings: { records: COUNT, rounds: ROUNDS, latencySeconds: LATENCY_SECONDS, kafkajs: kafkajsVersion, platformaticKafka: platformaticVersion },
      rows,
      notes,
      charts: [
        {
          kind: 'bar',
          id: 'throughput',
          title: 'Passthrough records/s by client',
          yLabel: 'records per second',
          categories: results.map((r) => r.name),
          series: [{ name: 'records/s (best round)', points: results.map((r, i) => [i, round(r.best.recordsPerSecond)]) }],
        },
        {
          kind: 'bar',
          id: 'latency',
          title: 'Passthrough latency by client',
          yLabel: 'milliseconds',
          categories: results.map((r) => r.name),
          series: (['p50', 'p90', 'p99'] as const).map((p) => ({ name: p, points: results.map((r, i) => [i, round(r.latency?.[p] ?? 0)] as [number, number]) })),
        },
      ],
    };
  } finally {
    await session.close();
  }
}
