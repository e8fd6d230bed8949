// Fetch answers for @platformatic/kafka parsed by the adapter. The client reads every record through a
// reader over the socket's chunks that finds its chunk from the first one and returns an array for every
// varint, and builds a record object, a bigint and a header array of its own for each: about 2.5 µs a
// JSON record, the largest part of its consuming side (PROFILE.md "Fetch answers parsed by the adapter").
// This parser reads the answer's fields as the client's does and reads each record batch straight from the
// socket's chunks into the seam's messages (a record across two chunks is copied, as the client copies
// it), which the consumer adapter takes (fetched-records.ts). The client's shape of the records is made
// only when something asks for it: the client's own message stream, a control marker's key.
import {
  Reader,
  readKnownTaggedFields,
  readRecord,
  readRecordsBatch,
  ResponseError,
  createAPI,
  fetchV16,
  fetchV17,
  IS_COMPRESSED,
  IS_CONTROL,
  type API,
  type RecordsBatch,
} from '@platformatic/kafka';
import type { HeaderValue, IncomingMessage } from '../seam.js';

type DynamicBuffer = Reader['buffer'];

type Records = RecordsBatch['records'];
type AnyApi = API<unknown[], unknown>;

/** Record batch v2: base offset (8) and length (4), then the rest of its head; records follow at 61. */
const BATCH_HEAD = 12;
const RECORDS_AT = 61;

/**
 * Adds a header under its name; several values under one name become a list, in their order. A name is
 * only ever an own property (`toString` is not the inherited function, `__proto__` not the prototype).
 */
export function addHeader(out: Record<string, HeaderValue>, name: string, value: Buffer | undefined): void {
  const prev = Object.hasOwn(out, name) ? out[name] : undefined;
  const next = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev as Buffer]), value as Buffer];
  if (name === '__proto__') Object.defineProperty(out, name, { value: next, enumerable: true, writable: true, configurable: true });
  else out[name] = next;
}

const malformed = (what = 'A fetched record runs past the end of its batch.'): RangeError => new RangeError(what);

/**
 * A cursor over the socket chunks that hold one partition's records, in order: a run of bytes within one
 * chunk is read as a view of it, one across two chunks (a batch head, a record now and then) as a copy.
 */
class ChunkCursor {
  private chunk = 0;
  private at = 0;
  /** Bytes from the cursor to the end of the region. */
  left: number;

  constructor(private readonly chunks: readonly Buffer[]) {
    this.left = chunks.reduce((n, c) => n + c.length, 0);
    this.skip(0);
  }

  /** The current chunk, when the next `n` bytes lie in it (from `offset` on); otherwise undefined. */
  within(n: number): Buffer | undefined {
    const c = this.chunks[this.chunk];
    return c !== undefined && this.at + n <= c.length ? c : undefined;
  }

  /** The cursor's place in the current chunk. */
  get offset(): number {
    return this.at;
  }

  /** The next `n` bytes without moving: a view when they lie in one chunk, a copy otherwise. */
  peek(n: number): Buffer {
    const c = this.within(n);
    if (c !== undefined) return c.subarray(this.at, this.at + n);
    const out = Buffer.allocUnsafe(n);
    let chunk = this.chunk;
    let at = this.at;
    for (let written = 0; written < n; chunk++, at = 0) {
      const from = this.chunks[chunk] as Buffer;
      written += from.copy(out, written, at, Math.min(from.length, at + n - written));
    }
    return out;
  }

  /** Moves `n` bytes on, past every chunk it reaches the end of. */
  skip(n: number): void {
    if (!(n >= 0 && n <= this.left)) throw malformed();
    this.left -= n;
    this.at += n;
    while (this.chunk < this.chunks.length && this.at >= (this.chunks[this.chunk] as Buffer).length) {
      this.at -= (this.chunks[this.chunk] as Buffer).length;
      this.chunk++;
    }
  }

  take(n: number): Buffer {
    if (n > this.left) throw malformed();
    const bytes = this.peek(n);
    this.skip(n);
    return bytes;
  }

