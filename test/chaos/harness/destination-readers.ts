// Readers of the kafka and file destinations and of the dead-letter topic for the checker: what each
// destination holds, as sequence numbers with the time the reader saw them, and each dead letter.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import type { KafkaClient } from '../../../src/kafka/seam.js';
import { readTopics, type ConsumedMessage } from '../../support/kafka-tools.js';
import type { Arrivals } from './http-sink.js';
import { seqOfEnvelope } from './verifiable-source.js';

/**
 * A reader of one topic from the beginning in a group of its own, for the whole scenario, with a short
 * long-poll so arrival times stay close to the writes. Subclasses say what to do with each message.
 */
abstract class TopicReader {
  private reader: Awaited<ReturnType<typeof readTopics>> | undefined;

  constructor(
    private readonly kafka: KafkaClient,
    private readonly topic: string,
    private readonly groupId: string,
  ) {}

  protected abstract take(message: ConsumedMessage): void;

  async start(): Promise<void> {
    this.reader = await readTopics(this.kafka, { topics: [this.topic], groupId: this.groupId, maxWaitMs: 200 }, (m) => this.take(m));
  }

  async stop(): Promise<void> {
    const r = this.reader;
    this.reader = undefined;
    await r?.stop();
  }
}

/** The events a kafka destination holds, as sequence numbers with the time the reader saw them. */
export class KafkaTopicReader extends TopicReader {
  readonly arrivals: Arrivals = { seqs: [], at: [], refused: 0 };
  unreadable = 0;

  protected take(m: ConsumedMessage): void {
    let seq: number | undefined;
    try {
      seq = seqOfEnvelope(JSON.parse(String(m.value)));
    } catch {
      seq = undefined;
    }
    if (seq === undefined) {
      this.unreadable++;
      return;
    }
    this.arrivals.seqs.push(seq);
    this.arrivals.at.push(Date.now());
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

  protected take(message: ConsumedMessage): void {
    const value = message.bytes ?? Buffer.alloc(0);
    this.letters.push({
      key: message.key,
      seq: envelopeSeq(value),
      sha256: createHash('sha256').update(value).digest('hex'),
      size: value.length,
      headers: message.headers,
    });
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

/**
 * Counts the dead-letter topic's letters by a header's value (a destination id), reading nothing else of
 * them, for scenarios whose letters are many and large and whose measurements share the process.
 */
export class DeadLetterCounter extends TopicReader {
  readonly counts = new Map<string, number>();

  constructor(kafka: KafkaClient, topic: string, groupId: string, private readonly header: string) {
    super(kafka, topic, groupId);
  }

  protected take(message: ConsumedMessage): void {
    const key = message.headers[this.header] ?? '';
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }
}
