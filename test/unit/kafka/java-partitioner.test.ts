import { Partitioners } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { javaPartition, murmur2 } from '../../../src/kafka/platformatic/java-partitioner.js';

// Kafka's own test vectors for Utils.murmur2 (clients/src/test/java/org/apache/kafka/common/utils/UtilsTest.java).
const JAVA_MURMUR2: ReadonlyArray<[string, number]> = [
  ['21', -973932308],
  ['foobar', -790332482],
  ['a-little-bit-long-string', -985981536],
  ['a-little-bit-longer-string', -1486304829],
  ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
  ['abc', 479470107],
];

describe('the Java partitioner for @platformatic/kafka', () => {
  it.each(JAVA_MURMUR2)('hashes %j as the Java client does', (key, expected) => {
    expect(murmur2(Buffer.from(key))).toBe(expected);
  });

  it('puts every key on the partition kafkajs\'s Java-compatible partitioner picks', () => {
    const kafkajs = Partitioners.DefaultPartitioner();
    for (const partitions of [1, 2, 3, 6, 7, 12]) {
      const meta = { topic: 't', partitionMetadata: Array.from({ length: partitions }, (_, i) => ({ partitionId: i, leader: 0, replicas: [0], isr: [0], partitionErrorCode: 0 })) };
      for (let i = 0; i < 500; i++) {
        const key = Buffer.from(`ev_${i.toString(36)}-${i * 7919}`);
        expect(javaPartition(key, partitions)).toBe(kafkajs({ ...meta, message: { key, value: null } }));
      }
    }
  });

  it('differs from the client\'s own default (unsigned murmur2) for keys whose hash is negative', () => {
    const key = Buffer.from('foobar');
    expect(murmur2(key)).toBeLessThan(0);
    expect(javaPartition(key, 6)).toBe((-790332482 & 0x7fffffff) % 6);
    expect(javaPartition(key, 6)).not.toBe((-790332482 >>> 0) % 6);
  });
});