  /** An unsigned varint of at most five bytes (a record's length, zigzagged). */
  length(): number {
    let n = 0;
    let scale = 1;
    for (let i = 0; i < 5; i++) {
      if (this.left === 0) throw malformed();
      const byte = (this.chunks[this.chunk] as Buffer)[this.at] as number;
      this.skip(1);
      n += (byte & 0x7f) * scale;
      if (byte < 0x80) return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
      scale *= 0x80;
    }
    throw malformed();
  }
}

/** A cursor over one record's bytes (`buf` from `at` to `end`), reading Kafka's zigzag varints and varlongs as Numbers. */
class RecordCursor {
  buf: Buffer = Buffer.alloc(0);
  at = 0;
  end = 0;

  /** Exact below 2^53 in magnitude, NaN beyond; a varint past the end is malformed. */
  varint(): number {
    const buf = this.buf;
    let at = this.at;
    if (at >= this.end) throw malformed();
    let byte = buf[at++] as number;
    let n = byte & 0x7f;
    let scale = 0x80;
    while (byte >= 0x80) {
      if (at >= this.end) throw malformed();
      byte = buf[at++] as number;
      n += (byte & 0x7f) * scale;
      scale *= 0x80;
    }
    this.at = at;
    if (n > Number.MAX_SAFE_INTEGER) return Number.NaN;
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
  }

  /** Bytes behind a varint length, as a view; null for a negative length. */
  bytes(): Buffer | null {
    const length = this.varint();
    if (length < 0) return null;
    const start = this.at;
    if (!(start + length <= this.end)) throw malformed();
    this.at = start + length;
    return this.buf.subarray(start, this.at);
  }

  /** A header name: UTF-8 text behind a varint length; '' for a negative length (as the client's consumer). */
  name(): string {
    const length = this.varint();
    if (length < 0) return '';
    const start = this.at;
    if (!(start + length <= this.end)) throw malformed();
    this.at = start + length;
    return headerName(this.buf, start, length);
  }
}

/**
 * Header names read before, by their bytes: a record's name (content-type, mostly) is the string made for
 * the first record that had it, not a new one V8 must look up again to use as a key (half the cost of
 * reading a JSON record here, bench/profile/fetch-parse.ts).
 */
const NAMES: { readonly bytes: Buffer; readonly text: string }[] = [];
const MAX_NAMES = 32;

function headerName(buf: Buffer, start: number, length: number): string {
  next: for (const n of NAMES) {
    if (n.bytes.length !== length) continue;
    for (let i = 0; i < length; i++) if (n.bytes[i] !== buf[start + i]) continue next;
    return n.text;
  }
  const text = buf.toString('utf8', start, start + length);
  if (NAMES.length < MAX_NAMES && length <= 64) NAMES.push({ bytes: Buffer.from(buf.subarray(start, start + length)), text });
  return text;
}

/**
 * The `count` records of a data batch as the seam's messages, or undefined when an offset or a timestamp
 * is not exact as a Number (the client's bigints are read then); leaves `chunks` at the batch's end.
 */
function readMessages(chunks: ChunkCursor, recordsLength: number, count: number, firstOffset: number, firstTimestamp: number): IncomingMessage[] | undefined {
  const end = chunks.left - recordsLength;
  const messages: IncomingMessage[] = new Array(count);
  const c = new RecordCursor();
  for (let i = 0; i < count; i++) {
    const length = chunks.length();
    if (!(length >= 0 && chunks.left - length >= end)) throw malformed();
    const chunk = chunks.within(length);
    if (chunk !== undefined) {
      c.buf = chunk;
      c.at = chunks.offset;
    } else {
      c.buf = chunks.peek(length);
      c.at = 0;
    }
    c.end = c.at + length;
    chunks.skip(length);
    c.at++; // attributes
    const timestamp = firstTimestamp + c.varint();
    const offset = firstOffset + c.varint();
    if (!Number.isSafeInteger(timestamp) || !Number.isSafeInteger(offset)) {
      chunks.skip(chunks.left - end);
      return undefined;
    }
    const key = c.bytes();
    const value = c.bytes();
    const headerCount = c.varint();
    let headers: Record<string, HeaderValue> | undefined;
    for (let h = 0; h < headerCount; h++) {
      const name = c.name();
      addHeader((headers ??= {}), name, c.bytes() ?? undefined);
    }
    messages[i] = { key, value, offset: String(offset), timestamp: String(timestamp), headers };
  }
  // The batch's length, not its count, says where the next batch begins.
  if (chunks.left < end) throw malformed();
  chunks.skip(chunks.left - end);
  return messages;
}

