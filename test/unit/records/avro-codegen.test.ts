// The generated one-pass reader against the reference scanner: the same verdict, and the same code, for every byte string.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TRAFFIC_EVENT_TYPES, type TrafficEventType } from '../../../src/events/catalog.js';
import { createAvroCodec } from '../../../src/records/avro-record.js';
import { compileValidator } from '../../../src/records/avro-scan.js';
import { DecodeError } from '../../../src/records/errors.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import { latestSchema } from '../../../src/records/schema-registry.js';
import { recordArbitrary } from './arbitraries.js';

/** The code and message of what `f` throws, or 'ok'. */
function refusalOf(f: () => unknown): string {
  try {
    f();
    return 'ok';
  } catch (err) {
    return err instanceof DecodeError ? `${err.code}: ${err.message}` : `not a DecodeError: ${String(err)}`;
  }
}

/** The bytes as a slice of a larger ArrayBuffer shared with other bytes, as a Kafka client hands record values over. */
function inSlab(bytes: Buffer, offset: number, slab: Buffer): Buffer {
  const at = offset % Math.max(1, slab.length - bytes.length);
  bytes.copy(slab, at);
  return slab.subarray(at, at + bytes.length);
}

/** A string of ASCII, non-ASCII characters and, as bytes, sequences that are not UTF-8. */
const mixedText = fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('é', '日本', '😀', '\u0080'), fc.constantFrom(0x80, 0xc3, 0xed, 0xff)), { maxLength: 6 });

function codeOf(f: () => unknown): string {
  try {
    f();
    return 'ok';
  } catch (err) {
    return err instanceof DecodeError ? err.code : `not a DecodeError: ${String(err)}`;
  }
}

/** Byte edits of an encoded record: overwrite some bytes, then maybe cut it short or add a tail. */
const mutation = fc.record({
  edits: fc.array(fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }), { minLength: 0, maxLength: 4 }),
  cut: fc.option(fc.nat(), { nil: undefined }),
  tail: fc.option(fc.uint8Array({ minLength: 1, maxLength: 3 }), { nil: undefined }),
});

function mutate(buf: Buffer, m: { edits: { at: number; byte: number }[]; cut?: number; tail?: Uint8Array }): Buffer {
  let out = Buffer.from(buf);
  for (const e of m.edits) out[e.at % out.length] = e.byte;
  if (m.cut !== undefined) out = out.subarray(0, m.cut % out.length);
  if (m.tail !== undefined) out = Buffer.concat([out, m.tail]);
  return out;
}

/** The record with some string leaves set to texts built from the parts: strings, and bytes as Latin-1 characters that the UTF-8 encoding turns into two bytes. */
function withTexts(record: Record<string, unknown>, leaves: readonly string[], texts: readonly [number, readonly (string | number)[]][]): Record<string, unknown> {
  const out = structuredClone(record);
  for (const [at, parts] of texts) {
    const path = leaves[at % leaves.length];
    if (path === undefined) continue;
    // Never empty: some string fields must not be (conn.client_ip).
    const text = `x${parts.map((p) => (typeof p === 'number' ? String.fromCharCode(p) : p)).join('')}`;
    const names = path.split('.');
    let node = out as Record<string, unknown>;
    for (const n of names.slice(0, -1)) node = (node[n] ??= {}) as Record<string, unknown>;
    node[names[names.length - 1] as string] = text;
  }
  return out;
}

describe.each(TRAFFIC_EVENT_TYPES.map((t) => [t]))('the generated reader of %s', (eventType: TrafficEventType) => {
  const codec = createAvroCodec(latestSchema(eventType));
  const logs = codec.plan.leaves.filter((l) => l.type === 'logs').map((l) => `${l.path}[]{}`);
  const scan = compileValidator(latestSchema(eventType).schema, { jsonTextPaths: new Set(logs) });
  // The reference: the closure-tree scanner with the log-value check, then the filterable checks (decodePrefix).
  const reference = (buf: Buffer): string => {
    const scanned = codeOf(() => scan(buf, 0));
    return scanned !== 'ok' ? scanned : codeOf(() => codec.decodePrefix(buf, 0));
  };

  it('should refuse exactly the byte strings the scanner refuses, with the same code', () => {
    fc.assert(
      fc.property(recordArbitrary(eventType), mutation, (record, m) => {
        const bytes = mutate(encodeRecord(eventType, record, 'avro').value, m);
        const expected = reference(bytes);
        expect(codeOf(() => codec.decodeFull(bytes, 0))).toBe(expected);
        // The generated validator agrees with the scanner on every byte string (the filterable checks are the prefix's).
        expect(codeOf(() => codec.validate(bytes, 0))).toBe(codeOf(() => scan(bytes, 0)));
      }),
      { numRuns: 400 },
    );
  });

  it('should refuse what the scanner refuses with the same code and message when strings are not ASCII, wherever the record sits in its ArrayBuffer', () => {
    const slab = Buffer.alloc(64 * 1024);
    const stringLeaves = codec.plan.leaves.filter((l) => l.type === 'string').map((l) => l.path);
    fc.assert(
      fc.property(recordArbitrary(eventType), fc.array(fc.tuple(fc.nat(), mixedText), { maxLength: 3 }), mutation, fc.nat(), (record, texts, m, offset) => {
        // Non-ASCII characters put into string fields, then bytes that may break their UTF-8 written over them.
        const encoded = encodeRecord(eventType, withTexts(record, stringLeaves, texts), 'avro').value;
        const bytes = inSlab(mutate(encoded, m), offset, slab);
        expect(refusalOf(() => codec.validate(bytes, 0))).toBe(refusalOf(() => scan(bytes, 0)));
      }),
      { numRuns: 600 },
    );
  });

  it('should read back what the encoder wrote', () => {
    fc.assert(
      fc.property(recordArbitrary(eventType), (record) => {
        const encoded = encodeRecord(eventType, record, 'avro').value;
        const decoded = codec.decodeFull(encoded, 0);
        expect(codec.decodeFull(codec.encode(decoded), 0)).toEqual(decoded);
      }),
      { numRuns: 200 },
    );
  });
});
