// The output options at the destinations that take them, byte for byte, read where they land: an http
// receiver's request bodies and headers (json_array, ndjson, csv; gzip with Content-Encoding, signed as
// sent) and a file's contents (ndjson, csv with a header per batch).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryItem } from '../../../src/delivery/contract.js';
import { SIGNATURE_HEADER, verifySignature } from '../../../src/delivery/destinations/http/signature.js';
import { createWriter } from '../../../src/delivery/writer-registry.js';
import { makeEnvelope } from '../../../src/events/envelope.js';
import { OPERATOR } from '../../../src/accounts/account.js';
import { writerDeps } from '../../support/writer-deps.js';
import { HttpReceiver } from './http-receiver.js';

function event(eventId: string, time: string, object: Record<string, unknown>): DeliveryItem {
  const envelope = makeEnvelope('tcp_connection_closed.v0', object, { timestamp: new Date(time), eventId });
  return { eventId, payload: Buffer.from(JSON.stringify(envelope)), envelope };
}
function httpEvent(eventId: string, object: Record<string, unknown>): DeliveryItem {
  const envelope = makeEnvelope('http_request_complete.v0', object, { timestamp: new Date('2026-11-26T10:00:00.000Z'), eventId });
  return { eventId, payload: Buffer.from(JSON.stringify(envelope)), envelope };
}
const a = event('ev_1', '2026-11-26T10:00:00.000Z', { conn: { client_ip: '192.0.2.7', server_port: 443 } });
const b = event('ev_2', '2026-11-26T10:00:01.000Z', { conn: { client_ip: '2001:db8::1', server_port: 80 }, ip_policy: { decision: 'a, "b"' } });
const A = '{"event_id":"ev_1","event_type":"tcp_connection_closed.v0","event_timestamp":"2026-11-26T10:00:00.000Z","principal":null,"object":{"conn":{"client_ip":"192.0.2.7","server_port":443}}}';
const B = '{"event_id":"ev_2","event_type":"tcp_connection_closed.v0","event_timestamp":"2026-11-26T10:00:01.000Z","principal":null,"object":{"conn":{"client_ip":"2001:db8::1","server_port":80},"ip_policy":{"decision":"a, \\"b\\""}}}';
const CSV =
  'event_id,event_type,event_timestamp,principal,object.conn.client_ip,object.conn.server_port,object.ip_policy.decision\r\n' +
  'ev_1,tcp_connection_closed.v0,2026-11-26T10:00:00.000Z,,192.0.2.7,443,\r\n' +
  'ev_2,tcp_connection_closed.v0,2026-11-26T10:00:01.000Z,,2001:db8::1,80,"a, ""b"""\r\n';

describe('http output options', () => {
  // One receiver for the block: each test reads the request its own write made, the last one.
  const receiver = new HttpReceiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  const post = async (options: Record<string, unknown>) => {
    const writer = createWriter({ http: { url: receiver.url, ...options } }, writerDeps(), OPERATOR);
    await writer.write([a, b]);
    await writer.close();
    return receiver.requests.at(-1)!;
  };

  it('should post a JSON array by default, as before', async () => {
    const r = await post({});
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['content-encoding']).toBeUndefined();
    expect(r.body.toString('utf8')).toBe(`[${A},${B}]`);
  });

  it('should post NDJSON', async () => {
    const r = await post({ output_type: 'ndjson' });
    expect(r.headers['content-type']).toBe('application/x-ndjson');
    expect(r.body.toString('utf8')).toBe(`${A}\n${B}\n`);
  });

  it('should post CSV with its header line', async () => {
    const r = await post({ output_type: 'csv' });
    expect(r.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(r.body.toString('utf8')).toBe(CSV);
  });

  it('should gzip the body with Content-Encoding: gzip, the signature over the bytes sent', async () => {
    const secret = 'output-options-secret-0123456789';
    const r = await post({ output_type: 'ndjson', compression: 'gzip', secret });
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(Number(r.headers['content-length'])).toBe(r.body.length);
    expect(gunzipSync(r.body).toString('utf8')).toBe(`${A}\n${B}\n`);
    expect(verifySignature(secret, String(r.headers[SIGNATURE_HEADER]), r.body)).toBe(true);
  });
});

