// Producing generated traffic to the raw Kafka topics: one topic per event type, paced. A load tool (the
// `produce` command, the benchmarks, the tests), not the service's data path: it uses the service's default
// client library (@platformatic/kafka) directly, with several writes in flight, where the service goes
// through the client seam (src/kafka/seam.ts).
import { Producer, type MessageToProduce } from '@platformatic/kafka';
import type { TrafficEventType } from '../events/catalog.js';
import { createClient, ensureTopics, parseBrokers } from '../kafka/client.js';
import { withAdmin } from '../kafka/seam.js';
import { baseOptions, toPlatformatic } from '../kafka/platformatic/platformatic-adapter.js';
import type { GeneratedMessage } from './generator.js';
import { sendPaced, type PacedProgress, type PacedSummary } from './paced-sender.js';

export interface TrafficTopics {
  readonly 'http_request_complete.v0': string;
  readonly 'tcp_connection_closed.v0': string;
}

export interface KafkaTrafficOptions {
  /** The bootstrap brokers, "host:port" separated by commas or as a list. */
  readonly brokers: string | readonly string[];
  readonly clientId?: string;
  readonly topics: TrafficTopics;
  /** The records to send, e.g. TrafficGenerator.nextMessage or cycleOf(...). */
  readonly source: () => GeneratedMessage;
  readonly count: number;
  readonly rate?: number;
  readonly maxDurationMs?: number;
  readonly batchSize?: number;
  readonly maxInFlight?: number;
  /** Topics that do not exist yet are created with this many partitions (default 6, as the service does). */
  readonly partitions?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: PacedProgress) => void;
}

/** Sends `count` records (fewer if stopped), creating missing topics first; resolves once all are acknowledged. */
export async function produceTraffic(opts: KafkaTrafficOptions): Promise<PacedSummary> {
  const brokers = typeof opts.brokers === 'string' ? parseBrokers(opts.brokers) : opts.brokers;
  const clientOptions = { clientId: opts.clientId ?? 'edge-events-traffic', brokers };
  const names = [...new Set(Object.values(opts.topics) as string[])];
  await withAdmin(createClient({ ...clientOptions, name: 'platformatic' }), (admin) => ensureTopics(admin, names.map((topic) => ({ topic, partitions: opts.partitions ?? 6 }))));
  // Not idempotent: several batches may be in flight at once, and a load tool does not need exactly-once.
  // Unkeyed records go round robin over a topic's partitions.
  const producer = new Producer({ ...baseOptions(clientOptions), acks: -1, idempotent: false, autocreateTopics: false });
  try {
    return await sendPaced<GeneratedMessage>({
      next: opts.source,
      count: opts.count,
      rate: opts.rate,
      maxDurationMs: opts.maxDurationMs,
      batchSize: opts.batchSize,
      maxInFlight: opts.maxInFlight,
      signal: opts.signal,
      onProgress: opts.onProgress,
      send: async (batch) => {
        const messages: MessageToProduce[] = batch.map((m) => toPlatformatic(opts.topics[m.eventType as TrafficEventType], { value: m.value, headers: m.headers }));
        await producer.send({ messages });
      },
    });
  } finally {
    await producer.close();
  }
}
