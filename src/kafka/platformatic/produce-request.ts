// Produce requests for @platformatic/kafka encoded in one buffer. The client builds each record with a
// Writer of small buffers (one per varint), gathers them into the batch, copies the batch for its CRC and
// the request again to send it: about a fifth of a worker's time and much of its garbage (PROFILE.md
// "The client path"). This encoder writes the same bytes (Kafka's record batch v2, the flexible Produce
// v9 to v11) into one buffer sized up front; the client's producer keeps everything else (partitions,
// sequences, retries, transactions) and sends it through its own connection.
import { createAPI, crc32c, groupByProperty, IS_TRANSACTIONAL, produceV9, produceV10, produceV11, Writer, type API, type CreateRecordsBatchOptions, type MessageRecord } from '@platformatic/kafka';

type ProduceOptions = Partial<CreateRecordsBatchOptions>;
export type ProduceApi = API<[acks: number, timeout: number, messages: MessageRecord[], options: ProduceOptions], unknown>;

/** The Produce versions whose request this encoder writes, with the client's own module of each (its answer parser). */
const FLEXIBLE = new Map([
  [9, produceV9],
  [10, produceV10],
  [11, produceV11],
]);

/** Record batch v2: base offset (8), length (4), leader epoch (4), magic (1), CRC (4), then what the CRC covers. */
const CRC_AT = 17;
const CRC_FROM = 21;
const BATCH_HEAD = 61;
const MAGIC = 2;
const ACKS_NONE = 0;

const varIntSize = (zigzagged: number): number => {
  let size = 1;
  for (let v = zigzagged; v >= 0x80; v = Math.floor(v / 0x80)) size++;
  return size;
};
/** Kafka's zigzag varints and varlongs as Numbers: exact for every integer of magnitude below 2^52. */
const zigzag = (n: number): number => (n >= 0 ? n * 2 : -n * 2 - 1);
const bytesSize = (b: Buffer | null | undefined): number => (b === null || b === undefined ? 1 : varIntSize(zigzag(b.length)) + b.length);

function writeUnsigned(buf: Buffer, at: number, value: number): number {
  let v = value;
  while (v >= 0x80) {
    buf[at++] = (v % 0x80) | 0x80;
    v = Math.floor(v / 0x80);
  }
  buf[at++] = v;
  return at;
}

const writeVarInt = (buf: Buffer, at: number, n: number): number => writeUnsigned(buf, at, zigzag(n));

function writeBytes(buf: Buffer, at: number, b: Buffer | null | undefined): number {
  if (b === null || b === undefined) return writeVarInt(buf, at, -1);
  at = writeVarInt(buf, at, b.length);
  b.copy(buf, at);
  return at + b.length;
}

const headersOf = (m: MessageRecord): Map<Buffer, Buffer> | undefined => (m.headers === undefined || m.headers.size === 0 ? undefined : m.headers);

/** A record's bytes after its length: attributes, timestamp delta, offset delta, key, value, headers. */
function recordBodySize(m: MessageRecord, offsetDelta: number, timestampDelta: number): number {
  let size = 1 + varIntSize(zigzag(timestampDelta)) + varIntSize(zigzag(offsetDelta)) + bytesSize(m.key) + bytesSize(m.value);
  const headers = headersOf(m);
  size += varIntSize(zigzag(headers?.size ?? 0));
  if (headers !== undefined) for (const [k, v] of headers) size += bytesSize(k) + bytesSize(v);
  return size;
}

interface PartitionBatch {
  readonly partition: number;
  readonly messages: MessageRecord[];
  readonly bodies: number[];
  readonly firstTimestamp: number;
  readonly maxTimestamp: number;
  readonly size: number;
}

function planBatch(partition: number, messages: MessageRecord[]): PartitionBatch {
  const firstTimestamp = Number(messages[0]?.timestamp);
  let maxTimestamp = firstTimestamp;
  let size = BATCH_HEAD;
  const bodies = new Array<number>(messages.length);
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as MessageRecord;
    const ts = Number(m.timestamp);
    if (ts > maxTimestamp) maxTimestamp = ts;
    const body = recordBodySize(m, i, ts - firstTimestamp);
    bodies[i] = body;
    size += varIntSize(zigzag(body)) + body;
  }
  return { partition, messages, bodies, firstTimestamp, maxTimestamp, size };
}

