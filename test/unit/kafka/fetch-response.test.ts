// The adapter's parser of Fetch v16/v17 answers against the client's own parser of the same bytes: Fetch
// answers written here by Kafka's wire format (record batch v2, the flexible Fetch response), cut into
// socket chunks at arbitrary places. The parsed answers must be the same, record by record in the client's
// shape; the messages the consumer adapter takes from them must be those it takes from the client's
// batches. The real broker's side is every consumer test in test/integration/kafka and test/integration/ingest.
import { createRecordsBatch, fetchV17, IS_CONTROL, IS_TRANSACTIONAL, Reader, ResponseError, Writer, type RecordsBatch } from '@platformatic/kafka';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FetchedBatch, parseFetchResponse } from '../../../src/kafka/platformatic/fetch-response.js';
import { takeRecords } from '../../../src/kafka/platformatic/fetched-records.js';
import { dropAbortedTransactions, type FetchedResponse } from '../../../src/kafka/platformatic/read-committed.js';
import type { IncomingMessage } from '../../../src/kafka/seam.js';

interface WireRecord {
  key: Buffer | null;
  value: Buffer | null;
  headers: [Buffer | null, Buffer | null][];
  timestampDelta: bigint;
}

interface WireBatch {
  firstOffset: bigint;
  firstTimestamp: bigint;
  records: WireRecord[];
  attributes?: number;
  producerId?: bigint;
  /** Bytes of the records section as written (for malformed batches); otherwise written from `records`. */
  recordBytes?: Buffer;
  /** The head's record count and length as written (for malformed batches); otherwise those of `records`. */
  count?: number;
  length?: number;
}

interface WirePartition {
  index: number;
  errorCode?: number;
  aborted?: { producerId: bigint; firstOffset: bigint }[] | null;
  /** null: no records at all; a Buffer: the records section as given (another encoder's batches, a cut batch). */
  batches: WireBatch[] | Buffer | null;
}

const unsignedVarInt = (n: bigint): Buffer => {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
};
const varInt = (n: number | bigint): Buffer => {
  const b = BigInt(n);
  return unsignedVarInt(b >= 0n ? b * 2n : -b * 2n - 1n);
};
const varBytes = (b: Buffer | null): Buffer => (b === null ? varInt(-1) : Buffer.concat([varInt(b.length), b]));
const int = (bytes: number, n: number | bigint): Buffer => {
  const b = Buffer.alloc(bytes);
  if (bytes === 8) b.writeBigInt64BE(BigInt(n));
  else if (bytes === 4) b.writeInt32BE(Number(n));
  else if (bytes === 2) b.writeInt16BE(Number(n));
  else b.writeInt8(Number(n));
  return b;
};

function recordBytes(r: WireRecord, offsetDelta: number): Buffer {
  const body = Buffer.concat([
    Buffer.from([0]),
    varInt(r.timestampDelta),
    varInt(offsetDelta),
    varBytes(r.key),
    varBytes(r.value),
    varInt(r.headers.length),
    ...r.headers.flatMap(([k, v]) => [varBytes(k), varBytes(v)]),
  ]);
  return Buffer.concat([varInt(body.length), body]);
}

function batchBytes(b: WireBatch): Buffer {
  const records = b.recordBytes ?? Buffer.concat(b.records.map((r, i) => recordBytes(r, i)));
  const afterLength = Buffer.concat([
    int(4, 0), // partition leader epoch
    int(1, 2), // magic
    int(4, 0), // CRC, which neither parser checks
    int(2, b.attributes ?? 0),
    int(4, Math.max(0, b.records.length - 1)),
    int(8, b.firstTimestamp),
    int(8, b.firstTimestamp),
    int(8, b.producerId ?? -1n),
    int(2, 0),
    int(4, 0),
    int(4, b.count ?? b.records.length),
    records,
  ]);
  return Buffer.concat([int(8, b.firstOffset), int(4, b.length ?? afterLength.length), afterLength]);
}

