// The fast path of JSON records (src/records/json-scan.ts, json-transcode.ts) against the exact JSON decoder it
// stands in for: the same records accepted with the same content, the same refusals with the same code and message.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TRAFFIC_EVENT_TYPES, type TrafficEventType } from '../../../src/events/catalog.js';
import { createRecordDecoder, type RecordDecoder } from '../../../src/records/record-decoder.js';
import type { FilterableResult, RawMessage } from '../../../src/records/record-types.js';
import { TrafficGenerator } from '../../../src/traffic/generator.js';
import { recordArbitrary } from './arbitraries.js';

const HEADERS = { 'content-type': 'application/json' };

/** The decoders under comparison, in both of the decoder's modes. */
const MODES = [true, false].map((validateAll) => ({
  validateAll,
  fast: createRecordDecoder({ validateAll }),
  exact: createRecordDecoder({ validateAll, fastJson: false }),
}));

/** What a decoder makes of a record, in comparable form: the refusal, or the filterable fields and the full decode. */
function outcome(decoder: RecordDecoder, eventType: TrafficEventType, value: Buffer): unknown {
  const msg: RawMessage = { value, headers: HEADERS };
  const r: FilterableResult = decoder.decodeFilterable(eventType, msg);
  if (!r.ok) return { refused: r.code, message: r.message };
  const full = r.full();
  return { filterable: r.filterable, full: full.ok ? { record: JSON.stringify(full.record) } : { refused: full.code, message: full.message } };
}

function expectSame(eventType: TrafficEventType, value: Buffer): void {
  for (const m of MODES) expect(outcome(m.fast, eventType, value), `validateAll ${m.validateAll}: ${value.toString('latin1')}`).toEqual(outcome(m.exact, eventType, value));
}

/** Pieces spliced into a record's text: whitespace, syntax, escapes, odd numbers, repeated and unknown members, bytes that are not UTF-8. */
const PIECES: readonly Buffer[] = [
  ' ',
  '\n\t',
  ',',
  ':',
  '"',
  '\\',
  '\\"',
  '\\n',
  '\\/',
  '\\u0041',
  '\\ud800',
  '\\x',
  'null',
  'true',
  '0',
  '-0',
  '1.0',
  '1e2',
  '2147483648',
  '9007199254740993',
  '{',
  '}',
  '[',
  ']',
  '{}',
  '[]',
  '"__proto__":1,',
  '"conn":null,',
  '"conn":{},',
  '"http":null,',
  '"unknown":1,',
  '"server_port":443,',
  '"start_ts":"2024-05-01T12:00:00Z",',
  '"x":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]],',
  '1e400',
  '\u00e9',
  '\u2028',
]
  .map((s) => Buffer.from(s))
  .concat([Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0x01]), Buffer.from([0xef, 0xbb, 0xbf])]);

const edit = fc.record({ at: fc.nat(), cut: fc.nat({ max: 4 }), piece: fc.constantFrom(...PIECES) });

function applyEdits(text: Buffer, edits: readonly { at: number; cut: number; piece: Buffer }[]): Buffer {
  let out = text;
  for (const e of edits) {
    const at = e.at % (out.length + 1);
    out = Buffer.concat([out.subarray(0, at), e.piece, out.subarray(Math.min(out.length, at + e.cut))]);
  }
  return out;
}

/** The record's text with its members in another order, and with whitespace between every token. */
function shuffled(v: unknown, seed: number): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const entries = Object.entries(v);
  const order = entries.map((_, i) => i).sort((a, b) => ((a * 7 + seed) % 5) - ((b * 7 + seed) % 5));
  const out: Record<string, unknown> = {};
  for (const i of order) {
    const [k, x] = entries[i] as [string, unknown];
    out[k] = shuffled(x, seed + 1);
  }
  return out;
}