function writeBatch(buf: Buffer, start: number, b: PartitionBatch, topic: string, options: ProduceOptions): number {
  buf.writeBigInt64BE(0n, start);
  buf.writeInt32BE(b.size - 12, start + 8);
  buf.writeInt32BE(options.partitionLeaderEpoch ?? 0, start + 12);
  buf.writeInt8(MAGIC, start + 16);
  let at = start + CRC_FROM;
  at = buf.writeInt16BE(options.transactionalId !== undefined && options.transactionalId !== null ? IS_TRANSACTIONAL : 0, at);
  at = buf.writeInt32BE(b.messages.length - 1, at);
  at = buf.writeBigInt64BE(BigInt(b.firstTimestamp), at);
  at = buf.writeBigInt64BE(BigInt(b.maxTimestamp), at);
  at = buf.writeBigInt64BE(options.producerId ?? -1n, at);
  at = buf.writeInt16BE(options.producerEpoch ?? 0, at);
  at = buf.writeInt32BE(options.sequences?.get(`${topic}:${b.partition}`) ?? 0, at);
  at = buf.writeInt32BE(b.messages.length, at);
  for (let i = 0; i < b.messages.length; i++) {
    const m = b.messages[i] as MessageRecord;
    at = writeVarInt(buf, at, b.bodies[i] as number);
    buf[at++] = 0;
    at = writeVarInt(buf, at, Number(m.timestamp) - b.firstTimestamp);
    at = writeVarInt(buf, at, i);
    at = writeBytes(buf, at, m.key);
    at = writeBytes(buf, at, m.value);
    const headers = headersOf(m);
    at = writeVarInt(buf, at, headers?.size ?? 0);
    if (headers !== undefined) {
      for (const [k, v] of headers) {
        at = writeBytes(buf, at, k);
        at = writeBytes(buf, at, v);
      }
    }
  }
  buf.writeUInt32BE(crc32c(buf.subarray(start + CRC_FROM, at)), start + CRC_AT);
  return at;
}

/**
 * The request the client's createRequest of Produce v9 to v11 writes, byte for byte, for uncompressed
 * records. Like it, gives each message without a timestamp the request's time (kept for its retries).
 */
export function encodeProduceRequest(acks: number, timeout: number, messages: MessageRecord[], options: ProduceOptions = {}): Writer {
  const now = BigInt(Date.now());
  for (const m of messages) {
    m.partition ??= 0;
    m.timestamp ??= now;
  }
  const transactionalId = options.transactionalId === undefined || options.transactionalId === null ? null : Buffer.from(options.transactionalId);
  const topics = groupByProperty<string, MessageRecord>(messages, 'topic').map(([topic, inTopic]) => ({
    name: Buffer.from(topic),
    topic,
    batches: groupByProperty(inTopic, 'partition').map(([partition, inPartition]) => planBatch(Number(partition), inPartition)),
  }));
  let size = (transactionalId === null ? 1 : varIntSize(transactionalId.length + 1) + transactionalId.length) + 2 + 4 + varIntSize(topics.length + 1) + 1;
  for (const t of topics) {
    size += varIntSize(t.name.length + 1) + t.name.length + varIntSize(t.batches.length + 1) + 1;
    for (const b of t.batches) size += 4 + varIntSize(b.size + 1) + b.size + 1;
  }
  const buf = Buffer.allocUnsafe(size);
  let at = 0;
  if (transactionalId === null) buf[at++] = 0;
  else {
    at = writeUnsigned(buf, at, transactionalId.length + 1);
    at += transactionalId.copy(buf, at);
  }
  at = buf.writeInt16BE(acks, at);
  at = buf.writeInt32BE(timeout, at);
  at = writeUnsigned(buf, at, topics.length + 1);
  for (const t of topics) {
    at = writeUnsigned(buf, at, t.name.length + 1);
    at += t.name.copy(buf, at);
    at = writeUnsigned(buf, at, t.batches.length + 1);
    for (const b of t.batches) {
      at = buf.writeInt32BE(b.partition, at);
      at = writeUnsigned(buf, at, b.size + 1);
      at = writeBatch(buf, at, b, t.topic, options);
      buf[at++] = 0;
    }
    buf[at++] = 0;
  }
  buf[at++] = 0;
  if (at !== size) throw new Error(`Produce request encoded in ${at} bytes of ${size}`);
  const writer = Writer.create().append(buf);
  if (acks === ACKS_NONE) writer.context.noResponse = true;
  return writer;
}

/** The client's Produce call with this encoder, for the versions it writes and uncompressed records; the client's own otherwise. */
export function fastProduceApi(original: ProduceApi): ProduceApi {
  const module = FLEXIBLE.get(original.version);
  if (module === undefined) return original;
  return createAPI(original.key, original.version, (acks: number, timeout: number, messages: MessageRecord[], options: ProduceOptions = {}) =>
    options.compression === undefined || options.compression === 'none' ? encodeProduceRequest(acks, timeout, messages, options) : module.createRequest(acks, timeout, messages, options),
    module.parseResponse,
  ) as ProduceApi;
}