/** A Fetch v17 answer: topics by id, each with its partitions. */
function fetchAnswer(topics: { id: string; partitions: WirePartition[] }[], errorCode = 0): Buffer {
  const uuid = (id: string): Buffer => Buffer.from(id.replaceAll('-', ''), 'hex');
  const partition = (p: WirePartition): Buffer => {
    const records = p.batches === null ? null : Buffer.isBuffer(p.batches) ? p.batches : Buffer.concat(p.batches.map(batchBytes));
    const aborted = p.aborted ?? null;
    return Buffer.concat([
      int(4, p.index),
      int(2, p.errorCode ?? 0),
      int(8, 100n),
      int(8, 100n),
      int(8, 0n),
      aborted === null ? unsignedVarInt(0n) : Buffer.concat([unsignedVarInt(BigInt(aborted.length + 1)), ...aborted.map((a) => Buffer.concat([int(8, a.producerId), int(8, a.firstOffset), Buffer.from([0])]))]),
      int(4, -1),
      records === null ? unsignedVarInt(0n) : Buffer.concat([unsignedVarInt(BigInt(records.length + 1)), records]),
      Buffer.from([0]), // tagged fields
    ]);
  };
  return Buffer.concat([
    int(4, 0),
    int(2, errorCode),
    int(4, 7),
    unsignedVarInt(BigInt(topics.length + 1)),
    ...topics.map((t) => Buffer.concat([uuid(t.id), unsignedVarInt(BigInt(t.partitions.length + 1)), ...t.partitions.map(partition), Buffer.from([0])])),
    Buffer.from([0]),
  ]);
}

/** The answer as the connection hands it to a parser: a reader over the socket's chunks, cut at `cuts`. */
function readerOver(bytes: Buffer, cuts: readonly number[]): Reader {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks = Writer.create();
  let from = 0;
  for (const c of [...at, bytes.length]) {
    if (c > from) chunks.append(Buffer.from(bytes.subarray(from, c)));
    from = Math.max(from, c);
  }
  expect(chunks.buffers).toHaveLength(at.filter((c) => c > 0 && c < bytes.length).length + 1);
  return Reader.from(chunks);
}

const clientParse = (bytes: Buffer, cuts: readonly number[]): FetchedResponse => fetchV17.parseResponse(0, 1, 17, readerOver(bytes, cuts)) as unknown as FetchedResponse;
const ownParse = (bytes: Buffer, cuts: readonly number[]): FetchedResponse => parseFetchResponse(0, 1, 17, readerOver(bytes, cuts)) as FetchedResponse;

/** A batch as plain data, its records in the client's shape (read on demand from ours). */
const plainBatch = (b: RecordsBatch) => ({
  firstOffset: b.firstOffset,
  length: b.length,
  partitionLeaderEpoch: b.partitionLeaderEpoch,
  magic: b.magic,
  crc: b.crc,
  attributes: b.attributes,
  lastOffsetDelta: b.lastOffsetDelta,
  firstTimestamp: b.firstTimestamp,
  maxTimestamp: b.maxTimestamp,
  producerId: b.producerId,
  producerEpoch: b.producerEpoch,
  firstSequence: b.firstSequence,
  records: b.records,
});
const plainAnswer = (r: FetchedResponse) => ({
  ...r,
  responses: r.responses.map((t) => ({ ...t, partitions: t.partitions.map((p) => ({ ...p, records: p.records?.map(plainBatch) ?? p.records })) })),
});

/** What the consumer adapter takes of every partition, from `from` on, after the read-committed filter. */
function taken(r: FetchedResponse, from: bigint): IncomingMessage[][] {
  return r.responses.flatMap((t) =>
    t.partitions.map((p) => {
      dropAbortedTransactions(p);
      const out: IncomingMessage[] = [];
      takeRecords(p.records ?? [], from, out);
      return out;
    }),
  );
}

const TOPIC = '0f5c6b2e-9a41-4d0c-8f6e-2b1d3c4a5e6f';
const OTHER = 'a1b2c3d4-e5f6-4711-8899-aabbccddeeff';
const T0 = 1_764_000_000_000n;
const rec = (value: string | null, more: Partial<WireRecord> = {}): WireRecord => ({ key: null, value: value === null ? null : Buffer.from(value), headers: [], timestampDelta: 0n, ...more });
const commitMarker = (firstOffset: bigint, producerId: bigint, abort = false): WireBatch => ({
  firstOffset,
  firstTimestamp: T0,
  attributes: IS_CONTROL | IS_TRANSACTIONAL,
  producerId,
  records: [rec('\u0000\u0000\u0000\u0000\u0000\u0000', { key: Buffer.from([0, 0, 0, abort ? 0 : 1]) })],
});

