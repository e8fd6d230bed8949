// The output options byte for byte (docs/subscription-controls.md "Output options" shows the same bytes),
// CSV's columns from the catalogue, its formula rule, and each body within its limit.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { makeEnvelope, type Envelope } from '../events/envelope.js';
import { item } from '../../test/unit/delivery/fakes.js';
import type { DeliveryItem } from './contract.js';
import { csv, encodeBatch, jsonArray, ndjson } from './output-format.js';

function event(eventId: string, time: string, object: Record<string, unknown>, withEnvelope = true, type = 'tcp_connection_closed.v0'): DeliveryItem {
  const envelope = makeEnvelope(type, object, { timestamp: new Date(time), eventId });
  return { eventId, payload: Buffer.from(JSON.stringify(envelope)), ...(withEnvelope && { envelope }) };
}

const a = event('ev_1', '2026-11-26T10:00:00.000Z', { conn: { client_ip: '192.0.2.7', server_port: 443 }, ip_policy: { decision: 'say "hi", then\nleave' } });
// A parked item has no envelope: its payload is read.
const b = event('ev_2', '2026-11-26T10:00:01.000Z', { conn: { client_ip: '2001:db8::1', server_port: 80 }, traffic_policy: { logs: [{ a: 1 }] } }, false);

const A = '{"event_id":"ev_1","event_type":"tcp_connection_closed.v0","event_timestamp":"2026-11-26T10:00:00.000Z","principal":null,"object":{"conn":{"client_ip":"192.0.2.7","server_port":443},"ip_policy":{"decision":"say \\"hi\\", then\\nleave"}}}';
const B = '{"event_id":"ev_2","event_type":"tcp_connection_closed.v0","event_timestamp":"2026-11-26T10:00:01.000Z","principal":null,"object":{"conn":{"client_ip":"2001:db8::1","server_port":80},"traffic_policy":{"logs":[{"a":1}]}}}';

const NO_LIMIT = { bytes: Number.MAX_SAFE_INTEGER };
const text = (bodies: { bytes: Buffer }[]): string[] => bodies.map((body) => body.bytes.toString('utf8'));

