// plainJsonText (json-scan.ts), the check of a log value inside an Avro record before JSON.parse: it accepts
// only what JSON.parse accepts within the value's bytes, whatever bytes follow them, and accepts the plain
// values log entries hold.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_LOG_VALUE_DEPTH, tooDeep } from '../../../src/records/json-record.js';
import { plainJsonText } from '../../../src/records/json-scan.js';

/** `text` between other bytes, as a log value lies in a record: its start and end. */
function embedded(text: string, before: string, after: string): { buf: Buffer; a: number; end: number } {
  const head = Buffer.from(before, 'latin1');
  const body = Buffer.from(text, 'utf8');
  return { buf: Buffer.concat([head, body, Buffer.from(after, 'latin1')]), a: head.length, end: head.length + body.length };
}

/** What the exact path decides: a JSON text nesting at most MAX_LOG_VALUE_DEPTH levels. */
function parsesShallow(text: string): boolean {
  try {
    return !tooDeep(JSON.parse(text));
  } catch {
    return false;
  }
}

// Bytes after a value that would extend or complete it if the check read past its end.
const FOLLOWERS = ['', '0', '9"', '"', 'e5', '.5', ']', '}', ' ', 'rue', '\u0000', ',1]'];
// Bytes that follow a log value in an Avro record: the next key's length, or the end of the map's blocks. A
// number followed by a digit, a dot or an e is left to JSON.parse.
const AVRO_FOLLOWERS = ['', '\u0000', '\u0008', '\u0014', '"', ' '];

describe('plainJsonText', () => {
  it('should accept the plain values of log entries', () => {
    for (const text of ['"log"', '"rate-limit"', '429', '-1.5e3', 'true', 'false', 'null', '"10.0.0.0/8"', '{"a":[1,2,{"b":null}]}', '[]', '{}', ' "x" ', '"caf\u00e9"', '"a\\"b\\n"']) {
      for (const after of AVRO_FOLLOWERS) {
        const { buf, a, end } = embedded(text, '\u0006', after);
        expect(plainJsonText(buf, a, end), `${text} followed by ${JSON.stringify(after)}`).toBe(true);
      }
    }
  });

  it('should give up on what is not one JSON text within the bytes, whatever follows them', () => {
    for (const text of ['', ' ', '"log', 'tru', '12 3', '01', '1.', '-', '{"a":1', '[1,]', '{"a"}', "'x'", 'NaN', '"\u0001"', '"\\x"', 'nul', '"a" "b"', '[1] x']) {
      for (const after of FOLLOWERS) {
        const { buf, a, end } = embedded(text, '', after);
        expect(plainJsonText(buf, a, end), `${JSON.stringify(text)} followed by ${JSON.stringify(after)}`).toBe(false);
      }
    }
  });

  it('should leave nesting deeper than 16, \\u escapes and numbers JSON.parse makes Infinity to JSON.parse', () => {
    const nested = (depth: number): Buffer => Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`);
    expect(plainJsonText(nested(16), 0, 32)).toBe(true);
    expect(plainJsonText(nested(17), 0, 34)).toBe(false);
    expect(plainJsonText(nested(MAX_LOG_VALUE_DEPTH + 1), 0, 2 * (MAX_LOG_VALUE_DEPTH + 1))).toBe(false);
    expect(plainJsonText(Buffer.from('"\\u00e9"'), 0, 8)).toBe(false);
    expect(plainJsonText(Buffer.from('1e999'), 0, 5)).toBe(false);
  });

  it('should accept only texts that JSON.parse accepts at a depth the exact path allows, for any text and any bytes after it', () => {
    const token = fc.constantFrom('{', '}', '[', ']', ',', ':', '"', '\\', 'a', '1', '0', '-', '+', '.', 'e', 'E', 'true', 'false', 'null', ' ', '\n', '\t', '\r', '\u0001', '\u00e9', '"k"', '"v"');
    fc.assert(
      fc.property(fc.array(token, { maxLength: 24 }), fc.constantFrom(...FOLLOWERS), (tokens, after) => {
        const text = tokens.join('');
        const { buf, a, end } = embedded(text, '"', after);
        if (plainJsonText(buf, a, end)) expect(parsesShallow(text), JSON.stringify(text)).toBe(true);
      }),
      { numRuns: 20_000 },
    );
  });
});
