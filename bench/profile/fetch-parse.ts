// The consumer's parse of fetch answers alone: the same answer (the e2e bench's JSON or Avro records, as the
// broker sends them) read by the client's Fetch v17 parser and by the adapter's (src/kafka/platformatic/
// fetch-response.ts) into the messages the consumer hands over, in alternating slices, cut into 64 KiB
// socket chunks. `npx tsx bench/profile/fetch-parse.ts [json|avro] [records]`: ns a record, median of slices.
import { fetchV17, Reader, Writer, type RecordsBatch } from '@platformatic/kafka';
import { parseFetchResponse } from '../../src/kafka/platformatic/fetch-response.js';
import { takeRecords } from '../../src/kafka/platformatic/fetched-records.js';
import type { FetchedResponse } from '../../src/kafka/platformatic/read-committed.js';
import type { IncomingMessage } from '../../src/kafka/seam.js';
import { encodeRecord } from '../../src/records/record-encoder.js';
import type { WireForm } from '../../src/records/record-types.js';
import { seededRecord } from '../../src/traffic/seeded-records.js';
import { createRecordsBatch } from '@platformatic/kafka';

const [form = 'json', count = '2000'] = process.argv.slice(2) as [WireForm?, string?];
const CHUNK = 65_536;

function answer(): Buffer {
  const messages = Array.from({ length: Number(count) }, (_, i) => {
    const { value, headers } = encodeRecord('http_request_complete.v0', seededRecord('http_request_complete.v0', i), form);
    return { topic: 't', partition: 0, key: null as unknown as Buffer, value, timestamp: 1_764_000_000_000n + BigInt(i), headers: new Map(Object.entries(headers).map(([k, v]) => [Buffer.from(k), Buffer.from(String(v))])) };
  });
  const batches: Buffer[] = [];
  for (let i = 0; i < messages.length; i += 500) {
    const b = createRecordsBatch(messages.slice(i, i + 500)).buffer;
    b.writeBigInt64BE(BigInt(i), 0);
    batches.push(b);
  }
  const records = Buffer.concat(batches);
  const w = Writer.create()
    .appendInt32(0)
    .appendInt16(0)
    .appendInt32(0)
    .appendUnsignedVarInt(2)
    .append(Buffer.alloc(16, 1))
    .appendUnsignedVarInt(2)
    .appendInt32(0)
    .appendInt16(0)
    .appendInt64(BigInt(count))
    .appendInt64(BigInt(count))
    .appendInt64(0n)
    .appendUnsignedVarInt(1)
    .appendInt32(-1)
    .appendUnsignedVarInt(records.length + 1)
    .append(records)
    .appendUnsignedVarInt(0)
    .appendUnsignedVarInt(0)
    .appendUnsignedVarInt(0);
  return w.buffer;
}

const bytes = answer();
const chunked = (): Reader => {
  const w = Writer.create();
  for (let at = 0; at < bytes.length; at += CHUNK) w.append(bytes.subarray(at, at + CHUNK));
  return Reader.from(w);
};
const take = (r: FetchedResponse): number => {
  const out: IncomingMessage[] = [];
  for (const t of r.responses) for (const p of t.partitions) takeRecords((p.records ?? []) as RecordsBatch[], 0n, out);
  return out.length;
};
const subjects: Record<string, () => number> = {
  client: () => take(fetchV17.parseResponse(0, 1, 17, chunked()) as unknown as FetchedResponse),
  adapter: () => take(parseFetchResponse(0, 1, 17, chunked()) as FetchedResponse),
};
const times: Record<string, number[]> = { client: [], adapter: [] };
for (let slice = 0; slice < 40; slice++) {
  for (const [name, run] of Object.entries(subjects)) {
    const start = process.cpuUsage();
    let n = 0;
    for (let i = 0; i < 10; i++) n += run();
    const used = process.cpuUsage(start);
    if (slice >= 5) times[name]?.push(((used.user + used.system) * 1000) / n);
  }
}
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
process.stdout.write(`${form}, ${count} records, ${bytes.length} bytes an answer: client ${median(times.client ?? []).toFixed(0)} ns a record, adapter ${median(times.adapter ?? []).toFixed(0)} ns a record\n`);