describe('output formats', () => {
  it('ndjson: each envelope and a newline', () => {
    expect(ndjson([a, b]).toString('utf8')).toBe(`${A}\n${B}\n`);
    expect(ndjson([]).length).toBe(0);
  });

  it('json_array: the envelopes joined by commas inside brackets, never re-serialized', () => {
    expect(jsonArray([a, b]).toString('utf8')).toBe(`[${A},${B}]`);
    expect(jsonArray([]).toString('utf8')).toBe('[]');
    const items = [item(10), item(4), item(7)];
    expect(jsonArray(items).length).toBe(2 + 2 + 10 + 4 + 7);
  });

  it('csv: a header of dotted names in first-seen order, CRLF lines, RFC 4180 quoting, lists as JSON, null and missing empty', () => {
    expect(csv([a, b]).toString('utf8')).toBe(
      'event_id,event_type,event_timestamp,principal,object.conn.client_ip,object.conn.server_port,object.ip_policy.decision,object.traffic_policy.logs\r\n' +
        'ev_1,tcp_connection_closed.v0,2026-11-26T10:00:00.000Z,,192.0.2.7,443,"say ""hi"", then\nleave",\r\n' +
        'ev_2,tcp_connection_closed.v0,2026-11-26T10:00:01.000Z,,2001:db8::1,80,,"[{""a"":1}]"\r\n',
    );
  });

  it('csv: a headers map is one column holding its JSON, however many names its records hold', () => {
    // Each record's visitor chose 300 header names of its own: 1,200 names in all, still one column.
    const events = [0, 1, 2, 3].map((n) => {
      const headers = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`X-Visitor-${n}-${i}`, ['v']]));
      return event(`ev_${n}`, '2026-11-26T10:00:02.000Z', { http: { request: { headers, method: 'get' } } }, n % 2 === 0, 'http_request_complete.v0');
    });
    const lines = csv(events).toString('utf8').split('\r\n');
    expect(lines[0]).toBe('event_id,event_type,event_timestamp,principal,object.http.request.headers,object.http.request.method');
    expect(lines).toHaveLength(6);
    const first = lines[1]!.split(',', 4).length;
    expect(first).toBe(4);
    expect(lines[1]).toContain('"{""X-Visitor-0-0"":[""v""],');
    expect(lines[1]!.endsWith('"X-Visitor-0-299"":[""v""]}",get')).toBe(true);
    // An empty map is its JSON too, and a null one an empty field.
    const empty = event('ev_5', '2026-11-26T10:00:02.000Z', { http: { request: { headers: {} }, response: { headers: null } } }, true, 'http_request_complete.v0');
    expect(csv([empty]).toString('utf8')).toBe('event_id,event_type,event_timestamp,principal,object.http.request.headers,object.http.response.headers\r\nev_5,http_request_complete.v0,2026-11-26T10:00:02.000Z,,{},\r\n');
  });

  it('csv: a key the catalogue does not list is no column (a traffic object holds its selected fields alone)', () => {
    const odd = event('ev_6', '2026-11-26T10:00:03.000Z', { conn: { client_ip: '192.0.2.7', 'x.y': 1 }, note: 'z' });
    expect(csv([odd]).toString('utf8')).toBe('event_id,event_type,event_timestamp,principal,object.conn.client_ip\r\nev_6,tcp_connection_closed.v0,2026-11-26T10:00:03.000Z,,192.0.2.7\r\n');
  });

  it('csv: an audit event has its principal flattened and its object as one column of JSON', () => {
    const envelope = makeEnvelope('event_destination_created.v0', { id: 'ed_1', target: { http: { url: 'https://x' } } }, { timestamp: new Date('2026-11-26T10:00:00.000Z'), eventId: 'ev_3', principal: { type: 'api_key', id: 'ak_1', uri: 'https://api/x' } });
    const audit: DeliveryItem = { eventId: 'ev_3', payload: Buffer.from(JSON.stringify(envelope)), envelope };
    expect(csv([audit]).toString('utf8')).toBe(
      'event_id,event_type,event_timestamp,principal.type,principal.id,principal.uri,object\r\nev_3,event_destination_created.v0,2026-11-26T10:00:00.000Z,api_key,ak_1,https://api/x,"{""id"":""ed_1"",""target"":{""http"":{""url"":""https://x""}}}"\r\n',
    );
  });

  it('csv: a string that starts as a formula is written after a single quote and quoted (OWASP), a number never', () => {
    const values = ['=HYPERLINK("http://x","y")', '+1+2', '-2+3', '@SUM(A1)', '\tx', '\rx', 'a=b', ' =1'];
    const events = values.map((v, i) => event(`ev_${i}`, '2026-11-26T10:00:04.000Z', { ip_policy: { decision: v }, conn: { bytes_in: -5 } }));
    const fields = csv(events)
      .toString('utf8')
      .split('\r\n')
      .slice(1, -1)
      .map((line) => line.slice('ev_0,tcp_connection_closed.v0,2026-11-26T10:00:04.000Z,,'.length));
    // conn.bytes_in comes first: an event's columns are in the catalogue's order.
    expect(fields).toEqual(['-5,"\'=HYPERLINK(""http://x"",""y"")"', '-5,"\'+1+2"', '-5,"\'-2+3"', '-5,"\'@SUM(A1)"', '-5,"\'\tx"', '-5,"\'\rx"', '-5,a=b', '-5, =1']);
  });

  it('gzip: the same bytes, gzipped', () => {
    for (const type of ['ndjson', 'csv', 'json_array'] as const) {
      const gz = encodeBatch([a, b], type, 'gzip', NO_LIMIT).bodies[0]!.bytes;
      expect([...gz.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
      expect(gunzipSync(gz)).toEqual(encodeBatch([a, b], type, 'none', NO_LIMIT).bodies[0]!.bytes);
    }
    expect(text([...encodeBatch([a], 'ndjson', 'none', NO_LIMIT).bodies])).toEqual([`${A}\n`]);
  });
});

