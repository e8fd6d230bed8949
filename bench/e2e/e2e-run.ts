// The end-to-end measurement the e2e and kafka-client benchmarks share: on one broker and the same
// preloaded records, the kcat copy, then per Kafka client its own copy (the passthrough) and the worker on
// two workloads; every rate is also given as a share of the kcat copy and of the same client's copy.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { KafkaClientName } from '../../src/kafka/seam.js';
import type { BenchReport, BenchRow, BenchTarget } from '../lib/types.js';
import type { SubscriptionKind } from '../workload/subscriptions.js';
import { ensureKcat } from './kcat.js';
import type { LatencyResult } from './latency.js';
import { KafkaBenchSession, LATENCY_WARMUP_SECONDS, type Configuration, type DrainReport } from './session.js';

export interface E2eOptions {
  readonly clients: readonly KafkaClientName[];
  readonly records: number;
  readonly latencySeconds: number;
  /** Also the default workload's worker with V8's own heap sizing (HEAP_GROWTH_PERCENT=0). */
  readonly heapVariant: boolean;
  /** Report the end-to-end targets (the e2e bench does; the kafka-client comparison leaves them to it). */
  readonly targets?: boolean;
  /** Also the first client's workers on the same records' content as JSON, each beside its Avro row (the JSON/Avro target). */
  readonly json?: boolean;
}

/** The latency runs send at this share of the configuration's own drain rate ("half load"). */
const LATENCY_LOAD = 0.5;
const SUBSCRIPTIONS = 100;
const WORKLOADS: ReadonlyArray<{ kind: SubscriptionKind; label: string; target: number }> = [
  { kind: 'one-percent', label: 'each about 1% of records', target: 0.5 },
  { kind: 'fifth-percent', label: 'together about 20% of records', target: 0.8 },
];
const TARGET_PER_CORE = 50_000;
const TARGET_P99_MS = 250;
/** A JSON record should cost no more than an Avro record of the same content: JSON records/s >= 0.9x Avro records/s (issue 25). */
const TARGET_JSON_SHARE = 0.9;
const PASSTHROUGH: Record<KafkaClientName, string> = {
  platformatic: fileURLToPath(new URL('./passthrough-platformatic.ts', import.meta.url)),
};
const PACKAGES: Record<KafkaClientName, string> = { platformatic: '@platformatic/kafka' };

const round = (n: number, d = 0): number => Math.round(n * 10 ** d) / 10 ** d;
const grouped = (n: number): string => Math.round(n).toLocaleString('en-US');
const met = (ok: boolean): string => (ok ? 'met' : 'missed');

