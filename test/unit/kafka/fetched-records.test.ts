// The consumer adapter's reading of fetched record batches (fetched-records.ts), on batches built by hand:
// what the client's message stream would hand over (data records from the fetched offset on, headers by
// name), and emptied batches so the stream hands over nothing twice. The real broker's side is every
// consumer test in test/integration/kafka and test/integration/ingest.
import { IS_CONTROL, IS_TRANSACTIONAL, type RecordsBatch } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { takeRecords } from '../../../src/kafka/platformatic/fetched-records.js';
import type { IncomingMessage } from '../../../src/kafka/seam.js';

const T0 = 1_764_000_000_000n;
const batchBase = { length: 0, partitionLeaderEpoch: 0, magic: 2, crc: 0, producerId: -1n, producerEpoch: 0, firstSequence: 0 };
type Records = RecordsBatch['records'];

function batch(firstOffset: bigint, records: Records, attributes = 0, firstTimestamp = T0): RecordsBatch {
  return { ...batchBase, firstOffset, firstTimestamp, maxTimestamp: firstTimestamp, lastOffsetDelta: Math.max(0, records.length - 1), attributes, records };
}

const record = (offsetDelta: number, value: string | null, more: Partial<Records[number]> = {}): Records[number] => ({
  length: 0,
  attributes: 0,
  timestampDelta: BigInt(offsetDelta * 10),
  offsetDelta,
  key: null,
  value: value === null ? null : Buffer.from(value),
  headers: [],
  ...more,
});

const taken = (batches: RecordsBatch[], from: bigint): IncomingMessage[] => {
  const out: IncomingMessage[] = [];
  takeRecords(batches, from, out);
  return out;
};

describe('takeRecords', () => {
  it('should take data records from the fetched offset on, with their offsets and timestamps, and empty their batches', () => {
    const batches = [batch(100n, [record(0, 'a'), record(1, 'b'), record(2, 'c')]), batch(103n, [record(0, 'd', { key: Buffer.from('k') })], 0, T0 + 5n)];
    const out = taken(batches, 101n);
    expect(out.map((m) => [m.offset, m.timestamp, m.value?.toString(), m.key?.toString() ?? null])).toEqual([
      ['101', String(T0 + 10n), 'b', null],
      ['102', String(T0 + 20n), 'c', null],
      ['103', String(T0 + 5n), 'd', 'k'],
    ]);
    expect(batches.map((b) => b.records.length)).toEqual([0, 0]);
    // The batches keep what the client moves its fetch offset by.
    expect(batches.map((b) => b.firstOffset + BigInt(b.lastOffsetDelta))).toEqual([102n, 103n]);
  });

  it('should skip control batches and keep their markers for the client', () => {
    const marker = batch(5n, [record(0, null, { key: Buffer.from([0, 0, 0, 1]) })], IS_CONTROL | IS_TRANSACTIONAL);
    const batches = [batch(3n, [record(0, 'x'), record(1, 'y')], IS_TRANSACTIONAL), marker];
    expect(taken(batches, 0n).map((m) => m.value?.toString())).toEqual(['x', 'y']);
    expect(marker.records).toHaveLength(1);
  });

  it('should hand over a null value, an empty key and headers by name, several values under one name as a list', () => {
    const headers: Records[number]['headers'] = [
      [Buffer.from('content-type'), Buffer.from('application/json')],
      [Buffer.from('x'), Buffer.from('1')],
      [Buffer.from('x'), Buffer.from('2')],
      [Buffer.from('x'), Buffer.from('3')],
    ];
    const [m] = taken([batch(0n, [record(0, null, { key: Buffer.alloc(0), headers })])], 0n);
    expect(m?.value).toBeNull();
    expect(m?.key).toEqual(Buffer.alloc(0));
    expect(m?.headers).toEqual({ 'content-type': Buffer.from('application/json'), x: [Buffer.from('1'), Buffer.from('2'), Buffer.from('3')] });
    expect(taken([batch(0n, [record(0, 'v')])], 0n)[0]?.headers).toBeUndefined();
  });

  it('should keep offsets exact beyond 2^53', () => {
    const big = 2n ** 60n;
    expect(taken([batch(big, [record(0, 'a'), record(1, 'b')])], big + 1n).map((m) => m.offset)).toEqual([String(big + 1n)]);
  });
});