const bytesArb = fc.option(fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)), { nil: null, freq: 5 });
const recordArb: fc.Arbitrary<WireRecord> = fc.record({
  key: bytesArb,
  value: bytesArb,
  // Names from a few common ones and arbitrary text: more distinct names than the parser keeps made.
  headers: fc.array(fc.tuple(fc.option(fc.oneof(fc.constantFrom('content-type', 'x', 'é', ''), fc.string({ maxLength: 6, unit: 'grapheme' })).map((s) => Buffer.from(s)), { nil: null, freq: 8 }), bytesArb), { maxLength: 4 }),
  timestampDelta: fc.bigInt({ min: -5_000n, max: 5_000_000n }),
});
const PRODUCERS = [7n, 8n] as const;
/** A plain data batch, a transactional one of one of two producers, or a marker ending one of their transactions. */
const batchArb = (firstOffset: bigint): fc.Arbitrary<WireBatch> => {
  const records = fc.array(recordArb, { minLength: 1, maxLength: 6 });
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ firstOffset: fc.constant(firstOffset), firstTimestamp: fc.constant(T0), records }) },
    { weight: 2, arbitrary: fc.record({ firstOffset: fc.constant(firstOffset), firstTimestamp: fc.constant(T0), records, attributes: fc.constant(IS_TRANSACTIONAL), producerId: fc.constantFrom(...PRODUCERS) }) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...PRODUCERS), fc.boolean()).map(([producer, abort]) => commitMarker(firstOffset, producer, abort)) },
  );
};
const partitionArb = (index: number): fc.Arbitrary<WirePartition> =>
  fc.array(fc.nat({ max: 3 }), { minLength: 1, maxLength: 4 }).chain((gaps) => {
    let next = 40n;
    const starts = gaps.map((g) => {
      const at = next + BigInt(g);
      next = at + 10n;
      return at;
    });
    const aborted = fc.option(fc.array(fc.record({ producerId: fc.constantFrom(...PRODUCERS), firstOffset: fc.constantFrom(...starts) }), { maxLength: 2 }), { nil: null });
    return fc.tuple(fc.tuple(...starts.map(batchArb)), aborted).map(([batches, abortedTransactions]) => ({ index, batches, aborted: abortedTransactions }));
  });