describe('each body within its limit', () => {
  const events = Array.from({ length: 10 }, (_, i) => event(`ev_${i}`, '2026-11-26T10:00:05.000Z', { ip_policy: { decision: '"'.repeat(100) } }));

  it('csv: a batch past the limit is cut into bodies, each with the header, none past the limit', () => {
    const whole = csv(events);
    const limit = Math.floor(whole.length / 3);
    const { bodies, tooLarge } = encodeBatch(events, 'csv', 'none', { bytes: limit });
    expect(tooLarge).toEqual([]);
    expect(bodies.length).toBeGreaterThanOrEqual(3);
    const header = whole.toString('utf8').split('\r\n')[0]!;
    for (const body of bodies) {
      expect(body.bytes.length).toBeLessThanOrEqual(limit);
      expect(body.bytes.toString('utf8').startsWith(`${header}\r\n`)).toBe(true);
    }
    // Every event once, in order.
    expect(bodies.flatMap((body) => body.items.map((i) => i.eventId))).toEqual(events.map((e) => e.eventId));
    expect(bodies.map((body) => body.bytes.toString('utf8').split('\r\n').slice(1, -1).join('\r\n')).join('\r\n')).toBe(whole.toString('utf8').split('\r\n').slice(1, -1).join('\r\n'));
  });

  it('an event whose part alone passes the limit is refused as RECORD_TOO_LARGE, unless one event may be more', () => {
    const big = event('ev_big', '2026-11-26T10:00:06.000Z', { ip_policy: { decision: 'x'.repeat(5000) } });
    const small = events[0]!;
    const refused = encodeBatch([small, big], 'csv', 'none', { bytes: 1000 });
    expect(refused.bodies.map((body) => body.items)).toEqual([[small]]);
    expect(refused.tooLarge.map((f) => [f.item, f.error.code, f.error.retryable])).toEqual([[big, 'RECORD_TOO_LARGE', false]]);
    const alone = encodeBatch([small, big], 'csv', 'none', { bytes: 1000, oneEvent: 10_000 });
    expect(alone.bodies.map((body) => body.items)).toEqual([[small], [big]]);
    expect(alone.tooLarge).toEqual([]);
  });

  it('ndjson and json_array: a batch within the limit is one body of exactly the limit; one byte less cuts it', () => {
    const ndjsonBytes = ndjson([a, b]).length;
    expect(encodeBatch([a, b], 'ndjson', 'none', { bytes: ndjsonBytes }).bodies).toHaveLength(1);
    expect(text([...encodeBatch([a, b], 'ndjson', 'none', { bytes: ndjsonBytes - 1 }).bodies])).toEqual([`${A}\n`, `${B}\n`]);
    const arrayBytes = jsonArray([a, b]).length;
    expect(encodeBatch([a, b], 'json_array', 'none', { bytes: arrayBytes }).bodies).toHaveLength(1);
    expect(text([...encodeBatch([a, b], 'json_array', 'none', { bytes: arrayBytes - 1 }).bodies])).toEqual([`[${A}]`, `[${B}]`]);
  });
});

describe('the bytes docs/subscription-controls.md shows', () => {
  it('should be what the formats write for its two events', async () => {
    const { readFile } = await import('node:fs/promises');
    const doc = await readFile(new URL('../../docs/subscription-controls.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('## Output options'), doc.indexOf('## The live tap'));
    const lines = /```json\n([\s\S]*?)\n```/.exec(section)![1]!.split('\n');
    const items: DeliveryItem[] = lines.map((line) => {
      const envelope = JSON.parse(line) as Envelope;
      return { eventId: envelope.event_id, payload: Buffer.from(line), envelope };
    });
    // The doc's lines are the envelopes as the service serializes them.
    for (const [i, line] of lines.entries()) expect(JSON.stringify(items[i]!.envelope)).toBe(line);
    expect(ndjson(items).toString('utf8')).toBe(lines.map((l) => `${l}\n`).join(''));
    const table = /```\n\s*(event_id[\s\S]*?)\n\s*```/.exec(section)![1]!.replace(/^ +/gm, '').replaceAll('␍␊\n', '\r\n').replace(/␍␊$/, '\r\n');
    expect(csv(items).toString('utf8')).toBe(table);
  });
});
