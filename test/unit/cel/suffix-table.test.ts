// The suffix table against String.prototype.endsWith over every stored suffix.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SuffixTable } from '../../../src/cel/suffix-table.js';

// Few characters, so that generated suffixes and texts end alike often; a surrogate pair among them.
const text = fc.array(fc.constantFrom('a', 'b', '.', 'é', '😀'), { maxLength: 8 }).map((cs) => cs.join(''));

describe('SuffixTable', () => {
  it('should give the value of every stored suffix the text ends with, shortest first', () => {
    fc.assert(
      fc.property(fc.uniqueArray(text, { maxLength: 30 }), fc.array(text, { minLength: 1, maxLength: 20 }), (suffixes, texts) => {
        const table = SuffixTable.of(suffixes.map((s, i) => [s, i] as const));
        expect(table.size).toBe(suffixes.length);
        const out: number[] = Array.from({ length: 40 }, () => -1);
        for (const t of texts) {
          const expected = suffixes
            .map((s, i) => ({ s, i }))
            .filter(({ s }) => t.endsWith(s))
            .sort((x, y) => x.s.length - y.s.length)
            .map(({ i }) => i);
          const n = table.collect(t, out);
          expect(out.slice(0, n)).toEqual(expected);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('should keep the later value of a suffix given twice, and find nothing in an empty table', () => {
    const table = SuffixTable.of<string>([['.com', 'first'], ['.com', 'second'], ['', 'any']]);
    const out: string[] = [];
    expect(out.slice(0, table.collect('x.com', out))).toEqual(['any', 'second']);
    expect(SuffixTable.of<string>([]).collect('x.com', out)).toBe(0);
  });
});