describe('parseFetchResponse', () => {
  it('should read every answer as the client does, and hand over the messages the client-shaped batches give, at any cuts into socket chunks', () => {
    fc.assert(
      fc.property(
        fc.array(partitionArb(0), { minLength: 1, maxLength: 2 }),
        fc.array(fc.nat({ max: 5_000 }), { maxLength: 12 }),
        fc.bigInt({ min: 38n, max: 60n }),
        (partitions, cuts, from) => {
          const bytes = fetchAnswer([{ id: TOPIC, partitions: partitions.map((p, i) => ({ ...p, index: i })) }]);
          const own = ownParse(bytes, cuts);
          expect(own.responses[0]?.partitions[0]?.records?.[0]).toBeInstanceOf(FetchedBatch);
          expect(taken(own, from)).toEqual(taken(clientParse(bytes, cuts), from));
          expect(plainAnswer(ownParse(bytes, cuts))).toEqual(plainAnswer(clientParse(bytes, cuts)));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('should hand over headers by name, a null key and value, an empty header name and several values under one name', () => {
    const headers: [Buffer | null, Buffer | null][] = [
      [Buffer.from('content-type'), Buffer.from('application/json')],
      [Buffer.from('x'), Buffer.from('1')],
      [Buffer.from('x'), null],
      [null, Buffer.from('n')],
    ];
    const bytes = fetchAnswer([{ id: TOPIC, partitions: [{ index: 3, batches: [{ firstOffset: 10n, firstTimestamp: T0, records: [rec(null, { key: Buffer.alloc(0), headers, timestampDelta: 5n }), rec('v')] }] }] }]);
    const [[first, second] = []] = taken(ownParse(bytes, [200]), 0n);
    expect(first).toEqual({ key: Buffer.alloc(0), value: null, offset: '10', timestamp: String(T0 + 5n), headers: { 'content-type': Buffer.from('application/json'), x: [Buffer.from('1'), undefined], '': Buffer.from('n') } });
    expect(second).toEqual({ key: null, value: Buffer.from('v'), offset: '11', timestamp: String(T0), headers: undefined });
  });

  it('should drop the records of aborted transactions and keep the commit markers, as the client-shaped batches do', () => {
    const bytes = fetchAnswer([
      {
        id: TOPIC,
        partitions: [
          {
            index: 0,
            aborted: [{ producerId: 7n, firstOffset: 0n }],
            batches: [
              { firstOffset: 0n, firstTimestamp: T0, attributes: IS_TRANSACTIONAL, producerId: 7n, records: [rec('aborted-1'), rec('aborted-2')] },
              commitMarker(2n, 7n, true),
              { firstOffset: 3n, firstTimestamp: T0, attributes: IS_TRANSACTIONAL, producerId: 8n, records: [rec('committed')] },
              commitMarker(4n, 8n),
              { firstOffset: 5n, firstTimestamp: T0, records: [rec('plain')] },
            ],
          },
        ],
      },
    ]);
    const own = ownParse(bytes, [90, 91, 300]);
    expect(taken(own, 0n)[0]?.map((m) => m.value?.toString())).toEqual(['committed', 'plain']);
    expect(taken(clientParse(bytes, [90, 91, 300]), 0n)[0]?.map((m) => m.value?.toString())).toEqual(['committed', 'plain']);
    // The markers keep their records for the client's stream, which moves its fetch offset past them.
    expect(own.responses[0]?.partitions[0]?.records?.map((b) => b.records.length)).toEqual([0, 1, 0, 1, 0]);
  });

  it('should leave a compressed batch to the client, and stop before a batch the fetch cut short', () => {
    const compressed = createRecordsBatch([{ topic: 't', partition: 0, key: Buffer.from('k'), value: Buffer.from('squeezed'), timestamp: T0 }], { compression: 'gzip' }).buffer;
    compressed.writeBigInt64BE(20n, 0);
    const whole = batchBytes({ firstOffset: 21n, firstTimestamp: T0, records: [rec('whole')] });
    const cut = batchBytes({ firstOffset: 22n, firstTimestamp: T0, records: [rec('cut short')] }).subarray(0, 70);
    const bytes = fetchAnswer([{ id: TOPIC, partitions: [{ index: 0, batches: Buffer.concat([compressed, whole, cut]) }] }]);
    const own = ownParse(bytes, [33, 120]);
    expect(own.responses[0]?.partitions[0]?.records?.map((b) => b instanceof FetchedBatch)).toEqual([false, true]);
    expect(taken(own, 0n)[0]?.map((m) => [m.offset, m.value?.toString()])).toEqual([
      ['20', 'squeezed'],
      ['21', 'whole'],
    ]);
    expect(plainAnswer(ownParse(bytes, [33, 120]))).toEqual(plainAnswer(clientParse(bytes, [33, 120])));
  });

  it('should read offsets and timestamps beyond 2^53 exactly, through the client-shaped records', () => {
    const big = 2n ** 60n;
    const bytes = fetchAnswer([{ id: TOPIC, partitions: [{ index: 0, batches: [{ firstOffset: big, firstTimestamp: T0, records: [rec('a'), rec('b')] }] }] }]);
    const own = ownParse(bytes, []);
    expect((own.responses[0]?.partitions[0]?.records?.[0] as FetchedBatch).messages).toBeUndefined();
    expect(taken(own, big + 1n)[0]?.map((m) => m.offset)).toEqual([String(big + 1n)]);

    // A delta this far below zero lands in Number's safe range, but is not exact as a Number on its own.
    const farBack = -(2n ** 52n) - 1n;
    const early = fetchAnswer([{ id: TOPIC, partitions: [{ index: 0, batches: [{ firstOffset: 0n, firstTimestamp: T0, records: [rec('a', { timestampDelta: farBack })] }] }] }]);
    expect(taken(ownParse(early, []), 0n)[0]?.map((m) => m.timestamp)).toEqual([String(T0 + farBack)]);
  });

  it('should answer null records, several topics, and an error as the client does', () => {
    const bytes = fetchAnswer([
      { id: TOPIC, partitions: [{ index: 0, batches: null }] },
      { id: OTHER, partitions: [{ index: 1, batches: [{ firstOffset: 0n, firstTimestamp: T0, records: [rec('o')] }] }] },
    ]);
    expect(plainAnswer(ownParse(bytes, [17]))).toEqual(plainAnswer(clientParse(bytes, [17])));
    expect(taken(ownParse(bytes, [17]), 0n).map((ms) => ms.map((m) => m.value?.toString()))).toEqual([[], ['o']]);

    const failed = fetchAnswer([{ id: TOPIC, partitions: [{ index: 0, errorCode: 6, batches: null }] }]);
    const error = (parse: () => unknown): ResponseError => {
      try {
        parse();
      } catch (e) {
        return e as ResponseError;
      }
      throw new Error('the answer was not refused');
    };
    const own = error(() => ownParse(failed, []));
    const client = error(() => clientParse(failed, []));
    expect(own).toBeInstanceOf(ResponseError);
    expect(own.errors.map((e) => (e as { apiCode?: number }).apiCode)).toEqual(client.errors.map((e) => (e as { apiCode?: number }).apiCode));
    expect(own.message).toBe(client.message);
  });

  it('should hand over headers named like the properties of every object as they are', () => {
    const headers: [Buffer, Buffer][] = ['__proto__', 'toString', 'constructor', 'hasOwnProperty'].map((n, i) => [Buffer.from(n), Buffer.from(String(i))]);
    const bytes = fetchAnswer([{ id: TOPIC, partitions: [{ index: 0, batches: [{ firstOffset: 0n, firstTimestamp: T0, records: [rec('v', { headers })] }] }] }]);
    for (const parse of [ownParse, clientParse]) {
      const [[m] = []] = taken(parse(bytes, []), 0n);
      const got = m?.headers ?? {};
      expect(Object.keys(got)).toEqual(['__proto__', 'toString', 'constructor', 'hasOwnProperty']);
      expect(Object.getPrototypeOf(got)).toBe(Object.prototype);
      expect(Object.values(got).map((v) => String(v))).toEqual(['0', '1', '2', '3']);
    }
  });

  // The client catches what its parser throws and fetches again; what is read later, in the fetch's
  // callback, is outside that catch. So a malformed batch must be refused inside the parser.
  it('should refuse, inside the parser, a batch shorter than its own head', () => {
    const bytes = fetchAnswer([{ id: TOPIC, partitions: [{ index: 0, batches: [{ ...commitMarker(0n, 7n), length: 0 }, { firstOffset: 1n, firstTimestamp: T0, records: [rec('after')] }] }] }]);
    expect(() => ownParse(bytes, [])).toThrow(/batch/);
  });

  it('should refuse, inside the parser, a control batch whose records run past it', () => {
    const bytes = fetchAnswer([{ id: TOPIC, partitions: [{ index: 0, batches: [{ ...commitMarker(0n, 7n), count: 1_000_000 }] }] }]);
    expect(() => clientParse(bytes, [])).toThrow();
    expect(() => ownParse(bytes, [])).toThrow();
  });

  it('should refuse, inside the parser, a batch read through the client-shaped records whose records run past it', () => {
    // An offset delta beyond 2^53 sends the batch to the client-shaped records; its second record is cut short.
    const far = Buffer.concat([Buffer.from([0]), varInt(0), varInt(2n ** 60n), varBytes(null), varBytes(Buffer.from('a')), varInt(0)]);
    const records = Buffer.concat([varInt(far.length), far, varInt(50), Buffer.alloc(5)]);
    const bytes = fetchAnswer([{ id: TOPIC, partitions: [{ index: 0, batches: [{ firstOffset: 0n, firstTimestamp: T0, records: [rec('a'), rec('b')], recordBytes: records }] }] }]);
    expect(() => clientParse(bytes, [])).toThrow();
    expect(() => ownParse(bytes, [])).toThrow();
  });

  it('should refuse a record that runs past the end of its batch', () => {
    const good = recordBytes(rec('fine'), 0);
    const runsOver = Buffer.concat([varInt(200), Buffer.alloc(10)]);
    const bytes = fetchAnswer([{ id: TOPIC, partitions: [{ index: 0, batches: [{ firstOffset: 0n, firstTimestamp: T0, records: [rec('fine'), rec('x')], recordBytes: Buffer.concat([good, runsOver]) }] }] }]);
    expect(() => ownParse(bytes, [])).toThrow(/runs past the end of its batch/);
  });
});
