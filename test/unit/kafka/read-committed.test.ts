// The aborted-transaction filter over fetched batches, on batches built by hand: Kafka's rule (a producer
// listed as aborting at an offset drops its transactional batches until its abort marker) in the cases the
// client's own filter got wrong. The real broker's side is test/integration/kafka/read-committed.test.ts.
import { IS_CONTROL, IS_TRANSACTIONAL, type RecordsBatch } from '@platformatic/kafka';
import { describe, expect, it } from 'vitest';
import { dropAbortedTransactions, type FetchedPartition } from '../../../src/kafka/platformatic/read-committed.js';

const batchBase = { length: 0, partitionLeaderEpoch: 0, magic: 2, crc: 0, firstTimestamp: 0n, maxTimestamp: 0n, producerEpoch: 0, firstSequence: 0 };

/** A batch of records (one offset each) from `producer`, transactional unless said otherwise. */
function data(offset: number, producer: number, values: readonly string[], transactional = true): RecordsBatch {
  return {
    ...batchBase,
    firstOffset: BigInt(offset),
    lastOffsetDelta: values.length - 1,
    attributes: transactional ? IS_TRANSACTIONAL : 0,
    producerId: BigInt(producer),
    records: values.map((v, i) => ({ length: 0, attributes: 0, timestampDelta: 0n, offsetDelta: i, key: null, value: Buffer.from(v), headers: [] })),
  };
}

/** A control batch: the key is a version (int16) and a type (int16, 0 abort, 1 commit). */
function marker(offset: number, producer: number, type: 'abort' | 'commit'): RecordsBatch {
  const key = Buffer.from([0, 0, 0, type === 'abort' ? 0 : 1]);
  return {
    ...batchBase,
    firstOffset: BigInt(offset),
    lastOffsetDelta: 0,
    attributes: IS_TRANSACTIONAL | IS_CONTROL,
    producerId: BigInt(producer),
    records: [{ length: 0, attributes: 0, timestampDelta: 0n, offsetDelta: 0, key, value: Buffer.alloc(6), headers: [] }],
  };
}

function filtered(records: RecordsBatch[], aborted: ReadonlyArray<[producer: number, firstOffset: number]>): { values: string[]; partition: FetchedPartition } {
  const partition: FetchedPartition = { records, abortedTransactions: aborted.map(([p, o]) => ({ producerId: BigInt(p), firstOffset: BigInt(o) })) };
  dropAbortedTransactions(partition);
  const values = (partition.records ?? []).filter((b) => (b.attributes & IS_CONTROL) === 0).flatMap((b) => b.records.map((r) => r.value?.toString() ?? ''));
  return { values, partition };
}

describe('dropping the records of aborted transactions from a fetch', () => {
  it("should drop every aborted transaction of one producer id, not only its last, and keep its committed one", () => {
    const records = [data(0, 7, ['a1', 'a2']), marker(2, 7, 'abort'), data(3, 7, ['b']), marker(4, 7, 'abort'), data(5, 7, ['kept']), marker(6, 7, 'commit')];
    // Listed out of offset order: the filter must not depend on the broker's order.
    expect(filtered(records, [[7, 3], [7, 0]]).values).toEqual(['kept']);
  });

  it("should drop an aborted transaction's records when its abort marker is beyond the fetch", () => {
    expect(filtered([data(10, 7, ['a1', 'a2']), data(12, 7, ['a3'])], [[7, 10]]).values).toEqual([]);
  });

  it("should keep another producer's records in the middle of an aborted transaction, and a producer's commit before its abort", () => {
    const records = [data(0, 7, ['committed-7']), marker(1, 7, 'commit'), data(2, 7, ['aborted-7']), data(3, 8, ['committed-8']), data(4, 9, ['plain'], false), data(5, 7, ['aborted-7b']), marker(6, 7, 'abort'), marker(7, 8, 'commit')];
    expect(filtered(records, [[7, 2]]).values).toEqual(['committed-7', 'committed-8', 'plain']);
  });

  it("should keep dropping one producer's aborted records after another producer's abort marker", () => {
    const records = [data(0, 7, ['a7']), data(1, 8, ['a8']), marker(2, 7, 'abort'), data(3, 8, ['a8b']), marker(4, 8, 'abort'), data(5, 7, ['kept'])];
    expect(filtered(records, [[7, 0], [8, 1]]).values).toEqual(['kept']);
  });

  it("should keep every batch, emptied, so the client's fetch offset moves past them, and leave the client's own filter nothing to do", () => {
    const records = [data(0, 7, ['a']), marker(1, 7, 'abort')];
    const { partition } = filtered(records, [[7, 0]]);
    expect(partition.records?.map((b) => [b.firstOffset, b.records.length])).toEqual([
      [0n, 0],
      [1n, 1],
    ]);
    expect(partition.abortedTransactions).toEqual([]);
  });

  it('should leave a fetch without aborted transactions as it is', () => {
    expect(filtered([data(0, 7, ['x']), marker(1, 7, 'commit'), data(2, 9, ['y'], false)], []).values).toEqual(['x', 'y']);
  });
});