/**
 * A fetched, uncompressed record batch: its head, and its records as the seam's messages (`messages`,
 * when a data batch's offsets and timestamps are exact as Numbers). `records` reads the client's shape
 * of them on first use; setting it (an emptied or filtered batch) replaces both.
 */
export class FetchedBatch implements RecordsBatch {
  readonly firstOffset: bigint;
  readonly length: number;
  readonly partitionLeaderEpoch: number;
  readonly magic: number;
  readonly crc: number;
  readonly attributes: number;
  readonly lastOffsetDelta: number;
  readonly firstTimestamp: bigint;
  readonly maxTimestamp: bigint;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly firstSequence: number;
  messages: IncomingMessage[] | undefined;
  private readonly count: number;
  /** The answer's chunks and where the records lie in them, for the client's shape of them, until that is read or replaced. */
  private region: DynamicBuffer | undefined;
  private readonly recordsAt: number;
  private parsed: Records | undefined;

  /**
   * Reads the batch whose head is `head` and whose records follow at `chunks` (at `recordsAt` in `region`),
   * and moves past them.
   */
  constructor(head: Buffer, chunks: ChunkCursor, region: DynamicBuffer, recordsAt: number) {
    this.firstOffset = head.readBigInt64BE(0);
    this.length = head.readInt32BE(8);
    this.partitionLeaderEpoch = head.readInt32BE(12);
    this.magic = head.readInt8(16);
    this.crc = head.readUInt32BE(17);
    this.attributes = head.readInt16BE(21);
    this.lastOffsetDelta = head.readInt32BE(23);
    this.firstTimestamp = head.readBigInt64BE(27);
    this.maxTimestamp = head.readBigInt64BE(35);
    this.producerId = head.readBigInt64BE(43);
    this.producerEpoch = head.readInt16BE(51);
    this.firstSequence = head.readInt32BE(53);
    this.count = head.readInt32BE(57);
    this.region = region;
    this.recordsAt = recordsAt;
    const recordsLength = BATCH_HEAD + this.length - RECORDS_AT;
    if ((this.attributes & IS_CONTROL) === 0) this.messages = readMessages(chunks, recordsLength, this.count, Number(this.firstOffset), Number(this.firstTimestamp));
    else chunks.skip(recordsLength);
    // Read now what is not in messages (a control marker, a batch of inexact Numbers): the client fetches
    // again when its parser throws, but not when a read in the fetch's callback does.
    if (this.messages === undefined) void this.records;
  }

  get records(): Records {
    if (this.parsed === undefined) {
      const records: Records = [];
      const reader = Reader.from((this.region as DynamicBuffer).subarray(this.recordsAt, this.recordsAt + BATCH_HEAD + this.length - RECORDS_AT));
      for (let i = 0; i < this.count; i++) records.push(readRecord(reader));
      this.parsed = records;
    }
    return this.parsed;
  }

  set records(records: Records) {
    this.parsed = records;
    this.region = undefined;
    this.messages = undefined;
  }
}

/**
 * The record batches of one partition's records (`region`, a view of the answer's chunks), as the
 * client's `readRecordsBatches` reads them: whole batches only (a fetch may end inside one), compressed
 * ones by the client itself.
 */
