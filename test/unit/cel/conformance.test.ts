// Runs the official CEL conformance data shipped in @bufbuild/cel-spec through the general compiler.
import { getConformanceSuite, type IncrementalTest, type IncrementalTestSuite } from '@bufbuild/cel-spec/testdata/tests.js';
import { afterAll, describe, expect, it } from 'vitest';
import { DYN, formatType, type CelT } from '../../../src/cel/compiler/cel-types.js';
import { NETWORK_FUNCTIONS, STANDARD_FUNCTIONS } from '../../../src/cel/compiler/declarations.js';
import { compileProgram } from '../../../src/cel/compiler/program.js';
import { CelErr, type Value } from '../../../src/cel/compiler/values.js';
import { SKIPPED_CASES, SKIPPED_SECTIONS, skipReason } from './conformance-skips.js';
import { Unsupported, describeValue, sameType, sameValue, typeFromProto, valueFromProto } from './conformance-values.js';

const functions = new Map([...STANDARD_FUNCTIONS, ...NETWORK_FUNCTIONS]);

/** Runs one case; returns undefined when it passes, else what went wrong. */
function runCase(t: IncrementalTest): string | undefined {
  const o = t.original;
  if (o.container !== '') throw new Unsupported('container');
  const variables = new Map<string, CelT>();
  for (const d of o.typeEnv) {
    if (d.declKind.case !== 'ident') throw new Unsupported('function declaration');
    variables.set(d.name, typeFromProto(d.declKind.value.type));
  }
  const bindings: Record<string, Value> = {};
  for (const [name, ev] of Object.entries(o.bindings)) {
    if (ev.kind.case !== 'value') throw new Unsupported('non-value binding');
    bindings[name] = valueFromProto(ev.kind.value);
    // Unchecked cases may bind variables they do not declare.
    if (!variables.has(name)) variables.set(name, DYN);
  }
  const compiled = compileProgram(o.expr, { env: { variables, functions }, unchecked: o.disableCheck });
  if (!compiled.ok) return `did not compile: ${compiled.issues.map((i) => i.message).join('; ')}`;
  const m = o.resultMatcher;
  if (m.case === 'typedResult' && m.value.deducedType !== undefined) {
    const want = typeFromProto(m.value.deducedType);
    if (!sameType(compiled.program.resultType, want))
      return `type ${formatType(compiled.program.resultType)}, want ${formatType(want)}`;
  }
  if (o.checkOnly) return undefined;
  const got = compiled.program.evalRaw(bindings);
  switch (m.case) {
    case 'value':
    case undefined: {
      const want = m.case === 'value' ? valueFromProto(m.value) : true;
      return sameValue(got, want) ? undefined : `got ${describeValue(got)}, want ${describeValue(want)}`;
    }
    case 'evalError':
      return got instanceof CelErr ? undefined : `got ${describeValue(got)}, want an error`;
    case 'typedResult': {
      if (m.value.result === undefined) return undefined;
      const want = valueFromProto(m.value.result);
      return sameValue(got, want) ? undefined : `got ${describeValue(got)}, want ${describeValue(want)}`;
    }
    default:
      throw new Unsupported(`result matcher ${m.case}`);
  }
}

const counts = { passed: 0, skipped: 0 };

function sectionCases(file: IncrementalTestSuite, section: IncrementalTestSuite): { key: string; test: IncrementalTest }[] {
  return section.tests.map((test) => ({ key: `${file.name}/${section.name}/${test.name}`, test }));
}

const suite = getConformanceSuite();

describe('CEL conformance', () => {
  for (const file of suite.suites) {
    const sections = file.suites
      .map((section) => ({ name: `${file.name}/${section.name}`, cases: sectionCases(file, section) }))
      .map(({ name, cases }) => ({ name, cases: cases.filter(({ key }) => skipReason(key) === undefined), skipped: cases.filter(({ key }) => skipReason(key) !== undefined).length }));
    for (const s of sections) counts.skipped += s.skipped;
    const run = sections.filter((s) => s.cases.length > 0);
    if (run.length === 0) continue;
    describe(file.name, () => {
      for (const { name, cases } of run) {
        it(`the engine should pass ${name}`, () => {
          const failures: string[] = [];
          for (const { key, test } of cases) {
            let problem: string | undefined;
            try {
              problem = runCase(test);
            } catch (e) {
              problem = e instanceof Unsupported ? `unsupported: ${e.message}` : `threw ${String(e)}`;
            }
            if (problem === undefined) counts.passed++;
            else failures.push(`${key} (${test.original.expr}): ${problem}`);
          }
          expect(failures).toEqual([]);
        });
      }
    });
  }

  it('the skip list should name only cases that exist', () => {
    const keys = new Set<string>();
    const sections = new Set<string>();
    for (const file of suite.suites) {
      sections.add(file.name);
      for (const section of file.suites) {
        sections.add(`${file.name}/${section.name}`);
        for (const { key } of sectionCases(file, section)) keys.add(key);
      }
    }
    expect(Object.keys(SKIPPED_SECTIONS).filter((s) => !sections.has(s))).toEqual([]);
    expect(Object.keys(SKIPPED_CASES).filter((k) => !keys.has(k))).toEqual([]);
  });

  afterAll(() => {
    console.log(`CEL conformance: ${counts.passed} cases pass; ${counts.skipped} are skipped, each with its reason in conformance-skips.ts.`);
  });
});
