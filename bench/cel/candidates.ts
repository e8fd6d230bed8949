// Child-process side of the CEL benchmark: builds one evaluator for one expression and times it over realistic records.
import { celEnv, parse as bufParse, plan as bufPlan } from '@bufbuild/cel';
import { parse as marcParse } from '@marcbachmann/cel-js';
import { evaluate as celJsEvaluate, parse as celJsParse } from 'cel-js';
import { compile } from '../../src/cel/compile.js';
import { DEFAULT_MEASURE, measure, type MeasureOptions } from '../lib/measure.js';
import { celRecords, type RawRecord } from './records.js';

export const EXPRESSIONS = {
  A: 'ev.conn.server_port == 443 && ev.conn.client_ip.startsWith("10.")',
  B: 'ev.conn.server_port in [80, 443, 8443] && (ev.conn.client_ip.startsWith("10.") || ev.conn.server_name.endsWith(".example.com")) && ev.conn.server_ip != "10.0.0.1"',
} as const;
export type ExpressionName = keyof typeof EXPRESSIONS;

/** The hand-written JavaScript of each expression: the floor no evaluator can beat. */
const FLOORS: Record<ExpressionName, (ev: RawRecord) => boolean> = {
  A: (ev) => ev.conn.server_port === 443 && ev.conn.client_ip.startsWith('10.'),
  B: (ev) => {
    const c = ev.conn;
    const p = c.server_port;
    return (p === 80 || p === 443 || p === 8443) && (c.client_ip.startsWith('10.') || c.server_name.endsWith('.example.com')) && c.server_ip !== '10.0.0.1';
  },
};

export const CANDIDATES = ['floor', 'edge-events', '@bufbuild/cel', '@marcbachmann/cel-js', 'cel-js'] as const;
export type CandidateName = (typeof CANDIDATES)[number];

/** One evaluator, as a predicate over prepared inputs (a record, or a binding object holding it). */
interface Subject {
  readonly inputs: readonly unknown[];
  readonly test: (input: unknown) => boolean;
}

/**
 * The libraries' inputs: a binding of `ev` to a record reduced to the four filterable fields. They
 * convert their whole input on every call, so this is their best case.
 */
const bindings = (records: readonly RawRecord[]): { ev: unknown }[] =>
  records.map(({ conn }) => ({
    ev: { conn: { client_ip: conn.client_ip, server_ip: conn.server_ip, server_name: conn.server_name, server_port: conn.server_port } },
  }));

/** CEL errors (thrown by the two cel-js packages) count as no match, as in the pipeline. */
function guarded(fn: (input: unknown) => unknown): (input: unknown) => boolean {
  return (input) => {
    try {
      return fn(input) === true;
    } catch {
      return false;
    }
  };
}

function subjectOf(candidate: CandidateName, text: string, records: readonly RawRecord[], expression: ExpressionName): Subject {
  switch (candidate) {
    case 'floor':
      return { inputs: records, test: FLOORS[expression] as (input: unknown) => boolean };
    case 'edge-events': {
      const result = compile(text, 'tcp_connection_closed.v0');
      if (!result.ok) throw new Error(result.problems.map((p) => p.message).join('; '));
      const filter = result.filter;
      return { inputs: records, test: (ev) => filter.evaluate(ev) };
    }
    case '@bufbuild/cel': {
      const run = bufPlan(celEnv(), bufParse(text));
      return { inputs: bindings(records), test: (ctx) => run(ctx as never) === true };
    }
    case '@marcbachmann/cel-js': {
      const run = marcParse(text);
      return { inputs: bindings(records), test: guarded((ctx) => run(ctx as Record<string, unknown>)) };
    }
    case 'cel-js': {
      const parsed = celJsParse(text);
      if (!parsed.isSuccess) throw new Error(parsed.errors.join('; '));
      const cst = parsed.cst;
      return { inputs: bindings(records), test: (ctx) => celJsEvaluate(cst, ctx as Record<string, unknown>) === true };
    }
  }
}

export type CandidateResult =
  | { readonly status: 'ok'; readonly nsPerOp: number; readonly minNsPerOp: number; readonly maxNsPerOp: number; readonly matchRate: number }
  | { readonly status: 'unsupported' | 'wrong'; readonly reason: string };

export interface CandidateArgs {
  readonly expression: ExpressionName;
  readonly candidate: CandidateName;
  readonly records: number;
  readonly measure?: MeasureOptions;
}

/** Exported for isolate.ts: runs in its own process. */
export function measureCandidate(args: CandidateArgs): CandidateResult {
  const records = celRecords(args.records);
  const text = EXPRESSIONS[args.expression];
  let subject: Subject;
  try {
    subject = subjectOf(args.candidate, text, records, args.expression);
  } catch (err) {
    return { status: 'unsupported', reason: (err as Error).message };
  }
  // Every evaluator must agree with the floor on every record before it is timed.
  const floor = FLOORS[args.expression];
  let matches = 0;
  for (let i = 0; i < records.length; i++) {
    let got: boolean;
    try {
      got = subject.test(subject.inputs[i]);
    } catch (err) {
      return { status: 'unsupported', reason: (err as Error).message };
    }
    const want = floor(records[i] as RawRecord);
    if (got !== want) return { status: 'wrong', reason: `record ${i}: got ${got}, expected ${want}` };
    if (got) matches++;
  }
  const m = measure(subject.test, subject.inputs, args.measure ?? DEFAULT_MEASURE);
  return { status: 'ok', nsPerOp: m.nsPerOp, minNsPerOp: m.minNsPerOp, maxNsPerOp: m.maxNsPerOp, matchRate: matches / records.length };
}
