// The byte projections from a JSON record's text (AvroProjection.fromJson) against the exact JSON decoder:
// the same payload tail as decoding the text with JSON.parse, projecting and JSON.stringify, or a give-up
// (undefined) where the text is not written as JSON.stringify writes it; over arbitrary records, texts
// spaced and escaped otherwise, and edge cases.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TRAFFIC_EVENT_TYPES, TRAFFIC_FIELDS, type TrafficEventType } from '../../../src/events/catalog.js';
import { payloadTail, tailBeforeObject } from '../../../src/events/envelope.js';
import { avroProjections, jsonProjectedTail } from '../../../src/projection/avro-projection.js';
import { projectionKey, projectorFor } from '../../../src/projection/projector.js';
import { createRecordDecoder } from '../../../src/records/record-decoder.js';
import type { FilterableDecoded, RawMessage } from '../../../src/records/record-types.js';
import { TrafficGenerator } from '../../../src/traffic/generator.js';
import { recordArbitrary } from '../records/arbitraries.js';
import { MINIMAL_HTTP_RECORD } from './records.js';

const HEADERS = { 'content-type': 'application/json' };
const fast = createRecordDecoder({ validateAll: true });
const exact = createRecordDecoder({ validateAll: true, fastJson: false });
const names = (t: TrafficEventType): string[] => TRAFFIC_FIELDS[t].map((f) => f.name);
const KAFKA_TS = Date.UTC(2024, 4, 1, 12, 30, 45, 678);

function scanned(eventType: TrafficEventType, text: Buffer): FilterableDecoded | undefined {
  const msg: RawMessage = { value: text, headers: HEADERS };
  const r = fast.decodeFilterable(eventType, msg);
  return r.ok ? r : undefined;
}

/** The tail projected from the text, or undefined when the projection gives up; throws when the fast path did not accept the record. */
function fromText(eventType: TrafficEventType, fields: readonly string[], text: Buffer, ts = KAFKA_TS): string | undefined {
  const decoded = scanned(eventType, text);
  const json = decoded?.json;
  if (json === undefined) throw new Error(`the fast path did not accept ${text.toString('latin1')}`);
  const projection = avroProjections(json.codec).get(projectionKey(fields));
  if (projection === undefined) throw new Error(`no byte projection for ${fields.join(',')}`);
  return jsonProjectedTail(eventType, ts, projection, json)?.toString('utf8');
}

/** The tail the exact decoder's record gives: JSON.parse, validate, project, JSON.stringify. */
function exactly(eventType: TrafficEventType, fields: readonly string[], text: Buffer, ts = KAFKA_TS): string {
  const r = exact.decodeFilterable(eventType, { value: text, headers: HEADERS });
  if (!r.ok) throw new Error(`the exact decoder refused ${text.toString('latin1')}: ${r.message}`);
  const full = r.full();
  if (!full.ok) throw new Error(`the exact decoder refused ${text.toString('latin1')}: ${full.message}`);
  return payloadTail(tailBeforeObject(eventType, new Date(ts).toISOString(), 'null'), JSON.stringify(projectorFor(fields)(full.record))).toString('utf8');
}

