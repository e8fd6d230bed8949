import { describe, expect, it } from 'vitest';
import { leadingMemberSpan } from '../../../src/records/json-lead.js';
import { createRecordDecoder } from '../../../src/records/record-decoder.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import type { FilterableResult } from '../../../src/records/record-types.js';
import { seededRecord } from '../../../src/traffic/seeded-records.js';

const HTTP = 'http_request_complete.v0';
const decoder = createRecordDecoder();
const json = (text: string) => ({ value: Buffer.from(text), headers: { 'content-type': 'application/json' } });

function spanText(text: string): string | undefined {
  const buf = Buffer.from(text);
  const span = leadingMemberSpan(buf, Buffer.from('"conn"'));
  return span === undefined ? undefined : buf.toString('utf8', span.start, span.end);
}

function fullCode(result: FilterableResult): string {
  if (!result.ok) return `cheap read: ${result.code}`;
  const full = result.full();
  return full.ok ? 'ok' : full.code;
}

describe('the leading conn span', () => {
  it('should cover the conn object when it is the first member, across whitespace', () => {
    expect(spanText(' {\n "conn" : {"a": 1} , "http": {}}')).toBe('{"a": 1}');
  });

  it('should follow strings holding braces and escaped quotes, and nested values', () => {
    expect(spanText('{"conn": {"a": "}\\"{", "b": [{"c": "]"}]}, "x": 1}')).toBe('{"a": "}\\"{", "b": [{"c": "]"}]}');
  });

  it('should give nothing when conn is not first, is not an object, or never closes', () => {
    expect(spanText('{"http": {}, "conn": {}}')).toBeUndefined();
    expect(spanText('{"conn": null}')).toBeUndefined();
    expect(spanText('{"conn": {"a": "}')).toBeUndefined();
    expect(spanText('{"connx": {}}')).toBeUndefined();
    expect(spanText('')).toBeUndefined();
  });
});

describe('the cheap read of a JSON record', () => {
  const text = encodeRecord(HTTP, seededRecord(HTTP, 3), 'json').value.toString();
  const record = JSON.parse(text) as Record<string, unknown>;

  it('should decode a record whose conn comes last the same way as one whose conn comes first', () => {
    const { conn, ...rest } = record;
    const first = decoder.decodeFilterable(HTTP, json(text));
    const last = decoder.decodeFilterable(HTTP, json(JSON.stringify({ ...rest, conn })));
    if (!first.ok || !last.ok) throw new Error('expected both to decode');
    expect(last.filterable).toEqual(first.filterable);
    expect(last.full()).toEqual(first.full());
  });

  it('should refuse at the full decode a record with a second conn that the filter did not see', () => {
    const twice = `${text.slice(0, -1)},"conn":${JSON.stringify({ ...(record.conn as object), server_port: 8443 })}}`;
    const result = decoder.decodeFilterable(HTTP, json(twice));
    expect(result.ok && result.filterable.conn?.server_port).toBe((record.conn as { server_port: number }).server_port);
    expect(fullCode(result)).toBe('schema_violation');
  });

  it('should leave the rest of the text to the full decode, which refuses it when it is broken', () => {
    expect(fullCode(decoder.decodeFilterable(HTTP, json(`${text.slice(0, -1)},`)))).toBe('invalid_json');
    const bytes = Buffer.from(text);
    const at = bytes.indexOf('"gzip"');
    expect(at).toBeGreaterThan(0);
    bytes[at + 1] = 0xff;
    expect(fullCode(decoder.decodeFilterable(HTTP, { ...json(''), value: bytes }))).toBe('invalid_utf8');
  });

  it('should refuse a broken conn at the cheap read', () => {
    expect(fullCode(decoder.decodeFilterable(HTTP, json('{"conn": {"client_ip": "10.0.0.1",]}')))).toBe('cheap read: invalid_json');
    expect(fullCode(decoder.decodeFilterable(HTTP, json('{"conn": {"client_ip": "10.0.0.1"}}')))).toBe('cheap read: schema_violation');
  });
});