/** "@platformatic/kafka 2.12.1": the installed version of a client's package (not every package exports its package.json). */
export function clientLabel(client: KafkaClientName): string {
  const pkg = PACKAGES[client];
  const { version } = JSON.parse(readFileSync(new URL(`../../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')) as { version: string };
  return `${pkg} ${version}`;
}

interface Measured {
  readonly config: Configuration;
  readonly label: string;
  readonly client?: KafkaClientName;
  readonly workload?: (typeof WORKLOADS)[number];
  /** The same client's copy, for workers. */
  readonly copy?: Measured;
  /** For a worker reading the JSON copy of the records: the same worker on the Avro records. */
  readonly avro?: Measured;
  drain?: DrainReport;
  latency?: LatencyResult;
}

const cpuUsPerRecord = (d: DrainReport): number => (d.cores / d.recordsPerSecond) * 1e6;

/** The round whose records/s is the median: for an even count the faster of the middle two, the stricter baseline. */
function medianRound(rounds: readonly Measured[]): Measured {
  const rate = (m: Measured): number => (m.drain as DrainReport).recordsPerSecond;
  const sorted = [...rounds].sort((a, b) => rate(a) - rate(b));
  return sorted[Math.floor(sorted.length / 2)] as Measured;
}

/**
 * The targets a worker's drain and latency run measure, with why a missed one missed: where its
 * CPU time a record goes against its own client's copy and kcat's (PROFILE.md "The client path").
 */
function workerTargets(m: Measured, kcat: Measured, kcatRates: readonly number[]): BenchTarget[] {
  const d = m.drain as DrainReport;
  const k = kcat.drain as DrainReport;
  const copy = (m.copy as Measured).drain as DrainReport;
  const w = m.workload as (typeof WORKLOADS)[number];
  const share = d.recordsPerSecond / k.recordsPerSecond;
  const perCore = d.recordsPerSecond / d.cores;
  const p99 = (m.latency as LatencyResult).p99;
  const costs =
    `CPU a record: worker ${round(cpuUsPerRecord(d), 1)} µs, the ${m.client} copy alone ${round(cpuUsPerRecord(copy), 1)} µs (${round(copy.recordsPerSecond / k.recordsPerSecond, 2)}x kcat), ` +
    `kcat ${round(cpuUsPerRecord(k), 1)} µs`;
  const drainWhy =
    `${costs}; the worker consumes and produces through the same client as its copy and routes every record on top (at ${round(d.eventsPerRecord, 2)} events a record): ` +
    `in a profile at the 1% workload, after start-up, the route is 37% of the worker's CPU, garbage collection a fifth, the client's framing and socket writes 13% and the rest of the client and adapter path 16% (PROFILE.md "The client path", "Fetch answers parsed by the adapter" and "The heap's growth"). ` +
    `What would close it: a cheaper client path, since the worker drains at about its client's own copy's rate; that copy is ${round(copy.recordsPerSecond / k.recordsPerSecond, 2)}x kcat here, and the native librdkafka API's copy measured 0.28x (bench/results/kafka-client-choice.md), so neither client reaches 0.5x by its copy alone`;
  const copyLatency = (m.copy as Measured).latency;
  const latencyWhy =
    `p50 ${grouped((m.latency as LatencyResult).p50)} ms` +
    (copyLatency === undefined ? '' : `; the ${m.client} copy alone, with no route, had p50 ${grouped(copyLatency.p50)} ms and p99 ${grouped(copyLatency.p99)} ms at its own half load in this run`) +
    `: a record waits for its fetch, its route, the write in flight at its destination (one at a time, acks=all) and its own write, on 2 cores shared with the sender and the broker at half of the worker's drain rate (PROFILE.md "A partition's next batch without waiting")`;
  return [
    {
      name: `held-out-style drain, ${m.client}, ${SUBSCRIPTIONS} subscriptions matching ${w.label}, x kcat copy`,
      target: `>= ${w.target}x`,
      figure:
        `${round(share, 2)}x (${grouped(d.recordsPerSecond)} against ${grouped(k.recordsPerSecond)} records/s, the median of ${kcatRates.length} kcat rounds; ` +
        `${round(d.recordsPerSecond / Math.max(...kcatRates), 2)}x to ${round(d.recordsPerSecond / Math.min(...kcatRates), 2)}x against the fastest and the slowest round)`,
      met: share >= w.target,
      ...(share < w.target && { why: drainWhy }),
    },
    {
      name: `records/s a core, ${m.client}, ${SUBSCRIPTIONS} subscriptions matching ${w.label}`,
      target: `>= ${grouped(TARGET_PER_CORE)}`,
      figure: `${grouped(perCore)} on ${round(d.cores, 2)} cores`,
      met: perCore >= TARGET_PER_CORE,
      ...(perCore < TARGET_PER_CORE && { why: drainWhy }),
    },
    {
      name: `p99 latency at half load, ${m.client}, ${SUBSCRIPTIONS} subscriptions matching ${w.label}`,
      target: `<= ${TARGET_P99_MS} ms`,
      figure: `${grouped(p99)} ms at ${grouped(LATENCY_LOAD * d.recordsPerSecond)} records/s`,
      met: p99 <= TARGET_P99_MS,
      ...(p99 > TARGET_P99_MS && { why: latencyWhy }),
    },
  ];
}

export async function runE2e(title: string, progress: (m: string) => void, o: E2eOptions): Promise<BenchReport> {
  const started = Date.now();
  const loadBefore = loadavg()[0] ?? 0;
  const kcatVersion = ensureKcat(progress);
  const drainTimeoutMs = Math.max(120_000, (o.records / 2_000) * 1000);
  const session = await KafkaBenchSession.open('e2e', progress);
  try {
    await session.preload(o.records);
    if (o.json === true) await session.preload(o.records, 'json');
    // The kcat copy runs once before each other configuration, and the median round is the baseline: one
    // round alone moved by 1.4x between rounds on an idle broker (PROFILE.md, "The kcat baseline in rounds").
    const kcatRounds: Measured[] = [];
    const kcatRound = (): Measured => {
      const next: Measured = { config: session.kcatCopy(`kcat-${kcatRounds.length + 1}`), label: `kcat copy (${kcatVersion})` };
      kcatRounds.push(next);
      return next;
    };
    const order: Measured[] = [];
    const all: Measured[] = [];
    for (const client of o.clients) {
      const env = { KAFKA_CLIENT: client };
      const copy: Measured = { config: session.passthrough(`copy-${client}`, PASSTHROUGH[client]), label: `copy, ${clientLabel(client)}`, client };
      all.push(copy);
      order.push(kcatRound(), copy);
      for (const workload of WORKLOADS) {
        const config = session.worker(`worker-${client}-${workload.kind}`, SUBSCRIPTIONS, { kind: workload.kind, env });
        const avro: Measured = { config, label: `worker, ${client}, ${SUBSCRIPTIONS} subscriptions matching ${workload.label}`, client, workload, copy };
        all.push(avro);
        order.push(kcatRound(), avro);
        if (o.json === true && client === o.clients[0]) {
          const json = session.worker(`worker-${client}-${workload.kind}-json`, SUBSCRIPTIONS, { kind: workload.kind, env, input: 'json' });
          const jsonRow: Measured = { config: json, label: `worker, ${client}, ${SUBSCRIPTIONS} subscriptions matching ${workload.label}, JSON input`, client, copy, avro };
          all.push(jsonRow);
          order.push(kcatRound(), jsonRow);
        }
      }
      if (o.heapVariant && client === o.clients[0]) {
        const config = session.worker(`worker-${client}-v8-heap`, SUBSCRIPTIONS, { env: { ...env, HEAP_GROWTH_PERCENT: '0' } });
        const heap: Measured = { config, label: `worker, ${client}, ${SUBSCRIPTIONS} subscriptions, HEAP_GROWTH_PERCENT=0 (V8's heap sizing)`, client, copy };
        all.push(heap);
        order.push(kcatRound(), heap);
      }
    }
    for (const m of order) m.drain = await session.drain(m.config, drainTimeoutMs);
    for (const m of all) {
      if (m.avro !== undefined) continue;
      m.latency = await session.latency(m.config, LATENCY_LOAD * (m.drain as DrainReport).recordsPerSecond, o.latencySeconds, drainTimeoutMs);
    }
    const kcat: Measured = { ...medianRound(kcatRounds), label: `kcat copy (${kcatVersion}), the median of ${kcatRounds.length} rounds` };
    all.unshift(kcat);

    const kcatRate = (kcat.drain as DrainReport).recordsPerSecond;
    const kcatRates = kcatRounds.map((r) => (r.drain as DrainReport).recordsPerSecond);
    const rows: BenchRow[] = all.map((m) => {
      const d = m.drain as DrainReport;
      return {
        configuration: m.label,
        'records/s': round(d.recordsPerSecond),
        'x kcat': round(d.recordsPerSecond / kcatRate, 2),
        'x same-client copy': m.copy === undefined ? null : round(d.recordsPerSecond / (m.copy.drain as DrainReport).recordsPerSecond, 2),
        'events/record': round(d.eventsPerRecord, 2),
        'CPU cores': round(d.cores, 2),
        'records/s per core': round(d.recordsPerSecond / d.cores),
        'peak RSS MiB': round(d.peakRssMiB),
        'latency at records/s': m.latency === undefined ? null : round(LATENCY_LOAD * d.recordsPerSecond),
        'p50 ms': m.latency === undefined ? null : round(m.latency.p50),
        'p99 ms': m.latency === undefined ? null : round(m.latency.p99),
      };
    });
    // The workers' figures against the targets, for the notes and the targets.
    const workers = all
      .filter((m) => m.workload !== undefined)
      .map((m) => {
        const d = m.drain as DrainReport;
        return { m, d, w: m.workload as (typeof WORKLOADS)[number], share: d.recordsPerSecond / kcatRate, perCore: d.recordsPerSecond / d.cores, p99: (m.latency as LatencyResult).p99 };
      });
    const summary = workers.map(({ m, d, w, share, perCore, p99 }) => {
      return (
        `Worker on ${m.client} (${clientLabel(m.client as KafkaClientName)}), ${SUBSCRIPTIONS} subscriptions matching ${w.label} (${round(d.eventsPerRecord, 2)} events/record): ` +
        `${grouped(d.recordsPerSecond)} records/s = ${round(share, 2)}x kcat (target >= ${w.target}: ${met(share >= w.target)}), ` +
        `${round(d.recordsPerSecond / ((m.copy as Measured).drain as DrainReport).recordsPerSecond, 2)}x the ${m.client} copy; ` +
        `${grouped(perCore)} records/s per core on ${round(d.cores, 2)} cores (target >= ${grouped(TARGET_PER_CORE)}: ${met(perCore >= TARGET_PER_CORE)}); ` +
        `p99 ${round(p99)} ms at half load (target <= ${TARGET_P99_MS}: ${met(p99 <= TARGET_P99_MS)}).`
      );
    });
    const jsonTargets: BenchTarget[] = all
      .filter((m) => m.avro !== undefined)
      .map((m) => {
        const json = m.drain as DrainReport;
        const avro = (m.avro as Measured).drain as DrainReport;
        const share = json.recordsPerSecond / avro.recordsPerSecond;
        const perCore = json.recordsPerSecond / json.cores / (avro.recordsPerSecond / avro.cores);
        return {
          name: `end to end, JSON input records/s against Avro input on the same content, ${SUBSCRIPTIONS} subscriptions matching ${(m.avro as Measured).workload?.label ?? ''}`,
          target: `>= ${TARGET_JSON_SHARE}x Avro`,
          figure: `${round(share, 2)}x (${grouped(json.recordsPerSecond)} against ${grouped(avro.recordsPerSecond)} records/s; per core ${round(perCore, 2)}x)`,
          met: share >= TARGET_JSON_SHARE,
          ...(share < TARGET_JSON_SHARE && { why: 'bench/results/PROFILE.md, "Issue 25, second pass", "Projecting JSON from its text" and "Fetch answers parsed by the adapter": the scan of a JSON record reads every byte of its text (four at a time), 1.7x the bytes of the Avro record, which the Avro read skips over by length, and the client moves 1.7x the bytes. What would close it: the whole scan in WebAssembly (PROFILE.md, "A SIMD pass over JSON records"); in the worker\'s profile the route costs 2.1 µs a record more on JSON than on Avro, and the rest of the gap (about 2 µs) is the client\'s and the garbage collector\'s work on the larger records, so a scan as cheap as the Avro read alone would reach about 0.88x.' }),
        };
      });
    const notes = [
      ...summary,
      ...(o.json === true
        ? [
            `JSON input: the same records' content preloaded as JSON into raw topics of their own (the generator's seed in the other form, docs/record-formats.md), read by the first client's worker with the same subscriptions; its rows have no latency run. The target is JSON records/s >= ${TARGET_JSON_SHARE}x the Avro row's.`,
          ]
        : []),
      `Throughput: ${o.records.toLocaleString('en-US')} generated Avro records (80% http_request_complete.v0) were preloaded into the two raw topics (6 partitions each); each configuration then started in its own consumer group and read them all from the beginning. records/s counts the records committed between the first commit seen and the last (start-up and the group join excluded), polling the group's offsets every 250 ms; for the kcat copy, which commits on a timer of its own, the records written to its output topic instead. Events/s counts what reached the output topics over the same records.`,
      `The kcat copy ran ${kcatRounds.length} times, once before each other configuration: ${kcatRates.map(grouped).join(', ')} records/s in that order; every "x kcat" is against the median round (its row).`,
      `The kcat copy (bench/e2e/kcat.ts): Debian's kcat as a consumer group over both raw topics piped into kcat producing every record unchanged to one topic, idempotent with acks=all (librdkafka's other defaults); its CPU and memory are both kcat processes'. It is the floor of what a topic-to-topic copy costs on this broker and machine.`,
      `The worker is the real service (src/main.ts, ROLES=worker) in its own process with KAFKA_CLIENT set, its ${SUBSCRIPTIONS} subscriptions written to the config log and delivering to one kafka destination (acks=all, idempotent, the runner's default batching). A client's copy (bench/e2e/passthrough-*.ts) uses that client with the worker's consumer settings and the kafka writer's producer settings, and produces every record unchanged to one topic.`,
      `Latency: after the drains, each configuration resumed its group and caught up; ${LATENCY_WARMUP_SECONDS} s of records were sent at ${LATENCY_LOAD * 100}% of its own drain rate ("half load") and delivered, not measured (the first seconds after a catch-up measure its recovery), then ${o.latencySeconds} s of records at that rate were measured. Latency = the output record's broker append time (LogAppendTime) minus the raw record's create time, same clock.`,
      `CPU cores: user+system CPU time of the measured process(es) over the drain window divided by its length (from /proc). records/s per core = records/s / CPU cores. Peak RSS: VmHWM of the process (the larger kcat process for the copy).`,
      `Broker: Kafka ${session.broker.version}, single node on 127.0.0.1, extra JVM flags "${session.broker.jvmOpts}". Producer, broker and the measured processes share the same ${cpus().length} cores, so absolute rates are low; the ratios within one run are the result. 1-minute load average ${round(loadBefore, 1)} at the start, ${round(loadavg()[0] ?? 0, 1)} at the end.`,
      `This run took ${round((Date.now() - started) / 1000)} s in all.`,
    ];
    const targets = [...workers.flatMap(({ m }) => workerTargets(m, kcat, kcatRates)), ...jsonTargets];
    const labels = rows.map((r) => String(r.configuration));
    const withLatency = all.filter((m) => m.latency !== undefined);
    return {
      title,
      usesKafka: true,
      settings: { records: o.records, jsonInput: o.json === true, clients: o.clients.join(' '), subscriptions: SUBSCRIPTIONS, latencySeconds: o.latencySeconds, latencyLoad: LATENCY_LOAD, kcat: kcatVersion, ...Object.fromEntries(o.clients.map((c) => [c, clientLabel(c)])), brokerJvmOpts: session.broker.jvmOpts },
      rows,
      notes,
      ...(o.targets === true && { targets }),
      charts: [
        {
          kind: 'bar',
          id: 'throughput',
          title: 'End to end: records/s drained from the raw topics',
          yLabel: 'records per second',
          categories: labels,
          series: [{ name: 'records/s', points: rows.map((r, i) => [i, Number(r['records/s'])]) }],
        },
        {
          kind: 'bar',
          id: 'latency',
          title: 'End to end latency, produce to delivered, at half of each configuration\'s drain rate',
          yLabel: 'milliseconds',
          categories: withLatency.map((m) => m.label),
          series: (['p50', 'p90', 'p99'] as const).map((p) => ({ name: p, points: withLatency.map((m, i) => [i, round((m.latency as LatencyResult)[p])] as [number, number]) })),
        },
      ],
    };
  } finally {
    await session.close();
  }
}