describe('each CSV body within its limit', () => {
  const receiver = new HttpReceiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  it('should post a full batch whose CSV passes 1 MiB as two signed bodies, each within it and with its header', async () => {
    // 500 events of about 1.8 KB as NDJSON (within the http batch limit), each with 150 header names; the
    // map's JSON in one CSV field has its quotes doubled, about 1.35 MB in all.
    const headers = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`X${i}`, ['v']]));
    const batch = Array.from({ length: 500 }, (_, n) => httpEvent(`ev_${String(n).padStart(3, '0')}`, { http: { request: { headers } } }));
    const secret = 'output-options-secret-0123456789';
    const writer = createWriter({ http: { url: receiver.url, output_type: 'csv', secret } }, writerDeps(), OPERATOR);
    const before = receiver.requests.length;
    expect(await writer.write(batch)).toEqual({ failed: [], status: 200 });
    await writer.close();
    const bodies = receiver.requests.slice(before);
    expect(bodies.length).toBe(2);
    const ids: string[] = [];
    for (const r of bodies) {
      expect(r.body.length).toBeLessThanOrEqual(1024 * 1024);
      expect(verifySignature(secret, String(r.headers[SIGNATURE_HEADER]), r.body)).toBe(true);
      const lines = r.body.toString('utf8').split('\r\n').slice(0, -1);
      expect(lines[0]).toBe('event_id,event_type,event_timestamp,principal,object.http.request.headers');
      expect(Number(r.headers['x-edge-event-count'])).toBe(lines.length - 1);
      ids.push(...lines.slice(1).map((l) => l.slice(0, 6)));
    }
    expect(ids).toEqual(batch.map((e) => e.eventId));
  });

  it('should report only the second body\'s events failed when the receiver refuses it, the first delivered', async () => {
    const headers = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`X${i}`, ['v']]));
    const batch = Array.from({ length: 500 }, (_, n) => httpEvent(`ev_${String(n).padStart(3, '0')}`, { http: { request: { headers } } }));
    const before = receiver.requests.length;
    receiver.script = ({ n }) => (n === before + 1 ? { status: 503 } : undefined);
    const writer = createWriter({ http: { url: receiver.url, output_type: 'csv' } }, writerDeps(), OPERATOR);
    const outcome = await writer.write(batch);
    await writer.close();
    receiver.script = () => undefined;
    const [first, second] = receiver.requests.slice(before);
    const delivered = Number(first!.headers['x-edge-event-count']);
    expect(first!.status).toBe(200);
    expect(second!.status).toBe(503);
    expect(outcome.failed.map((f) => f.item.eventId)).toEqual(batch.slice(delivered).map((e) => e.eventId));
    expect(new Set(outcome.failed.map((f) => [f.error.code, f.error.retryable].join()))).toEqual(new Set(['DESTINATION_SERVER_ERROR,true']));
  });
});

describe('file output options', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'output-options-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('should append NDJSON by default and CSV with a header line per batch, never compressed', async () => {
    for (const [path, options, expected] of [
      ['plain.ndjson', {}, `${A}\n${B}\n${A}\n`],
      ['table.csv', { output_type: 'csv' }, `${CSV}event_id,event_type,event_timestamp,principal,object.conn.client_ip,object.conn.server_port\r\nev_1,tcp_connection_closed.v0,2026-11-26T10:00:00.000Z,,192.0.2.7,443\r\n`],
    ] as const) {
      const writer = createWriter({ file: { path, ...options } }, writerDeps({ fileRoot: root }), OPERATOR);
      await writer.write([a, b]);
      await writer.write([a]);
      await writer.close();
      expect(await readFile(join(root, path), 'utf8')).toBe(expected);
    }
  });
});
