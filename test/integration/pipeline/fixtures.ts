// Traffic for the pipeline tests: records carrying a sequence number, in every producer form, and the
// test's own reference of which records each subscription should receive and with which fields.
import type { OutgoingMessage as Message } from '../../../src/kafka/seam.js';
import type { TrafficEventType } from '../../../src/events/catalog.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import { seededRecord } from '../../../src/traffic/seeded-records.js';
import type { WireForm } from '../../../src/records/record-types.js';

export interface Traffic {
  readonly type: TrafficEventType;
  readonly seq: number;
  readonly record: Record<string, Record<string, unknown>>;
}

const FORMS: readonly WireForm[] = ['avro', 'avro', 'confluent', 'json'];

/**
 * An http record carries its sequence number in http.request.url.path ("/seq/N"); a tcp record in
 * conn.bytes_in. Every third http record comes from 10.x; tcp records with seq % 4 == 1 come from 192.168.x.
 */
export function makeTraffic(type: TrafficEventType, seq: number): Traffic {
  const base = seededRecord(type, seq) as Record<string, Record<string, unknown>>;
  const record = structuredClone(base);
  const conn = record.conn as Record<string, unknown>;
  if (type === 'http_request_complete.v0') {
    if (seq % 3 === 0) conn.client_ip = `10.${seq % 250}.1.${1 + (seq % 200)}`;
    const http = record.http as { request: { url: Record<string, unknown> } };
    http.request.url.path = `/seq/${seq}`;
    http.request.url.raw = `https://${String(conn.server_name)}/seq/${seq}`;
  } else {
    if (seq % 4 === 1) conn.client_ip = `192.168.${seq % 250}.${1 + (seq % 200)}`;
    conn.bytes_in = seq;
  }
  return { type, seq, record };
}

export function toMessage(t: Traffic): Message {
  const form = FORMS[t.seq % FORMS.length] as WireForm;
  const encoded = encodeRecord(t.type, t.record, form);
  return { key: String(t.seq), value: encoded.value, headers: { ...encoded.headers } };
}

/** Malformed values of several kinds; each must reach the dead-letter topic. */
export function malformedMessages(count: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < count; i++) {
    switch (i % 4) {
      case 0:
        // A header given twice, as Kafka allows: its dead letter keeps both values, in order.
        out.push({ key: `bad-${i}`, value: Buffer.from([0xff, 0x13, 0x37, i & 0xff]), headers: { 'x-hop': ['edge-1', 'edge-2'] } });
        break;
      case 1:
        out.push({ key: `bad-${i}`, value: Buffer.from('{"conn": {"client_ip": 7}}'), headers: { 'content-type': 'application/json' } });
        break;
      case 2:
        out.push({ key: `bad-${i}`, value: Buffer.from('{not json'), headers: { 'content-type': 'application/json' } });
        break;
      default:
        out.push({ key: `bad-${i}`, value: Buffer.from([0, 0, 0, 0x7f, 0x7f, 1, 2, 3]) });
    }
  }
  return out;
}

/** S1's filter, written by hand in JS: the reference the pipeline's CEL result is checked against. */
export const S1_FILTER = 'ev.conn.server_port == 443 && ev.conn.client_ip.startsWith("10.")';
export const s1Reference = (t: Traffic): boolean => t.record.conn?.server_port === 443 && String(t.record.conn?.client_ip).startsWith('10.');
export const S1_FIELDS = ['conn.client_ip', 'conn.server_port', 'http.request.url.path'];
export const s1Projection = (t: Traffic): unknown => ({
  conn: { client_ip: t.record.conn?.client_ip, server_port: t.record.conn?.server_port },
  http: { request: { url: { path: `/seq/${t.seq}` } } },
});

export const S1_FILTER_CHANGED = 'ev.conn.server_port == 80';
export const s1ChangedReference = (t: Traffic): boolean => t.record.conn?.server_port === 80;

export const S2_FILTER = 'cidr("192.168.0.0/16").containsIP(ev.conn.client_ip)';
export const s2Reference = (t: Traffic): boolean => String(t.record.conn?.client_ip).startsWith('192.168.');
export const S2_FIELDS = ['conn.bytes_in', 'conn.server_name'];
export const s2Projection = (t: Traffic): unknown => ({ conn: { bytes_in: t.seq, server_name: t.record.conn?.server_name } });
