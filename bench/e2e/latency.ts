// Produce-to-delivered latency: send records at a steady rate while a consumer group keeps up, then read the delivered events back.
import { Consumer, type Message } from '@platformatic/kafka';
import type { KafkaClient as Kafka } from '../../src/kafka/seam.js';
import { baseOptions } from '../../src/kafka/platformatic/platformatic-adapter.js';
import { produceTraffic } from '../../src/traffic/kafka-traffic.js';
import type { GeneratedMessage } from '../../src/traffic/generator.js';
import type { BenchTopics } from './setup.js';
import { endOffsets, watchDrain, whenTopicsKnown } from './watch.js';

export interface LatencyResult {
  readonly rate: number;
  readonly sentPerSecond: number;
  readonly events: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

async function partitionEnds(kafka: Kafka, topics: readonly string[]): Promise<Map<string, number>> {
  const admin = kafka.admin();
  try {
    const ends = new Map<string, number>();
    for (const topic of topics) for (const p of await whenTopicsKnown(() => admin.partitionOffsets(topic))) ends.set(`${topic}/${p.partition}`, p.high);
    return ends;
  } finally {
    await admin.close();
  }
}

/** Reads the records of `topics` between two sets of partition offsets; calls `each` with (append time, value, headers). */
async function readRange(
  kafka: Kafka,
  topics: readonly string[],
  from: Map<string, number>,
  to: Map<string, number>,
  each: (appendMs: number, value: Buffer | null, headers: Record<string, unknown>) => void,
  timeoutMs: number,
): Promise<void> {
  const remaining = new Set([...to].filter(([k, end]) => end > (from.get(k) ?? 0)).map(([k]) => k));
  if (remaining.size === 0) return;
  // The client library itself: the seam's consumer reads from committed offsets, this one from given ones.
  const consumer = new Consumer({ ...baseOptions({ clientId: 'bench-latency-reader', brokers: kafka.brokers }), groupId: `bench-latency-reader-${Date.now().toString(36)}` });
  try {
    const offsets = [...to.keys()].map((k) => ({ topic: k.slice(0, k.lastIndexOf('/')), partition: Number(k.slice(k.lastIndexOf('/') + 1)), offset: BigInt(from.get(k) ?? 0) }));
    const stream = await consumer.consume({ topics: [...topics], mode: 'manual', offsets, autocommit: false, maxWaitTime: 100 });
    let resolveDone: () => void = () => undefined;
    const done = new Promise<void>((r) => (resolveDone = r));
    stream.on('data', (m: Message<Buffer, Buffer, Buffer, Buffer>) => {
      const key = `${m.topic}/${m.partition}`;
      const offset = Number(m.offset);
      if (offset < (from.get(key) ?? 0) || offset >= (to.get(key) ?? 0)) return;
      const headers: Record<string, unknown> = {};
      for (const [name, value] of m.headers) headers[name.toString()] = value;
      each(Number(m.timestamp), m.value, headers);
      if (offset === (to.get(key) ?? 0) - 1) {
        remaining.delete(key);
        if (remaining.size === 0) resolveDone();
      }
    });
    try {
      await Promise.race([done, new Promise((_, reject) => setTimeout(() => reject(new Error(`reading the delivered events took longer than ${timeoutMs} ms`)), timeoutMs).unref())]);
    } finally {
      await stream.close().catch(() => undefined);
    }
  } finally {
    await consumer.close(true).catch(() => undefined);
  }
}

export interface LatencyOptions {
  /** The broker the traffic is sent to (produceTraffic). */
  readonly brokers: string;
  readonly topics: BenchTopics;
  readonly outputs: readonly string[];
  readonly group: string;
  readonly pids: readonly number[];
  readonly rate: number;
  readonly count: number;
  /**
   * Records sent at the same rate before the measured ones, and delivered before they start: the worker
   * has just caught up at full speed, and the first seconds after that measured the recovery, not the
   * steady state (bench/results/PROFILE.md, "Latency at half load").
   */
  readonly warmupCount: number;
  readonly source: () => GeneratedMessage;
  /** Where the raw record's create time is found in a delivered record: the envelope (worker) or a header (passthrough). */
  readonly inputTime: 'envelope' | 'header';
  readonly timeoutMs: number;
  readonly progress: (m: string) => void;
}

export async function measureLatency(kafka: Kafka, o: LatencyOptions): Promise<LatencyResult> {
  const inputs = Object.values(o.topics.traffic) as string[];
  const send = (count: number): ReturnType<typeof produceTraffic> =>
    produceTraffic({ brokers: o.brokers, topics: o.topics.traffic, source: o.source, count, rate: o.rate, batchSize: 200, maxInFlight: 8 });
  if (o.warmupCount > 0) {
    await send(o.warmupCount);
    await watchDrain(kafka, o.group, inputs, await endOffsets(kafka, inputs), o.pids, { timeoutMs: o.timeoutMs, progress: o.progress });
  }
  const before = await partitionEnds(kafka, o.outputs);
  const sent = await send(o.count);
  await watchDrain(kafka, o.group, inputs, await endOffsets(kafka, inputs), o.pids, { timeoutMs: o.timeoutMs, progress: o.progress });
  const after = await partitionEnds(kafka, o.outputs);
  const latencies: number[] = [];
  await readRange(
    kafka,
    o.outputs,
    before,
    after,
    (appendMs, value, headers) => {
      let created: number;
      if (o.inputTime === 'header') created = Number(String(headers['x-in-ts']));
      else created = Date.parse((JSON.parse(String(value)) as { event_timestamp: string }).event_timestamp);
      latencies.push(appendMs - created);
    },
    o.timeoutMs,
  );
  latencies.sort((a, b) => a - b);
  return {
    rate: o.rate,
    sentPerSecond: sent.ratePerSecond,
    events: latencies.length,
    p50: percentile(latencies, 50),
    p90: percentile(latencies, 90),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1] ?? Number.NaN,
  };
}
