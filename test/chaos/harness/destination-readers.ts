// Readers of the kafka and file destinations and of the dead-letter topic for the checker: what each
// destination holds, as sequence numbers with the time the reader saw them, and each dead letter.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { Consumer, ConsumerRunConfig, Kafka } from 'kafkajs';
import type { Arrivals } from './http-sink.js';
import { seqOfEnvelope } from './verifiable-source.js';

/**
 * A consumer that reads one topic from the beginning in a group of its own, for the whole scenario,
 * with a short long-poll so arrival times stay close to the writes. Subclasses say what to do with
 * the messages.
 */
abstract class TopicReader {
  private consumer: Consumer | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
    private readonly groupId: string,
  ) {}

  protected abstract run(): ConsumerRunConfig;

  async start(): Promise<void> {
    const consumer = this.kafka.consumer({ groupId: this.groupId, maxWaitTimeInMs: 200 });
    await consumer.connect();
    await consumer.subscribe({ topic: this.topic, fromBeginning: true });
    await consumer.run(this.run());
    this.consumer = consumer;
  }

  async stop(): Promise<void> {
    const c = this.consumer;
    this.consumer = undefined;
    await c?.disconnect();
  }
}

/** The events a kafka destination holds, as sequence numbers with the time the reader saw them. */
export class KafkaTopicReader extends TopicReader {
  readonly arrivals: Arrivals = { seqs: [], at: [], refused: 0 };
  unreadable = 0;

  protected run(): ConsumerRunConfig {
    return {
      eachBatch: async ({ batch }) => {
        const now = Date.now();
        for (const m of batch.messages) {
          let seq: number | undefined;
          try {
            seq = seqOfEnvelope(JSON.parse(String(m.value)));
          } catch {
            seq = undefined;
          }
          if (seq === undefined) {
            this.unreadable++;
            continue;
          }
          this.arrivals.seqs.push(seq);
          this.arrivals.at.push(now);
        }
      },
    };
  }
}

export interface FileContents {
  readonly seqs: number[];
  /** Lines that are not a whole JSON envelope: a torn write would show here. */
  readonly corruptLines: number;
}

/** Every event in an NDJSON file destination, including its rotated files (`<path>.1` ... `<path>.N`). */
export function readFileDestination(path: string, maxRotated = 20): FileContents {
  const seqs: number[] = [];
  let corruptLines = 0;
  const files = [path];
  for (let i = 1; i <= maxRotated; i++) files.push(`${path}.${i}`);
  for (const file of files) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        const seq = seqOfEnvelope(JSON.parse(line));
        if (seq === undefined) corruptLines++;
        else seqs.push(seq);
      } catch {
        corruptLines++;
      }
    }
  }
  return { seqs, corruptLines };
}

export interface DeadLetterSeen {
  readonly key: string | null;
  /** The sequence number of a dead-lettered event (an envelope); undefined for a raw input record. */
  readonly seq: number | undefined;
  readonly sha256: string;
  readonly size: number;
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Reads the dead-letter topic from the beginning: each letter's key, value digest and headers. A
 * fetch returns at least one whole record batch however large (KIP-74), so ten-megabyte letters
 * arrive too.
 */
export class DeadLetterReader extends TopicReader {
  readonly letters: DeadLetterSeen[] = [];

  protected run(): ConsumerRunConfig {
    return {
      eachMessage: async ({ message }) => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(message.headers ?? {})) headers[k] = Array.isArray(v) ? v.map(String).join(',') : String(v ?? '');
        const value = message.value ?? Buffer.alloc(0);
        this.letters.push({
          key: message.key === null ? null : message.key.toString('utf8'),
          seq: envelopeSeq(value),
          sha256: createHash('sha256').update(value).digest('hex'),
          size: value.length,
          headers,
        });
      },
    };
  }
}

/** Dead letters of events carry the envelope; those of input records carry the raw record. */
function envelopeSeq(value: Buffer): number | undefined {
  // Envelopes are JSON objects of at most a few MiB; a ten-megabyte poison record is not parsed.
  if (value[0] !== 0x7b || value.length > 8 * 1024 * 1024) return undefined;
  try {
    return seqOfEnvelope(JSON.parse(value.toString('utf8')));
  } catch {
    return undefined;
  }
}
