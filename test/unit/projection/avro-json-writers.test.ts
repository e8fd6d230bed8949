// The leaf writers of the byte projections against JSON.stringify, over Avro bytes written here by hand:
// strings with and without bytes to escape, and header maps and their arrays in any number of blocks,
// with the negative block counts (followed by the block's byte size) the Avro spec allows.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringArrayMap, stringBytes } from '../../../src/projection/avro-json-writers.js';

/** Avro's zig-zag varint of a long. */
function long(n: number): number[] {
  let z = n >= 0 ? 2 * n : -2 * n - 1;
  const out: number[] = [];
  while (z >= 128) {
    out.push((z % 128) | 128);
    z = Math.floor(z / 128);
  }
  out.push(z);
  return out;
}

const str = (s: string): number[] => {
  const bytes = [...Buffer.from(s)];
  return [...long(bytes.length), ...bytes];
};

/** Items split into blocks of the given sizes (the rest in one more), each block's count negative (with its byte size) when `sized`. */
function blocks<T>(items: readonly T[], sizes: readonly number[], sized: boolean, item: (t: T) => number[]): number[] {
  const out: number[] = [];
  let i = 0;
  const write = (n: number): void => {
    const bytes = items.slice(i, i + n).flatMap(item);
    i += n;
    out.push(...(sized ? [...long(-n), ...long(bytes.length)] : long(n)), ...bytes);
  };
  for (const n of sizes) if (n > 0 && i + n <= items.length) write(n);
  if (i < items.length) write(items.length - i);
  out.push(0);
  return out;
}

function written(write: (out: Buffer, at: number) => number): string {
  const out = Buffer.alloc(1 << 16);
  // Past the text: bytes the writer must not have touched.
  out.fill(0xee);
  const end = write(out, 3);
  expect(out[end]).toBe(0xee);
  return out.toString('utf8', 3, end);
}

describe('stringBytes', () => {
  it('should write any string as JSON.stringify does, the bytes to escape anywhere in it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.string({ unit: fc.constantFrom('"', '\\', '\n', '\u0000', '\u001f', 'a'), maxLength: 3 }), (s, tail) => {
        const text = `${s}${tail}`;
        const bytes = Buffer.from(`xx${text}`);
        expect(written((out, at) => stringBytes(out, at, bytes, 2, bytes.length))).toBe(JSON.stringify(text));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('stringArrayMap', () => {
  // Keys a decoded object keeps in their order: none starts with a digit, none repeats.
  const key = fc.string({ unit: 'binary', minLength: 0, maxLength: 20 }).filter((k) => !/^[0-9]/.test(k) && k !== '__proto__');
  const entries = fc.uniqueArray(fc.tuple(key, fc.array(fc.string({ unit: 'binary', maxLength: 80 }), { maxLength: 4 })), { selector: ([k]) => k, maxLength: 12 });
  const splits = fc.array(fc.integer({ min: 1, max: 4 }), { maxLength: 4 });

  it('should write any map of string arrays in any blocks as JSON.stringify writes its decoded object', () => {
    fc.assert(
      fc.property(entries, splits, splits, fc.boolean(), (map, mapBlocks, arrayBlocks, sized) => {
        const bytes = Buffer.from([
          0x01,
          ...blocks(map, mapBlocks, sized, ([k, values]) => [...str(k), ...blocks(values, arrayBlocks, !sized, str)]),
          0x02,
        ]);
        expect(written((out, at) => stringArrayMap(out, at, bytes, 1))).toBe(JSON.stringify(Object.fromEntries(map)));
      }),
      { numRuns: 1000 },
    );
  });

  it('should refuse (-1) a map with a repeated key or a key starting with a digit, which the decoded object would reorder', () => {
    const encode = (map: [string, string[]][]): Buffer => Buffer.from(blocks(map, [], false, ([k, values]) => [...str(k), ...blocks(values, [], false, str)]));
    const out = Buffer.alloc(1024);
    expect(stringArrayMap(out, 0, encode([['a', ['1']], ['b', []], ['a', ['2']]]), 0)).toBe(-1);
    expect(stringArrayMap(out, 0, encode([['a', ['1']], ['7up', ['2']]]), 0)).toBe(-1);
    expect(stringArrayMap(out, 0, encode([['a', ['1']], ['ab', ['2']]]), 0)).toBeGreaterThan(0);
  });
});
