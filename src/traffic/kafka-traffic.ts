// Producing generated traffic to the raw Kafka topics: one topic per event type, paced. A load tool (the
// `produce` command, the benchmarks, the tests), not the service's data path: it uses kafkajs directly, with
// several writes in flight, where the service goes through the client seam (src/kafka/seam.ts).
import type { Kafka, Message, TopicMessages } from 'kafkajs';
import type { TrafficEventType } from '../events/catalog.js';
import { ensureTopics } from '../kafka/client.js';
import { KafkajsAdmin } from '../kafka/kafkajs/kafkajs-adapter.js';
import { createProducer } from '../kafka/kafkajs/kafkajs-client.js';
import type { GeneratedMessage } from './generator.js';
import { sendPaced, type PacedProgress, type PacedSummary } from './paced-sender.js';

export interface TrafficTopics {
  readonly 'http_request_complete.v0': string;
  readonly 'tcp_connection_closed.v0': string;
}

export interface KafkaTrafficOptions {
  readonly kafka: Kafka;
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
  const admin = new KafkajsAdmin(opts.kafka);
  try {
    const names = [...new Set(Object.values(opts.topics) as string[])];
    await ensureTopics(admin, names.map((topic) => ({ topic, partitions: opts.partitions ?? 6 })));
  } finally {
    await admin.close();
  }
  // Not idempotent: several batches may be in flight at once, and a load tool does not need exactly-once.
  const producer = createProducer(opts.kafka, { allowAutoTopicCreation: false });
  await producer.connect();
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
        const byTopic = new Map<string, Message[]>();
        for (const m of batch) {
          const topic = opts.topics[m.eventType as TrafficEventType];
          let list = byTopic.get(topic);
          if (list === undefined) byTopic.set(topic, (list = []));
          list.push({ value: m.value, headers: m.headers as Record<string, string> });
        }
        const topicMessages: TopicMessages[] = [...byTopic].map(([topic, messages]) => ({ topic, messages }));
        await producer.sendBatch({ topicMessages, acks: -1 });
      },
    });
  } finally {
    await producer.disconnect();
  }
}
