// The adapter's Produce request encoder against the client's own (@platformatic/kafka's createRequest of
// Produce v9 to v11): the same bytes for the same messages and options, and batches the client's reader
// reads back. The real broker takes them in test/integration/kafka and the kafka writer's tests.
import { crc32c, NumericMap, produceV11, Reader, readRecordsBatch, type MessageRecord } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { encodeProduceRequest } from '../../../src/kafka/platformatic/produce-request.js';

const T0 = 1_764_000_000_000n;

/** Fresh messages each time: both encoders fill in missing partitions and timestamps. */
function messages(): MessageRecord[] {
  const header = new Map([[Buffer.from('content-type'), Buffer.from('application/json')]]);
  return [
    { topic: 'events', partition: 2, key: Buffer.from('k1'), value: Buffer.from('{"a":1}'), headers: header, timestamp: T0 },
    { topic: 'events', partition: 0, key: Buffer.from(''), value: Buffer.alloc(300, 7), timestamp: T0 + 5n },
    { topic: 'events', partition: 2, value: Buffer.from('no key'), headers: new Map(), timestamp: T0 - 70_000n },
    { topic: 'other', partition: 1, key: Buffer.from('k'), value: null as unknown as Buffer, timestamp: T0 + 3_000_000_000n },
    { topic: 'events', partition: 2, key: Buffer.alloc(200, 1), value: Buffer.from(''), headers: new Map([[Buffer.from('a'), Buffer.from('1')], [Buffer.from('b'), Buffer.alloc(130, 2)]]), timestamp: T0 },
    { topic: '17', value: Buffer.from('a topic named by digits, no partition'), timestamp: T0 },
    // A header given twice: two keys with the same bytes, as the adapter's header map writes it.
    { topic: 'events', partition: 2, value: Buffer.from('hops'), headers: new Map([[Buffer.from('x-hop'), Buffer.from('edge-1')], [Buffer.from('x-hop'), Buffer.from('edge-2')]]), timestamp: T0 },
  ];
}

const bytes = (w: { buffer: Buffer }): string => w.buffer.toString('hex');

describe('encodeProduceRequest', () => {
  it('should write the bytes the client writes, for plain, idempotent and transactional producers', () => {
    const sequences = (): NumericMap => new NumericMap([['events:2', 41], ['other:1', 2_147_483_000]]);
    const cases = [
      {},
      { producerId: 4_000_000_000_123n, producerEpoch: 3, sequences: sequences() },
      { producerId: 7n, producerEpoch: 0, sequences: sequences(), transactionalId: 'edge-events-config-writer', partitionLeaderEpoch: 5 },
    ];
    for (const options of cases) {
      for (const acks of [-1, 1, 0]) {
        expect(bytes(encodeProduceRequest(acks, 30_000, messages(), options))).toBe(bytes(produceV11.createRequest(acks, 30_000, messages(), options)));
      }
    }
  });

  it('should mark a request with acks 0 as answered by nothing, as the client does', () => {
    expect(encodeProduceRequest(0, 1_000, messages()).context.noResponse).toBe(true);
    expect(encodeProduceRequest(-1, 1_000, messages()).context.noResponse).toBeUndefined();
  });

  it('should give messages without a timestamp the time of the request, kept for a retry of it', () => {
    const before = BigInt(Date.now());
    const sent: MessageRecord[] = [{ topic: 't', partition: 0, value: Buffer.from('a') }, { topic: 't', partition: 0, value: Buffer.from('b'), timestamp: T0 }];
    const first = bytes(encodeProduceRequest(-1, 1_000, sent));
    expect(sent[0]?.timestamp).toBeGreaterThanOrEqual(before);
    expect(sent[0]?.timestamp).toBeLessThanOrEqual(BigInt(Date.now()));
    expect(bytes(encodeProduceRequest(-1, 1_000, sent))).toBe(first);
  });

  it('should write a batch of a thousand records that the client reads back with its CRC', () => {
    const many: MessageRecord[] = Array.from({ length: 1_000 }, (_, i) => ({ topic: 't', partition: 3, key: Buffer.from(`key-${i}`), value: Buffer.alloc(i % 400, i & 0xff), timestamp: T0 + BigInt(i * 17) }));
    const request = encodeProduceRequest(-1, 1_000, many, { producerId: 9n, producerEpoch: 1, sequences: new NumericMap([['t:3', 12]]) }).buffer;
    // acks, timeout, then one topic of one partition: name, partition index, the batch's length.
    const reader = Reader.from(request);
    expect(reader.readUnsignedVarInt()).toBe(0); // no transactional id
    reader.skip(6);
    expect(reader.readUnsignedVarInt()).toBe(2);
    expect(reader.readString()).toBe('t');
    expect(reader.readUnsignedVarInt()).toBe(2);
    expect(reader.readInt32()).toBe(3);
    const length = reader.readUnsignedVarInt() - 1;
    const batch = readRecordsBatch(Reader.from(request.subarray(reader.position, reader.position + length)));
    expect(batch.records).toHaveLength(1_000);
    expect(batch.firstSequence).toBe(12);
    expect(batch.maxTimestamp).toBe(T0 + 999n * 17n);
    expect(batch.records.map((r) => [r.key?.toString(), r.value?.length, batch.firstTimestamp + r.timestampDelta])).toEqual(many.map((m) => [m.key?.toString(), m.value.length, m.timestamp]));
    expect(crc32c(request.subarray(reader.position + 21, reader.position + length))).toBe(batch.crc);
    expect(request.toString('hex')).toBe(bytes(produceV11.createRequest(-1, 1_000, many, { producerId: 9n, producerEpoch: 1, sequences: new NumericMap([['t:3', 12]]) })));
  });
});