/** Some of the text's slashes escaped as "\/" (JSON.stringify writes no "/" outside strings), by the bits of `mask`. */
function slashesEscaped(text: string, mask: number): string {
  let k = 0;
  return text.replace(/\//g, () => ((mask >> (k++ % 30)) & 1 ? '\\/' : '/'));
}

/** A space after some of the text's commas and colons, by the bits of `mask` (inside strings it changes their content, and the exact decoder reads that too). */
function spaced(text: string, mask: number): string {
  let k = 0;
  return text.replace(/[,:]/g, (c) => ((mask >> (k++ % 30)) & 1 ? `${c} ` : c));
}

describe.each(TRAFFIC_EVENT_TYPES.map((t) => [t]))('the projection of %s from JSON text', (eventType: TrafficEventType) => {
  it('should write the exact decoder\'s projection for any record and field set, or give up, and not give up on text JSON.stringify wrote', () => {
    fc.assert(
      fc.property(recordArbitrary(eventType), fc.subarray(names(eventType)), fc.integer({ min: 0, max: 2 ** 45 }), (record, fields, ts) => {
        const text = Buffer.from(JSON.stringify(record));
        if (scanned(eventType, text)?.json === undefined) return;
        const tail = fromText(eventType, fields, text, ts);
        // Only logs (written from their decoded value) and header maps the decoded object reorders give up.
        const mayGiveUp = fields.some((f) => f === 'traffic_policy.logs' || f.endsWith('.headers'));
        if (!mayGiveUp) expect(tail).toBeDefined();
        if (tail !== undefined) expect(tail).toBe(exactly(eventType, fields, text, ts));
      }),
      { numRuns: 500 },
    );
  });

  it('should write the exact decoder\'s projection, or give up, for text with escaped slashes and spaces', () => {
    fc.assert(
      fc.property(recordArbitrary(eventType), fc.subarray(names(eventType)), fc.nat(), fc.nat(), (record, fields, slashes, spaces) => {
        const text = Buffer.from(spaced(slashesEscaped(JSON.stringify(record), slashes), spaces));
        if (scanned(eventType, text)?.json === undefined) return;
        const tail = fromText(eventType, fields, text);
        if (tail !== undefined) expect(tail).toBe(exactly(eventType, fields, text));
      }),
      { numRuns: 500 },
    );
  });

  it('should project generated traffic from its text with every field selected, and each field alone, without giving up', () => {
    const g = new TrafficGenerator({ seed: 11, httpShare: eventType === 'http_request_complete.v0' ? 1 : 0 });
    const all = names(eventType).filter((f) => f !== 'traffic_policy.logs');
    for (let i = 0; i < 300; i++) {
      const text = g.nextMessage('json').value;
      expect(fromText(eventType, all, text)).toBe(exactly(eventType, all, text));
      const one = all[i % all.length] as string;
      expect(fromText(eventType, [one], text)).toBe(exactly(eventType, [one], text));
    }
  });
});

describe('the projection from JSON text of edge cases', () => {
  const http = 'http_request_complete.v0' as const;
  const base = MINIMAL_HTTP_RECORD;
  const withHeaders = (headers: string): Buffer =>
    Buffer.from(JSON.stringify({ ...base, http: { ...base.http, request: { ...base.http.request, headers: { PLACE: ['HOLDER'] } } } }).replace('{"PLACE":["HOLDER"]}', headers));
  const fields = ['http.request.headers', 'conn.client_ip'];

  it('should copy a header map written as JSON.stringify writes it, empty ones included', () => {
    for (const headers of ['{}', '{"Accept":[]}', '{"Accept":["*/*"],"Empty":[""],"":["x"],"Many":["a","b","c"]}', '{"Acc\\"ept":["\\"x\\"","a\\\\b\\n\\t"]}']) {
      const text = withHeaders(headers);
      expect(fromText(http, fields, text)).toBe(exactly(http, fields, text));
      expect(fromText(http, fields, text)).toContain(`"headers":${headers}`);
    }
  });

  it('should copy a header map of a thousand names, and give up on one whose last name repeats its first', () => {
    // Past the few names compared one by one (avro-json-writers.ts repeatsKey), within the text's notes.
    const names = Array.from({ length: 1_000 }, (_, i) => `"X-Visitor-${String(i).padStart(8, '0')}":[]`);
    const text = withHeaders(`{${names.join(',')}}`);
    expect(fromText(http, fields, text)).toBe(exactly(http, fields, text));
    expect(fromText(http, fields, withHeaders(`{${[...names, names[0]].join(',')}}`))).toBeUndefined();
  });

  it('should give up on header maps the decoded object would change or JSON.stringify write otherwise: repeated or numeric keys, whitespace, "\\/"', () => {
    for (const headers of [
      '{"Dup":["first"],"Other":["x"],"Dup":["last"]}',
      '{"Zed":["1"],"10":["ten"]}',
      '{"Accept": ["*/*"]}',
      '{ "Accept":["*/*"]}',
      '{"Accept":["*/*"] }',
      '{"Accept":["*/*" ,"x"]}',
      '{"Accept":["a\\/b"]}',
      '{"A\\/":["x"]}',
    ]) {
      const text = withHeaders(headers);
      expect(fromText(http, fields, text), headers).toBeUndefined();
    }
  });

  it('should write strings with simple escapes as JSON.stringify writes their values', () => {
    const text = Buffer.from(JSON.stringify({ ...base, http: { ...base.http, request: { ...base.http.request, user_agent: 'a"b\\c\b\f\n\r\t/é€😀' } } }).replace('/é', '\\/é'));
    expect(text.toString()).toContain('\\/');
    const f = ['http.request.user_agent'];
    expect(fromText(http, f, text)).toBe(exactly(http, f, text));
  });

  it('should write absent and null optional fields as null, and leave the other field sets\' texts intact when it gives up on one', () => {
    const text = withHeaders('{"Dup":["a"],"Dup":["b"]}');
    const f = ['oauth.user.id', 'backend.connection_reused', 'http.request.user_agent'];
    expect(fromText(http, f, text)).toBe(exactly(http, f, text));
    // A field set sharing a kept text with one given up on still copies it right.
    const url = ['http.request.url.raw'];
    for (let i = 0; i < 50; i++) {
      expect(fromText(http, [...url, 'http.request.headers'], text)).toBeUndefined();
      expect(fromText(http, url, text)).toBe(exactly(http, url, text));
    }
  });
});
