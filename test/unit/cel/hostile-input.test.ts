// Hostile filters: each ends quickly with a clear error, or evaluates within a bound.
import { describe, expect, it } from 'vitest';
import {
  MAX_AST_DEPTH,
  MAX_EVALUATION_COST,
  MAX_LIST_ELEMENTS,
  MAX_NESTING_DEPTH,
  compile,
  compileFilter,
} from '../../../src/cel/compile.js';
import { GENERAL_LIMITS, compileProgram } from '../../../src/cel/compiler/program.js';
import { filterEnv } from '../../../src/cel/filter-env.js';
import type { FilterProblem } from '../../../src/cel/types.js';

const TCP = 'tcp_connection_closed.v0';

/** Runs `f` and returns its result with the elapsed wall time in milliseconds. */
function timed<T>(f: () => T): { result: T; ms: number } {
  const start = performance.now();
  const result = f();
  return { result, ms: performance.now() - start };
}

function tooLarge(text: string): FilterProblem {
  const { result, ms } = timed(() => compile(text, TCP));
  if (result.ok) throw new Error('expected the filter to be refused');
  expect(result.problems).toHaveLength(1);
  const p = result.problems[0] as FilterProblem;
  expect(p.code).toBe('too_large');
  // Shared CI machines are slow; the point is "not seconds", and not a stack overflow.
  expect(ms).toBeLessThan(1000);
  return p;
}

describe('hostile filters', () => {
  it('a ReDoS pattern should match in linear time (RE2), on a long string', () => {
    const r = compileFilter('ev.conn.server_name.matches("(a+)+$") || ev.conn.server_name.matches("^(a|a)*$")', TCP);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const evil = `${'a'.repeat(50_000)}!`;
    const { result, ms } = timed(() => r.filter.evaluate({ conn: { server_name: evil } }));
    expect(result).toBe(false);
    expect(ms).toBeLessThan(2000);
    expect(r.filter.evaluate({ conn: { server_name: 'aaaa' } })).toBe(true);
  });

  it('a ReDoS pattern taken from the record should be bounded too', () => {
    const r = compileFilter('ev.conn.server_name.matches(ev.conn.client_ip)', TCP);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const { result, ms } = timed(() => r.filter.evaluateRaw({ conn: { server_name: `${'a'.repeat(20_000)}!`, client_ip: '^(a*)*$' } }));
    expect(result).toBe(false);
    expect(ms).toBeLessThan(2000);
  });

  it('10,000-deep parentheses should be refused quickly, by length before nesting', () => {
    tooLarge(`${'('.repeat(10_000)}true${')'.repeat(10_000)}`);
  });

  it('deep parentheses within the length limit should be refused before parsing, at the first level too deep', () => {
    const text = `${'('.repeat(2000)}true${')'.repeat(2000)}`;
    const p = tooLarge(text);
    expect(p.column).toBe(MAX_NESTING_DEPTH + 1);
    expect(p.message).toContain(`limit is ${MAX_NESTING_DEPTH}`);
  });

  it('deep lists, calls and conditionals should be refused before parsing', () => {
    tooLarge(`${'['.repeat(2000)}1${']'.repeat(2000)}`);
    tooLarge(`${'size('.repeat(800)}"x"${')'.repeat(800)} > 0`);
    tooLarge(`${'true ? true : '.repeat(300)}true`);
  });

  it('10,000-deep nesting should not overflow the stack in the general compiler either', () => {
    for (const text of [`${'('.repeat(10_000)}1${')'.repeat(10_000)}`, `${'['.repeat(10_000)}1${']'.repeat(10_000)}`]) {
      const { result, ms } = timed(() => compileProgram(text, { env: filterEnv(TCP), limits: GENERAL_LIMITS }));
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.issues[0]).toMatchObject({ code: 'too_large', offset: GENERAL_LIMITS.maxNesting });
      expect(ms).toBeLessThan(1000);
    }
  });

  it('deep trees the parser builds without recursion (1+1+..., x[0][0]...) should hit the depth limit', () => {
    expect(tooLarge(`ev.conn.server_port == ${Array.from({ length: 1000 }, () => '1').join('+')}`).message).toContain(
      `limit ${MAX_AST_DEPTH}`,
    );
    tooLarge(`ev.conn.server_port${'[0]'.repeat(1000)} == 1`);
  });

  it('a 1 MB literal should be refused by length before it is parsed', () => {
    tooLarge(`ev.conn.server_name == "${'x'.repeat(1 << 20)}"`);
    tooLarge(`ev.conn.server_name == b"${'\\x00'.repeat(1 << 18)}"`);
  });

  it('a list literal over the limit should be refused', () => {
    const list = Array.from({ length: MAX_LIST_ELEMENTS + 1 }, (_, i) => i % 10).join(',');
    expect(tooLarge(`ev.conn.server_port in [${list}]`).message).toContain(`limit ${MAX_LIST_ELEMENTS}`);
  });

  it('a list literal at the limit should compile and evaluate', () => {
    const list = Array.from({ length: MAX_LIST_ELEMENTS }, (_, i) => i).join(',');
    const r = compileFilter(`ev.conn.server_port in [${list}]`, TCP);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.filter.evaluate({ conn: { server_port: MAX_LIST_ELEMENTS - 1 } })).toBe(true);
  });

  it('nested comprehensions whose work multiplies should be refused by the cost bound', () => {
    const l = `[${Array.from({ length: 60 }, (_, i) => i).join(',')}]`;
    const text = `${l}.exists(a, ${l}.exists(b, ${l}.exists(c, a + b + c == ev.conn.server_port)))`;
    const { result, ms } = timed(() => compile(text, TCP));
    if (result.ok) throw new Error('expected the filter to be refused');
    expect(result.problems).toMatchObject([{ code: 'too_costly', limit: MAX_EVALUATION_COST }]);
    expect(result.problems[0]?.cost).toBeGreaterThan(60 ** 3);
    expect(result.problems[0]?.message).toContain(`the limit is ${MAX_EVALUATION_COST}`);
    expect(ms).toBeLessThan(1000);
  });

  it('comprehensions within the cost bound should evaluate quickly', () => {
    const l = `[${Array.from({ length: 10 }, (_, i) => i).join(',')}]`;
    const r = compileFilter(`${l}.exists(a, ${l}.exists(b, a * b == ev.conn.server_port))`, TCP);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const { result, ms } = timed(() => r.filter.evaluate({ conn: { server_port: 81 } }));
    expect(result).toBe(true);
    expect(ms).toBeLessThan(1000);
  });
});
