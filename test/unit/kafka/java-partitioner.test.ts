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

  // Partitions the Java client's rule (toPositive(murmur2(key)) % partitions) picks, as computed by kafkajs
  // 2.2.4's DefaultPartitioner, an implementation of that rule of its own.
  const JAVA_PARTITIONS: ReadonlyArray<[string, number, number]> = [
    ['ev_01JD000000000000000000000A', 6, 3],
    ['ev_01JD000000000000000000000B', 6, 3],
    ['foobar', 7, 0],
    ['21', 12, 0],
    ['abc', 3, 0],
    ['a-little-bit-long-string', 12, 8],
    ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', 6, 5],
    ['192.0.2.7', 6, 2],
    ['ed_1', 2, 1],
    ['k', 7, 1],
  ];

  it.each(JAVA_PARTITIONS)('puts key %j of %i partitions on partition %i, as the Java client does', (key, partitions, expected) => {
    expect(javaPartition(Buffer.from(key), partitions)).toBe(expected);
  });

  it('differs from the client\'s own default (unsigned murmur2) for keys whose hash is negative', () => {
    const key = Buffer.from('foobar');
    expect(murmur2(key)).toBeLessThan(0);
    expect(javaPartition(key, 6)).toBe((-790332482 & 0x7fffffff) % 6);
    expect(javaPartition(key, 6)).not.toBe((-790332482 >>> 0) % 6);
  });
});
