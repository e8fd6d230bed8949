// Differential test: random well-typed filters over the Filterable fields, on random records, against @bufbuild/cel's evaluator.
//
// Outcomes are compared raw (value or error), before the filter's "an error means no match" rule.
// Each generated expression is compiled once and evaluated over many records, so the run is cheap
// enough to cover well over 100,000 (expression, record) pairs.
import { CelScalar, celEnv, isCelError, isCelUint, mapType, parse, plan, type CelResult } from '@bufbuild/cel';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileFilter } from '../../../src/cel/compile.js';
import { compileProgram } from '../../../src/cel/compiler/program.js';
import { CelErr, CelUint, type Value } from '../../../src/cel/compiler/values.js';
import { filterEnv } from '../../../src/cel/filter-env.js';
import { FILTER_LIMITS } from '../../../src/cel/limits.js';
import { conjuncts } from '../../../src/cel/matcher-analysis.js';
import { grammar, rawRecord, type Expr } from './differential-arbitraries.js';

const EVENT = 'tcp_connection_closed.v0';
const reference = celEnv({ variables: { ev: mapType(CelScalar.STRING, CelScalar.DYN) } });

/** The reference reads integers only from bigint; a JSON number would be a double to it. */
function forReference(rec: Record<string, unknown>): Record<string, unknown> {
  const conn = rec.conn as Record<string, unknown> | undefined;
  if (conn === undefined) return rec;
  const out: Record<string, unknown> = { ...conn };
  if (typeof conn.server_port === 'number') out.server_port = BigInt(conn.server_port);
  return { conn: out };
}

type Outcome = { readonly error: true } | { readonly error: false; readonly value: unknown };

function ours(v: Value): Outcome {
  if (v instanceof CelErr) return { error: true };
  if (v instanceof CelUint) return { error: false, value: `${v.value}u` };
  return { error: false, value: v };
}

function theirs(r: CelResult): Outcome {
  if (isCelError(r)) return { error: true };
  if (isCelUint(r)) return { error: false, value: `${r.value}u` };
  return { error: false, value: r };
}

const counts = { pairs: 0, errors: 0, matches: 0 };

/** Values are compared on the filters the engine accepts: a generated one past the work bound (src/cel/limits.ts) is skipped. */
function withinCost(text: string): boolean {
  const r = compileFilter(text, EVENT);
  return r.ok || r.problems.every((p) => p.code !== 'too_costly');
}

function comparePairs(expr: Expr, records: readonly Record<string, unknown>[], isFilter = false): void {
  fc.pre(withinCost(expr.text));
  const compiled = compileProgram(expr.text, { env: filterEnv(EVENT), limits: FILTER_LIMITS });
  if (!compiled.ok) throw new Error(`generated expression did not compile: ${expr.text}: ${compiled.issues.map((i) => i.message).join('; ')}`);
  // The filter form reads `ev` without a frame when the whole expression tests one field group.
  const asFilter = isFilter ? compileFilter(expr.text, EVENT) : undefined;
  if (asFilter !== undefined && !asFilter.ok) throw new Error(`generated filter did not compile: ${expr.text}`);
  const run = plan(reference, parse(expr.text));
  for (const rec of records) {
    const got = ours(compiled.program.evalRaw({ ev: rec }));
    const want = theirs(run({ ev: forReference(rec) as never }));
    counts.pairs++;
    if (got.error) counts.errors++;
    else if (got.value === true) counts.matches++;
    expect({ expr: expr.text, record: rec, outcome: got }).toEqual({ expr: expr.text, record: rec, outcome: want });
    if (asFilter?.ok) expect({ expr: expr.text, record: rec, outcome: ours(asFilter.filter.evaluateRaw(rec)) }).toEqual({ expr: expr.text, record: rec, outcome: want });
  }
}

/** Generous: this file does ~100,000 reference evaluations, and CI machines are shared. */
const TIMEOUT = 180_000;

describe('differential against @bufbuild/cel', () => {
  // The reference builds an Error (with a stack trace) for every CEL error; traces are not needed here.
  const stackTraceLimit = Error.stackTraceLimit;
  beforeAll(() => {
    Error.stackTraceLimit = 0;
  });

  it('filters should give the reference evaluator\'s value or error on every record', () => {
    fc.assert(
      fc.property(grammar.bool, fc.array(rawRecord, { minLength: 50, maxLength: 50 }), (e, records) => comparePairs(e, records, true)),
      { numRuns: 1500 },
    );
  }, TIMEOUT);

  it('int and string expressions should give the reference evaluator\'s value or error on every record', () => {
    fc.assert(
      fc.property(fc.oneof(grammar.int, grammar.str), fc.array(rawRecord, { minLength: 50, maxLength: 50 }), (e, records) => comparePairs(e, records)),
      { numRuns: 600 },
    );
  }, TIMEOUT);

  it('a compiled filter should match exactly when the raw result is true, and count every error', () => {
    fc.assert(
      fc.property(grammar.bool, fc.array(rawRecord, { minLength: 20, maxLength: 20 }), (expr, records) => {
        fc.pre(withinCost(expr.text));
        const r = compileFilter(expr.text, EVENT);
        if (!r.ok) throw new Error(`generated filter did not compile: ${expr.text}`);
        for (const rec of records) {
          const raw = r.filter.evaluateRaw(rec);
          expect(r.filter.evaluate(rec)).toBe(raw === true);
        }
      }),
      { numRuns: 200 },
    );
  }, TIMEOUT);

  it('a filter assuming one top-level conjunct true should agree with the whole filter wherever that conjunct is true', () => {
    fc.assert(
      fc.property(fc.array(grammar.bool, { minLength: 2, maxLength: 4 }), fc.array(rawRecord, { minLength: 20, maxLength: 20 }), (parts, records) => {
        const text = parts.map((p) => `(${p.text})`).join(' && ');
        fc.pre(withinCost(text));
        const r = compileFilter(text, EVENT);
        const program = compileProgram(text, { env: filterEnv(EVENT), limits: FILTER_LIMITS });
        if (!r.ok || !program.ok) throw new Error(`generated filter did not compile: ${text}`);
        const top = conjuncts(r.filter.expr);
        top.forEach((conjunct, i) => {
          const alone = program.program.conjunction([conjunct]);
          const assuming = r.filter.assuming?.(i);
          if (assuming === undefined) throw new Error('compiled filters should offer assuming()');
          for (const rec of records) {
            if (alone.evalRaw({ ev: rec }) === true) expect({ text, i, rec, got: assuming(rec) }).toEqual({ text, i, rec, got: r.filter.evaluate(rec) });
          }
        });
      }),
      { numRuns: 200 },
    );
  }, TIMEOUT);

  afterAll(() => {
    Error.stackTraceLimit = stackTraceLimit;
    console.log(`CEL differential: ${counts.pairs} pairs compared (${counts.matches} true, ${counts.errors} errors).`);
    expect(counts.pairs).toBeGreaterThanOrEqual(100_000);
  });
});
