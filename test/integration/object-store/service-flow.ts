// What the object_store tests that run the real service share: a service with the API, its calls, and TCP
// traffic whose records carry a sequence number (conn.bytes_in) to count what arrived.
import { encodeRecord } from '../../../src/records/record-encoder.js';
import { seededRecord } from '../../../src/traffic/seeded-records.js';
import { produce, testClient } from '../../support/kafka.js';
import type { ServiceProcess } from '../../support/service-process.js';
import { request } from '../admin/admin-harness.js';

export const TCP = 'tcp_connection_closed.v0';

/** API bodies, read loosely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export async function call(service: ServiceProcess, token: string, method: string, path: string, body?: unknown): Promise<Json> {
  const r = await request(service.url, method, path, { token, body });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.json;
}

/** Records `from` to `from + count - 1` of TCP traffic on `topic`, conn.bytes_in carrying the number, spread over partitions by key. */
export async function sendTcp(topic: string, from: number, count: number): Promise<number[]> {
  const seqs = Array.from({ length: count }, (_, i) => from + i);
  const kafka = testClient('object-store-traffic');
  await produce(
    kafka,
    topic,
    seqs.map((s) => {
      const record = seededRecord(TCP, s) as Record<string, Record<string, unknown>>;
      Object.assign(record.conn as object, { server_port: 443, bytes_in: s });
      const encoded = encodeRecord(TCP, record, 'avro');
      return { key: String(s), value: encoded.value, headers: { ...encoded.headers } as Record<string, string> };
    }),
  );
  return seqs;
}

export async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
