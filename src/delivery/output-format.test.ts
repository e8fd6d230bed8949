// The output options byte for byte (docs/subscription-controls.md "Output options" shows the same bytes).
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { makeEnvelope, type Envelope } from '../events/envelope.js';
import { item } from '../../test/unit/delivery/fakes.js';
import type { DeliveryItem } from './contract.js';
import { csv, encodeBatch, jsonArray, ndjson } from './output-format.js';

function event(eventId: string, time: string, object: Record<string, unknown>, withEnvelope = true): DeliveryItem {
  const envelope = makeEnvelope('tcp_connection_closed.v0', object, { timestamp: new Date(time), eventId });
  return { eventId, payload: Buffer.from(JSON.stringify(envelope)), ...(withEnvelope && { envelope }) };
}

const a = event('ev_1', '2026-11-26T10:00:00.000Z', { conn: { client_ip: '192.0.2.7', server_port: 443 }, note: 'say "hi", then\nleave' });
// A parked item has no envelope: its payload is read.
const b = event('ev_2', '2026-11-26T10:00:01.000Z', { conn: { client_ip: '2001:db8::1', server_port: 80 }, tags: ['a', 'b'] }, false);

const A = '{"event_id":"ev_1","event_type":"tcp_connection_closed.v0","event_timestamp":"2026-11-26T10:00:00.000Z","principal":null,"object":{"conn":{"client_ip":"192.0.2.7","server_port":443},"note":"say \\"hi\\", then\\nleave"}}';
const B = '{"event_id":"ev_2","event_type":"tcp_connection_closed.v0","event_timestamp":"2026-11-26T10:00:01.000Z","principal":null,"object":{"conn":{"client_ip":"2001:db8::1","server_port":80},"tags":["a","b"]}}';

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

  it('csv: a header of dotted names in first-seen order, CRLF lines, RFC 4180 quoting, arrays as JSON, null and missing empty', () => {
    expect(csv([a, b]).toString('utf8')).toBe(
      'event_id,event_type,event_timestamp,principal,object.conn.client_ip,object.conn.server_port,object.note,object.tags\r\n' +
        'ev_1,tcp_connection_closed.v0,2026-11-26T10:00:00.000Z,,192.0.2.7,443,"say ""hi"", then\nleave",\r\n' +
        'ev_2,tcp_connection_closed.v0,2026-11-26T10:00:01.000Z,,2001:db8::1,80,,"[""a"",""b""]"\r\n',
    );
  });

  it('csv: an empty object is an empty field, as null is', () => {
    const headers = event('ev_3', '2026-11-26T10:00:02.000Z', { http: { request: { headers: {} } } });
    expect(csv([headers]).toString('utf8')).toBe('event_id,event_type,event_timestamp,principal,object.http.request.headers\r\nev_3,tcp_connection_closed.v0,2026-11-26T10:00:02.000Z,,\r\n');
  });

  it('csv: a key holding a dot or a backslash is escaped, so it never shares a column with a nested name', () => {
    const logs = event('ev_4', '2026-11-26T10:00:03.000Z', { logs: { 'a.b': 1, a: { b: 2 }, 'c\\.d': 3 } });
    expect(csv([logs]).toString('utf8')).toBe(
      'event_id,event_type,event_timestamp,principal,object.logs.a\\.b,object.logs.a.b,object.logs.c\\\\\\.d\r\nev_4,tcp_connection_closed.v0,2026-11-26T10:00:03.000Z,,1,2,3\r\n',
    );
  });

  it('csv: a principal object is flattened like the rest', () => {
    const envelope = makeEnvelope('event_destination_created.v0', { id: 'ed_1' }, { timestamp: new Date('2026-11-26T10:00:00.000Z'), eventId: 'ev_3', principal: { type: 'api_key', id: 'ak_1', uri: 'https://api/x' } });
    const audit: DeliveryItem = { eventId: 'ev_3', payload: Buffer.from(JSON.stringify(envelope)), envelope };
    expect(csv([audit]).toString('utf8')).toBe(
      'event_id,event_type,event_timestamp,principal.type,principal.id,principal.uri,object.id\r\nev_3,event_destination_created.v0,2026-11-26T10:00:00.000Z,api_key,ak_1,https://api/x,ed_1\r\n',
    );
  });

  it('gzip: the same bytes, gzipped', () => {
    for (const type of ['ndjson', 'csv', 'json_array'] as const) {
      const gz = encodeBatch([a, b], type, 'gzip');
      expect([...gz.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
      expect(gunzipSync(gz)).toEqual(encodeBatch([a, b], type, 'none'));
    }
    expect(encodeBatch([a], 'ndjson', 'none').toString('utf8')).toBe(`${A}\n`);
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
