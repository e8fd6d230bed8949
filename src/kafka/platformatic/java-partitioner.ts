// The Java client's partitioner for @platformatic/kafka: a keyed record goes to murmur2(key) made positive
// (& 0x7fffffff) modulo the partition count, where the Java client and kafkajs's DefaultPartitioner put it;
// a record without a key goes round-robin. The client's own default takes murmur2 as unsigned instead
// (>>> 0), which sends about half the keys to another partition, and its murmur2 runs on BigInts.
import type { Partitioner } from '@platformatic/kafka';

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/** Kafka's murmur2 (org.apache.kafka.common.utils.Utils.murmur2) in 32-bit integer arithmetic. */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = SEED ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = (data[i] as number) | ((data[i + 1] as number) << 8) | ((data[i + 2] as number) << 16) | ((data[i + 3] as number) << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const rest = length & 3;
  if (rest === 3) h ^= (data[whole + 2] as number) << 16;
  if (rest >= 2) h ^= (data[whole + 1] as number) << 8;
  if (rest >= 1) {
    h ^= data[whole] as number;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** The partition the Java client picks for a key among `partitions`. */
export function javaPartition(key: Uint8Array, partitions: number): number {
  return (murmur2(key) & 0x7fffffff) % partitions;
}

/** The client takes the returned number modulo the topic's partition count. */
export function javaPartitioner(): Partitioner<Buffer, Buffer, Buffer, Buffer> {
  let next = 0;
  return (_message, key) => {
    if (key !== undefined && key.length > 0) return murmur2(key) & 0x7fffffff;
    next = (next + 1) & 0x7fffffff;
    return next;
  };
}
