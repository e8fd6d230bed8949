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
