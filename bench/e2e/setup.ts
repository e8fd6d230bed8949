// Topics, destinations, subscriptions and preloaded traffic for the Kafka benchmarks, all on the benchmark's own broker.
import { randomBytes } from 'node:crypto';
import { ConfigLog } from '../../src/configlog/config-log.js';
import type { StoredDestination, StoredSubscription } from '../../src/configlog/resources.js';
import { createClient, ensureTopics } from '../../src/kafka/client.js';
import type { KafkaClient as Kafka } from '../../src/kafka/seam.js';
import type { WireForm } from '../../src/records/record-types.js';
import { TrafficGenerator, buildUniverse, cycleOf, type TrafficUniverse } from '../../src/traffic/generator.js';
import { produceTraffic, type TrafficTopics } from '../../src/traffic/kafka-traffic.js';
import { buildSubscriptions, type SubscriptionSetOptions, type SubscriptionWorkload } from '../workload/subscriptions.js';
import { whenTopicsKnown } from './watch.js';

export const HTTP_SHARE = 0.8;
export const PARTITIONS = 6;
/** Distinct encoded records cycled by the preload: encoding costs tens of µs, sending must not wait on it. */
const DISTINCT_RECORDS = 20_000;

export interface BenchTopics {
  readonly prefix: string;
  readonly traffic: TrafficTopics;
  readonly config: string;
  readonly audit: string;
  readonly dlq: string;
}

export function benchTopics(prefix: string): BenchTopics {
  return {
    prefix,
    traffic: { 'http_request_complete.v0': `${prefix}.http`, 'tcp_connection_closed.v0': `${prefix}.tcp` },
    config: `${prefix}.config`,
    audit: `${prefix}.audit`,
    dlq: `${prefix}.dlq`,
  };
}

/** The benchmark's own client: the service's (seam.ts). */
export function benchKafka(brokers: string, clientId = 'edge-events-bench'): Kafka {
  return createClient({ clientId, brokers });
}

/**
 * Output topics keep the broker's append time as each record's timestamp (message.timestamp.type =
 * LogAppendTime), so "delivered" is when the broker accepted the event, on the same clock as the
 * producer's create time of the raw record.
 */
export async function createTopics(kafka: Kafka, topics: BenchTopics, outputs: readonly string[]): Promise<void> {
  const admin = kafka.admin();
  try {
    await whenTopicsKnown(() => ensureTopics(admin, [
      { topic: topics.traffic['http_request_complete.v0'], partitions: PARTITIONS },
      { topic: topics.traffic['tcp_connection_closed.v0'], partitions: PARTITIONS },
      { topic: topics.config, partitions: 1, compacted: true },
      { topic: topics.audit, partitions: 1 },
      { topic: topics.dlq, partitions: 1 },
      ...outputs.map((topic) => ({ topic, partitions: PARTITIONS, config: { 'message.timestamp.type': 'LogAppendTime' } })),
    ]));
  } finally {
    await admin.close();
  }
}

/** The generated traffic in one wire form (docs/record-formats.md); the same seed gives the same records in every form. */
export function trafficSource(seed = 1, form: WireForm = 'avro'): { universe: TrafficUniverse; next: ReturnType<typeof cycleOf> } {
  const universe = buildUniverse({ httpShare: HTTP_SHARE });
  return { universe, next: cycleOf(new TrafficGenerator({ seed, httpShare: HTTP_SHARE }, universe), DISTINCT_RECORDS, form) };
}

/** Sends `count` records to the raw topics as fast as the broker takes them; resolves with records/s. */
export async function preload(brokers: string, topics: BenchTopics, count: number, next: ReturnType<typeof cycleOf>, progress: (m: string) => void): Promise<number> {
  const summary = await produceTraffic({
    brokers,
    topics: topics.traffic,
    source: next,
    count,
    batchSize: 1000,
    maxInFlight: 4,
    onProgress: (p) => progress(`preloading: ${p.sent.toLocaleString('en-US')} / ${count.toLocaleString('en-US')} records (${Math.round(p.ratePerSecond).toLocaleString('en-US')}/s)`),
  });
  return summary.ratePerSecond;
}

export const destinationId = (i: number): string => `ed_BENCH${String(i).padStart(22, '0')}`;

/** Writes kafka destinations (one per output topic) and the subscriptions to the config log. */
export function writeConfig(
  kafka: Kafka,
  topics: BenchTopics,
  outputs: readonly string[],
  universe: TrafficUniverse,
  subscriptions: Omit<SubscriptionSetOptions, 'destinationIds' | 'httpShare'>,
): Promise<SubscriptionWorkload> {
  return writeTargets(kafka, topics, outputs.map((topic) => ({ kafka: { topic } })), universe, subscriptions);
}

/** Writes one destination per target (of any kind) and the subscriptions, spread over them, to the config log. */
export async function writeTargets(
  kafka: Kafka,
  topics: BenchTopics,
  targets: readonly StoredDestination['target'][],
  universe: TrafficUniverse,
  subscriptions: Omit<SubscriptionSetOptions, 'destinationIds' | 'httpShare'>,
): Promise<SubscriptionWorkload> {
  const now = new Date().toISOString();
  const destinations: StoredDestination[] = targets.map((target, i) => ({
    id: destinationId(i),
    created_at: now,
    description: `benchmark output ${i}`,
    metadata: '',
    format: 'json',
    target,
  }));
  const workload = buildSubscriptions(universe, { ...subscriptions, httpShare: HTTP_SHARE, destinationIds: destinations.map((d) => d.id) });
  const log = new ConfigLog({ kafka, topic: topics.config });
  await log.start();
  try {
    await log.write(destinations.map((d) => ({ id: d.id, kind: 'event_destination', data: d })));
    const subs: StoredSubscription[] = workload.subscriptions;
    for (let i = 0; i < subs.length; i += 500) {
      await log.write(subs.slice(i, i + 500).map((s) => ({ id: s.id, kind: 'event_subscription', data: s })));
    }
    // write() resolves once this process has read its own write back, so the count must be exact.
    const stored = log.list('event_subscription').length;
    if (stored !== subs.length) throw new Error(`the config log holds ${stored} subscriptions, not ${subs.length}`);
  } finally {
    await log.stop();
  }
  return workload;
}

/** The environment of a worker process on these topics (the service reads its settings from it). */
export function workerEnv(brokers: string, topics: BenchTopics, group: string): Record<string, string> {
  return {
    KAFKA_BROKERS: brokers,
    PORT: '0',
    HOST: '127.0.0.1',
    TOPIC_HTTP_REQUEST_COMPLETE: topics.traffic['http_request_complete.v0'],
    TOPIC_TCP_CONNECTION_CLOSED: topics.traffic['tcp_connection_closed.v0'],
    TOPIC_AUDIT: topics.audit,
    TOPIC_CONFIG: topics.config,
    TOPIC_DLQ: topics.dlq,
    TOPIC_RETRY_PREFIX: `${topics.prefix}.retry.`,
    TOPIC_STATUS: `${topics.prefix}.status`,
    TOPIC_HEALTH: `${topics.prefix}.health`,
    CONSUMER_GROUP: group,
    SECRET_KEY: randomBytes(32).toString('hex'),
    DRAIN_TIMEOUT_MS: '10000',
  };
}

export function uniquePrefix(name: string): string {
  return `bench-${name}-${Date.now().toString(36)}`;
}