describe.each(TRAFFIC_EVENT_TYPES)('JSON %s on the fast path', (eventType) => {
  it('should accept what the exact decoder accepts, with the same content, however the text is spaced and ordered', () => {
    fc.assert(
      fc.property(recordArbitrary(eventType), fc.nat(), fc.boolean(), (record, seed, spaced) => {
        expectSame(eventType, Buffer.from(JSON.stringify(record)));
        expectSame(eventType, Buffer.from(JSON.stringify(shuffled(record, seed), null, spaced ? 2 : undefined)));
      }),
      { numRuns: 300 },
    );
  });

  it('should refuse what the exact decoder refuses, with the same code and message, and accept the rest alike', () => {
    fc.assert(
      fc.property(recordArbitrary(eventType), fc.array(edit, { minLength: 1, maxLength: 3 }), (record, edits) => {
        expectSame(eventType, applyEdits(Buffer.from(JSON.stringify(record)), edits));
      }),
      { numRuns: 1500 },
    );
  });

  it('should take the fast path for every record without \\u escapes, in any member order', () => {
    fc.assert(
      fc.property(recordArbitrary(eventType), fc.nat(), (record, seed) => {
        const text = JSON.stringify(shuffled(record, seed));
        fc.pre(!text.includes('\\u'));
        const r = MODES[0]?.fast.decodeFilterable(eventType, { value: Buffer.from(text), headers: HEADERS });
        expect(r?.ok && r.avro !== undefined, text).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('JSON records the fast path must not take at face value', () => {
  const conn = '"client_ip":"10.0.0.1","server_ip":"10.0.0.2","server_name":"a.example","server_port":443,"start_ts":"2024-05-01T12:00:00Z","end_ts":"2024-05-01T12:00:01Z","bytes_in":1,"bytes_out":2';
  const bytesIn = (n: number | string): string => conn.replace('"bytes_in":1', `"bytes_in":${n}`);
  const cases = [
    `{"conn":{${conn}}}`,
    `{"conn":{${conn}},"conn":null}`,
    `{"conn":null,"conn":{${conn}}}`,
    `{"conn":{${conn}},"conn":{${conn},"server_port":80}}`,
    `{"conn":{${conn},"server_port":80,"server_port":443}}`,
    `{"conn":{${conn},"server_port":null}}`,
    `{"conn":{${conn},"bytes_in":1.0}}`,
    `{"conn":{${conn},"bytes_in":-0}}`,
    `{"conn":{${conn},"bytes_in":1e2}}`,
    `{"conn":{${conn},"server_port":65536}}`,
    // Integers whose zig-zag form is beyond a double's exact range.
    `{"conn":{${bytesIn(-4503599627370497)}}}`,
    `{"conn":{${bytesIn(4503599627370496)}}}`,
    `{"conn":{${bytesIn(-9007199254740990)}}}`,
    `{"conn":{${bytesIn(9007199254740990)}}}`,
    `{"conn":{${bytesIn(9007199254740991)}}}`,
    `{"conn":{${conn},"server_name":"a\\u0041"}}`,
    `{"conn":{${conn},"server_name":"a\u0041"}}`,
    `{"conn":{${conn},"server_name":"a\ud800"}}`,
    `{"conn":{${conn},"start_ts":"2024-05-01t12:00:00.1234567+02:00"}}`,
    `{"conn":{${conn}},"traffic_policy":{"logs":[{"a":1e400}]}}`,
    `{"conn":{${conn}},"traffic_policy":{"logs":[{"a":{"__proto__":1},"b":[1,2.5,-3e-2,"x\\n"]}]}}`,
    `{"conn":{${conn}},"traffic_policy":{"logs":[{"__proto__":1}]}}`,
    `{"conn":{${conn}},"traffic_policy":{"logs":[{"a":1,"a":2}]}}`,
    // A member name inside a log value that lost its opening quote: not JSON at all (found by the property below).
    `{"conn":{${conn}},"traffic_policy":{"logs":[{"a":{"b":1, c":2}}]}}`,
    `{"conn":{${conn}},"traffic_policy":null}`,
    `{"conn":{${conn}},"traffic_policy":{"logs":[]}}`,
    `{"conn":{${conn}},"traffic_policy":{"logs":{}}}`,
    `{"conn":{${conn}}} x`,
    `\ufeff{"conn":{${conn}}}`,
    `{"__proto__":{},"conn":{${conn}}}`,
    `[{"conn":{${conn}}}]`,
    // Strings: escapes where the scan finds a quote first, raw control characters, text that is not ASCII.
    `{"conn":{${conn},"server_name":"a\\"}}`,
    `{"conn":{${conn},"server_name":"a\\\\"}}`,
    `{"conn":{${conn},"server_name":"a\\"b"}}`,
    `{"conn":{${conn},"server_name":"a\\/b\\tc"}}`,
    `{"conn":{${conn},"server_name":"a\tb"}}`,
    `{"conn":{${conn},"server_name":"\u00e9t\u00e9.example"}}`,
    `{"conn":{${conn},"server_name":""}}`,
    `{"conn":{${conn},"client_ip":""}}`,
    `{"conn":{${conn},"server_name":"a.example`,
    `{"conn":{${conn},"server_name":"a.example\\`,
    `{"conn":{${conn},"server_name\\u0041":"x"}}`,
    `{"conn":{${conn},"server\\_name":"x"}}`,
    `{"conn":{${conn},"server_nam":"x"}}`,
    `{"conn":{${conn},"server_namex":"x"}}`,
    // Numbers at the bounds of their types and of the fast read.
    `{"conn":{${conn},"server_port":-1}}`,
    `{"conn":{${conn},"server_port":0}}`,
    `{"conn":{${conn},"server_port":65535}}`,
    `{"conn":{${conn},"server_port":0443}}`,
    `{"conn":{${conn},"server_port":"443"}}`,
    `{"conn":{${conn},"server_port":443x}}`,
    `{"conn":{${conn},"server_port":-}}`,
    `{"conn":{${bytesIn(2147483648)}}}`,
    `{"conn":{${bytesIn(-9007199254740991)}}}`,
    `{"conn":{${bytesIn(1234567890123456)}}}`,
    `{"conn":{${bytesIn('12345678901234567')}}}`,
    `{"conn":{${conn},"bytes_in":true}}`,
    // Members missing, null, repeated, unknown, in another order; whitespace everywhere.
    `{"conn":{${conn},"bytes_out":null,"end_ts":null}}`,
    `{"conn":{${conn.replace('"client_ip":"10.0.0.1",', '')}}}`,
    `{"conn":{${conn},"client_ip":null}}`,
    `{"conn":{${conn},"start_ts":null}}`,
    `{"conn":{${conn},"start_ts":"2024-05-01T12:00:00"}}`,
    `{"conn":{${conn},"start_ts":"2024-05-01T12:00:00\\u005a"}}`,
    `{"conn":{${conn}},"tls":null,"tls":null}`,
    `{"tls":{"version":"1.3","client_cert":{"subject":{"cn":"x"}}},"conn":{${conn}}}`,
    `{"conn":{${conn}},"tls":{"client_cert":{"subject":{"cn":"x","cn":"y"}}}}`,
    `{"conn":{${conn}},"tls":{"client_cert":{"subject":{"dn":"x"}}}}`,
    `{"conn":{${conn}},"tls":{"client_cert":null}}`,
    `{"conn":{${conn}},"tls":{"client_cert":[]}}`,
    `{"conn":{${conn}},}`,
    `{"conn":{${conn},}}`,
    `{"conn":{${conn}} ,"tls":{}}`,
    ` \t\r\n{ "conn" : { ${conn.replace(/,/g, ' ,\n ').replace(/:/g, ' :\t')} } } \n`,
    `{"conn":{${conn}}}\u0000`,
    `{"conn" {${conn}}}`,
    `{"conn":{${conn}}`,
    `{"conn":{${conn}}}}`,
    `nul`,
    `null`,
    `{}`,
    // Log values: any JSON value, deep nesting, numbers the exact decoder makes Infinity.
    `{"conn":{${conn}},"traffic_policy":{"logs":[{"a":[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}]}}`,
    `{"conn":{${conn}},"traffic_policy":{"logs":[{"a":${'['.repeat(40)}${']'.repeat(40)}}]}}`,
    `{"conn":{${conn}},"traffic_policy":{"logs":[{"a":1${'0'.repeat(320)}}]}}`,
    `{"conn":{${conn}},"traffic_policy":{"logs":[{"a":-0.0e-0,"b":"\\"","c":{},"d":[],"e":false,"f":null}, {}]}}`,
    `{"conn":{${conn}},"traffic_policy":{"logs":[{"a":01}]}}`,
    `{"conn":{${conn}},"traffic_policy":{"logs":[{"a":1.}]}}`,
    `{"conn":{${conn}},"traffic_policy":{"logs":[{"a":tru}]}}`,
    `{"conn":{${conn}},"traffic_policy":{"logs":[{"a" 1}]}}`,
    `{"conn":{${conn}},"traffic_policy":{"logs":[1]}}`,
  ];
  it.each(cases)('%s', (text) => {
    expectSame('tcp_connection_closed.v0', Buffer.from(text));
  });

  it('should write every int64 exactly, however large', () => {
    fc.assert(
      fc.property(fc.integer({ min: -9_007_199_254_740_990, max: 9_007_199_254_740_990 }), (n) => {
        const r = MODES[0]?.fast.decodeFilterable('tcp_connection_closed.v0', { value: Buffer.from(`{"conn":{${bytesIn(n)}}}`), headers: HEADERS });
        const full = r?.ok === true ? r.full() : undefined;
        expect(r?.ok === true && r.avro !== undefined).toBe(true);
        expect(full?.ok === true && (full.record.conn as Record<string, unknown>).bytes_in).toBe(n);
      }),
    );
  });

  it('should read a header map that repeats a name or starts one with a digit as the exact decoder does', () => {
    const base = '"conn":{"client_ip":"10.0.0.1","server_ip":"10.0.0.2","server_name":"a.example","server_port":443,"start_ts":"2024-05-01T12:00:00Z"},"http":{"request":{"method":"GET","url":{"raw":"/","scheme":"https","host":"a.example","path":"/"}},"response":{"status_code":200,"headers":';
    const headerMaps = [
      '{"b":["1"],"a":["2"],"b":["3"]}',
      '{"x":["1"],"1":["2"],"\\n":["3", "\\t"]}',
      '{"__proto__":["1"]}',
      '{}',
      '{"a":[]}',
      '{ "a" : [ "1" , "2" ] , "b" : [ ] }',
      '{"a":["x\\"y"],"b\\"c":["\\\\"]}',
      '{"a":["\u00e9"],"\u00e9":["1"]}',
      '{"a":["\\u0041"]}',
      // More strings than the scan notes for the writer (json-transcode.ts NOTES): the rest of the map is walked again.
      `{"a":[${'"x",'.repeat(1100)}"y"],"b\\"":["z\\n"]}`,
      `{${Array.from({ length: 600 }, (_, n) => `"h${n}":["v\\t${n}"${n % 3 === 0 ? ',"w"' : ''}]`).join(',')}}`,
      '{"a":["1",]}',
      '{"a":"1"}',
      '{"a":[1]}',
      '{"a":[null]}',
      '{"a":["1"],}',
      '{"a":["1"]',
      'null',
      '[]',
    ];
    for (const headers of headerMaps) {
      expectSame('http_request_complete.v0', Buffer.from(`{${base}${headers}}}}`));
    }
  });
});

/**
 * The record's bytes at `offset` in an ArrayBuffer of their own that ends where they end, as a Kafka client's
 * slice of a fetch response is a view at any offset: a read past the record's end, word or byte, throws.
 */
function atEnd(text: Buffer, offset: number): Buffer {
  const view = Buffer.from(new ArrayBuffer(offset + text.length), offset, text.length);
  text.copy(view);
  return view;
}

/** The record's bytes at `offset` in an ArrayBuffer, followed by `after`: bytes a read past the end would take for the record's. */
function followedBy(text: Buffer, offset: number, after: string): Buffer {
  const ab = new ArrayBuffer(offset + text.length + after.length);
  Buffer.from(ab).write(after, offset + text.length, 'latin1');
  const view = Buffer.from(ab, offset, text.length);
  text.copy(view);
  return view;
}

describe('JSON strings and member names, read four bytes at a time', () => {
  const base = '"client_ip":"10.0.0.1","server_ip":"10.0.0.2","server_name":"a.example","server_port":443,"start_ts":"2024-05-01T12:00:00Z","end_ts":"2024-05-01T12:00:01Z","bytes_in":1,"bytes_out":2';
  const conn = (name: string): string => `{"conn":{${base.replace('a.example', name)}}}`;
  // Each byte the word test flags (a quote, a backslash, control characters at both ends of the range) and
  // bytes it must not flag: the same bytes with the high bit set, inside UTF-8 sequences.
  const specials = ['\\"', '\\\\', '\\n', '\t', '\u0000', '\u0001', '\u001f', ' ', '\u00a2', '\u00dc', '\u00e9', '\u0700', '\u00a0', '\u2028', '\u{1f600}'];
  const names = specials.flatMap((special) => Array.from({ length: 9 }, (_, at) => `${'a'.repeat(at)}${special}${'b'.repeat(8 - at)}`));

  it('should read a string with each kind of byte at every offset in a word and the record at every offset in its memory as the exact decoder does', () => {
    for (const name of names) {
      const text = Buffer.from(conn(name));
      for (let offset = 0; offset < 4; offset++) {
        expectSame('tcp_connection_closed.v0', atEnd(text, offset));
        expectSame('tcp_connection_closed.v0', followedBy(text, offset, '"}}'));
      }
    }
  });

  it('should never read past the end of a record, wherever it is cut', () => {
    const g = new TrafficGenerator({ seed: 11, httpShare: 1 });
    const records = [Buffer.from(conn('a.example')), g.nextMessage('json').value as Buffer];
    for (const record of records) {
      const type = record === records[0] ? 'tcp_connection_closed.v0' : 'http_request_complete.v0';
      for (let n = 0; n <= record.length; n++) {
        for (let offset = 0; offset < 4; offset++) {
          expectSame(type, atEnd(record.subarray(0, n), offset));
          // The rest of the record right after the cut, in the same memory: a read past the cut that does not
          // throw would find the bytes that complete it, and accept what the exact decoder refuses.
          expectSame(type, followedBy(record.subarray(0, n), offset, record.subarray(n).toString('latin1')));
        }
      }
    }
  });

  it('should match a member name with its closing quote, and no name that only begins or ends like one', () => {
    const tls = (inner: string): string => `{"conn":{${base}},"tls":{"client_cert":{"subject":${inner}}}}`;
    const cases = [
      // Names shorter than a word, a word long with their quote, and sharing their first word with another.
      tls('{"cn":"x"}'),
      tls('{"c":"x"}'),
      tls('{"cn ":"x"}'),
      tls('{"cnx":"x"}'),
      tls('{"c\\n":"x"}'),
      tls('{"cn'),
      tls('{"cn"'),
      `{"conn":{${base}},"tls":{"version":"1.3"}}`,
      `{"conn":{${base}},"tlsx":{"version":"1.3"}}`,
      `{"conn":{${base}},"tl":{"version":"1.3"}}`,
      `{"conn":{${base}},"tls`,
      `{"conn":{${base.replace('"server_ip"', '"server_i"')}}}`,
      `{"conn":{${base.replace('"server_ip"', '"server_ipx"')}}}`,
      `{"conn":{${base.replace('"server_ip"', '"server_ip\\u0000"')}}}`,
      `{"conn":{${base.replace('"server_ip"', '"serv"')}}}`,
      `{"conn":{${base.replace('"server_ip"', '"server_"')}}}`,
      `{"con":{${base}}}`,
      `{"connx":{${base}}}`,
      `{"conn\\"":{${base}}}`,
      `{"conn":{${base},"c":1}}`,
      `{"conn":{${base},"":1}}`,
      `{"":1,"conn":{${base}}}`,
    ];
    for (const text of cases) {
      for (let offset = 0; offset < 4; offset++) expectSame('tcp_connection_closed.v0', atEnd(Buffer.from(text), offset));
    }
  });
});

describe('generated JSON traffic', () => {
  it('should all take the fast path and decode as the exact decoder does', () => {
    const g = new TrafficGenerator({ seed: 7, httpShare: 0.8 });
    const fast = MODES[0]?.fast as RecordDecoder;
    for (let n = 0; n < 2000; n++) {
      const m = g.nextMessage('json');
      const value = m.value as Buffer;
      const r = fast.decodeFilterable(m.eventType, { value, headers: HEADERS });
      expect(r.ok && r.avro !== undefined).toBe(true);
      expectSame(m.eventType, value);
    }
  });
});
