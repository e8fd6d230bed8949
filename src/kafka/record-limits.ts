// What a topic takes in one produce, and how large messages are once framed as Kafka records, so a send
// can be split to a topic's max.message.bytes before the broker refuses it with MESSAGE_TOO_LARGE.
import type { KafkaAdmin, OutgoingMessage } from './seam.js';

/**
 * The fixed part of a record batch (format v2): base offset, length, leader epoch, magic, CRC,
 * attributes, last offset delta, first and max timestamps, producer id and epoch, base sequence and
 * record count. The broker checks the whole batch, these bytes included, against max.message.bytes.
 */
export const RECORD_BATCH_OVERHEAD_BYTES = 61;

/** Bytes of a zigzag varint holding `n` (lengths and counts; -1 for a null key is one byte). */
function varintBytes(n: number): number {
  let z = n >= 0 ? n * 2 : -n * 2 - 1;
  let bytes = 1;
  while (z >= 0x80) {
    z = Math.floor(z / 0x80);
    bytes++;
  }
  return bytes;
}

function byteLength(v: string | Buffer | null | undefined): number {
  if (v === null || v === undefined) return 0;
  return typeof v === 'string' ? Buffer.byteLength(v) : v.length;
}

function headerBytes(headers: OutgoingMessage['headers']): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  for (const [name, raw] of Object.entries(headers ?? {})) {
    const n = Buffer.byteLength(name);
    for (const one of typeof raw === 'string' || Buffer.isBuffer(raw) ? [raw] : raw) {
      const v = byteLength(one);
      count++;
      bytes += varintBytes(n) + n + varintBytes(v) + v;
    }
  }
  return { count, bytes };
}

/**
 * An upper bound of the bytes `message` takes in a record batch (format v2, uncompressed): its length,
 * attributes, timestamp and offset deltas (counted at their largest), key, value and headers.
 */
export function recordBytes(message: OutgoingMessage): number {
  const key = byteLength(message.key);
  const value = byteLength(message.value);
  const headers = headerBytes(message.headers);
  const body = 1 + 10 + 5 + varintBytes(key) + key + varintBytes(value) + value + varintBytes(headers.count) + headers.bytes;
  return varintBytes(body) + body;
}

export interface SplitMessages<M extends OutgoingMessage> {
  /** Groups of messages whose record batch stays within the limit, in the original order. */
  readonly chunks: M[][];
  /** Messages whose record batch would exceed the limit even alone, with that batch's size. */
  readonly oversize: Array<{ readonly message: M; readonly index: number; readonly bytes: number }>;
}

/**
 * Splits messages into sends whose record batch fits `maxBatchBytes` (a topic's max.message.bytes).
 * Each chunk is sized as if all its messages landed in one partition, which bounds every partition's
 * batch whatever the partitioner does.
 */
export function splitToBatchLimit<M extends OutgoingMessage>(messages: readonly M[], maxBatchBytes: number): SplitMessages<M> {
  const chunks: M[][] = [];
  const oversize: Array<{ message: M; index: number; bytes: number }> = [];
  let chunk: M[] = [];
  let used = RECORD_BATCH_OVERHEAD_BYTES;
  messages.forEach((message, index) => {
    const bytes = recordBytes(message);
    if (RECORD_BATCH_OVERHEAD_BYTES + bytes > maxBatchBytes) {
      oversize.push({ message, index, bytes: RECORD_BATCH_OVERHEAD_BYTES + bytes });
      return;
    }
    if (used + bytes > maxBatchBytes) {
      chunks.push(chunk);
      chunk = [];
      used = RECORD_BATCH_OVERHEAD_BYTES;
    }
    chunk.push(message);
    used += bytes;
  });
  if (chunk.length > 0) chunks.push(chunk);
  return { chunks, oversize };
}

/** The topic's max.message.bytes as the broker applies it (its own setting, or the broker's default). */
export async function topicMaxMessageBytes(admin: KafkaAdmin, topic: string): Promise<number> {
  const value = Number((await admin.topicConfig(topic, ['max.message.bytes'])).get('max.message.bytes'));
  if (!Number.isFinite(value) || value <= 0) throw new Error(`Topic ${topic} reported no max.message.bytes.`);
  return value;
}