export function readBatches(region: DynamicBuffer): RecordsBatch[] {
  const batches: RecordsBatch[] = [];
  const chunks = new ChunkCursor(region.buffers);
  while (chunks.left >= RECORDS_AT) {
    const head = chunks.peek(RECORDS_AT);
    const size = BATCH_HEAD + head.readInt32BE(8);
    if (size < RECORDS_AT) throw malformed('A fetched batch is shorter than its own head.');
    if (chunks.left < size) break;
    const at = region.length - chunks.left;
    if ((head.readInt16BE(21) & IS_COMPRESSED) !== 0) {
      batches.push(readRecordsBatch(Reader.from(chunks.take(size))));
      continue;
    }
    chunks.skip(RECORDS_AT);
    batches.push(new FetchedBatch(head, chunks, region, at + RECORDS_AT));
  }
  return batches;
}

/** One partition of a Fetch v16 or v17 answer, as the client's parser reads it. */
function readPartition(r: Reader, path: string, errors: [string, [number, null]][]) {
  const partition = {
    partitionIndex: r.readInt32(),
    errorCode: r.readInt16(),
    highWatermark: r.readInt64(),
    lastStableOffset: r.readInt64(),
    logStartOffset: r.readInt64(),
    divergingEpoch: { epoch: -1, endOffset: -1n },
    currentLeader: { leaderId: -1, leaderEpoch: -1 },
    snapshotId: { endOffset: -1n, epoch: -1 },
    abortedTransactions: r.readNullableArray((t) => ({ producerId: t.readInt64(), firstOffset: t.readInt64() })),
    preferredReadReplica: r.readInt32(),
    records: [] as RecordsBatch[] | null,
  };
  if (partition.errorCode !== 0) errors.push([path, [partition.errorCode, null]]);
  // COMPACT_RECORDS: the size plus one, 0 for null.
  const size = r.readUnsignedVarInt();
  if (size === 0) partition.records = null;
  if (size > 1) {
    partition.records = readBatches(r.buffer.subarray(r.position, r.position + size - 1));
    r.skip(size - 1);
  }
  readKnownTaggedFields(r, {
    0: (t) => void (partition.divergingEpoch = { epoch: t.readInt32(), endOffset: t.readInt64() }),
    1: (t) => void (partition.currentLeader = { leaderId: t.readInt32(), leaderEpoch: t.readInt32() }),
    2: (t) => void (partition.snapshotId = { endOffset: t.readInt64(), epoch: t.readInt32() }),
  });
  return partition;
}

/** A Fetch v16 or v17 answer: the client's `parseResponse` of those versions, with the batches above. */
export function parseFetchResponse(_correlationId: number, apiKey: number, apiVersion: number, reader: Reader): unknown {
  const errors: [string, [number, null]][] = [];
  const throttleTimeMs = reader.readInt32();
  const errorCode = reader.readInt16();
  if (errorCode !== 0) errors.push(['', [errorCode, null]]);
  const response = {
    throttleTimeMs,
    errorCode,
    sessionId: reader.readInt32(),
    nodeEndpoints: [] as { nodeId: number; host: string; port: number; rack: string | null }[],
    responses: reader.readArray((r, i) => ({
      topicId: r.readUUID(),
      partitions: r.readArray((p, j) => readPartition(p, `/responses/${i}/partitions/${j}`, errors), true, false),
    })),
  };
  readKnownTaggedFields(reader, {
    0: (r) => {
      response.nodeEndpoints = r.readArray((e) => ({ nodeId: e.readInt32(), host: e.readString(), port: e.readInt32(), rack: e.readNullableString() }));
    },
  });
  if (errors.length > 0) throw new ResponseError(apiKey, apiVersion, Object.fromEntries(errors), response);
  return response;
}

/** The Fetch versions whose answer this parser reads, with the client's module of each (its request writer). */
const PARSED = new Map([
  [16, fetchV16],
  [17, fetchV17],
]);

/** The client's Fetch call with this parser for the versions it reads; the client's own otherwise. */
export function fastFetchApi(original: AnyApi): AnyApi {
  const module = PARSED.get(original.version);
  if (module === undefined) return original;
  const createRequest = module.createRequest as (...args: unknown[]) => ReturnType<typeof fetchV17.createRequest>;
  return createAPI(original.key, original.version, createRequest, parseFetchResponse) as unknown as AnyApi;
}
