// compile(text, eventType): a subscription's CEL filter, checked against the event's Filterable fields and compiled to closures.
//
// Problems come back all at once with 1-based line and column. At run time a CEL error inside the
// filter means "no match": evaluate() returns false, counts the error, and never throws.
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { EXAMPLE_FIELDS, type TrafficEventType } from '../events/catalog.js';
import { celEvaluationErrors } from '../telemetry/metrics.js';
import { formatType } from './compiler/cel-types.js';
import { groupOnValue } from './compiler/group.js';
import { childrenOf } from './compiler/measure.js';
import { compileProgram, lineColumn, type Program, type ProgramIssue } from './compiler/program.js';
import { CelErr, type Value } from './compiler/values.js';
import { EVENT_VARIABLE, checkFieldUses, filterEnv } from './filter-env.js';
import { FILTER_LIMITS } from './limits.js';
import { conjuncts } from './matcher-analysis.js';
import type { CompiledFilter, CompileResult, FilterProblem } from './types.js';

export {
  MAX_AST_DEPTH,
  MAX_AST_NODES,
  MAX_EVALUATION_COST,
  MAX_FILTER_LENGTH,
  MAX_LIST_ELEMENTS,
  MAX_NESTING_DEPTH,
} from './limits.js';

/** A compiled filter that also exposes the raw CEL result, errors included (for tests and tools). */
export interface FilterProgram extends CompiledFilter {
  /** The CEL value the expression yields for `ev`: true, false, or a CelErr (or another value if mistyped). */
  evaluateRaw(ev: unknown): Value;
}

export type FilterProgramResult =
  | { readonly ok: true; readonly filter: FilterProgram }
  | { readonly ok: false; readonly problems: readonly FilterProblem[] };

let errorCount = 0;

/** Evaluations that ended in a CEL error (and so counted as no match) since the process started. */
export function evaluationErrorCount(): number {
  return errorCount;
}

function countError(): void {
  errorCount++;
  celEvaluationErrors.inc();
}

export function compile(text: string, eventType: TrafficEventType): CompileResult {
  return compileFilter(text, eventType);
}

export function compileFilter(text: string, eventType: TrafficEventType): FilterProgramResult {
  const env = filterEnv(eventType);
  const result = compileProgram(text, { env, limits: FILTER_LIMITS });
  const problem = (code: FilterProblem['code'], offset: number, message: string, issue?: ProgramIssue): FilterProblem => ({
    code,
    ...lineColumn(text, offset),
    message,
    ...(issue?.cost !== undefined && { cost: issue.cost }),
    ...(issue?.limit !== undefined && { limit: issue.limit }),
  });
  if (!result.ok && result.expr === undefined) {
    return { ok: false, problems: result.issues.map((i) => problem(toFilterCode(i), i.offset, i.message, i)) };
  }
  const expr = result.ok ? result.program.expr : (result.expr as Expr);
  const positions = (result.ok ? result.program.sourceInfo : result.sourceInfo)?.positions ?? {};
  const offsetOf = (id: bigint): number => positions[id.toString()] ?? 0;
  const problems: FilterProblem[] = [];
  if (result.ok || result.issues.every((i) => i.code !== 'too_large' && i.code !== 'too_costly')) {
    const refs = result.ok ? result.program.checked.refs : result.checked?.refs;
    for (const p of checkFieldUses(expr, refs ?? new Map(), eventType)) problems.push(problem(p.code, offsetOf(p.exprId), p.message));
  }
  for (const i of result.issues) {
    // Field problems are reported above, with the event's own vocabulary.
    if (i.code === 'unknown_field') continue;
    problems.push(problem(toFilterCode(i), i.offset, rephrase(i, eventType), i));
  }
  if (result.ok) {
    const t = result.program.resultType;
    if (t.kind !== 'bool' && t.kind !== 'dyn' && t.kind !== 'error')
      problems.push(problem('not_bool', leftmostOffset(expr, positions), `The filter yields ${formatType(t)}, but a filter must yield a bool.`));
  }
  if (problems.length > 0 || !result.ok) {
    problems.sort((a, b) => a.line - b.line || a.column - b.column);
    return { ok: false, problems };
  }
  return { ok: true, filter: makeFilter(text, eventType, result.program) };
}

function toFilterCode(i: ProgramIssue): FilterProblem['code'] {
  switch (i.code) {
    case 'unknown_variable':
    case 'unknown_field':
      return 'unknown_field';
    case 'unsupported':
      return 'syntax';
    default:
      return i.code;
  }
}

function rephrase(i: ProgramIssue, eventType: TrafficEventType): string {
  if (i.code === 'unknown_variable')
    return `${i.message.replace(/ is not a declared variable\.$/, '')} is not defined; a filter reads the ${eventType} event through ${EVENT_VARIABLE}, e.g. ${EVENT_VARIABLE}.${EXAMPLE_FIELDS.filter}.`;
  return i.message;
}

/** Where an expression starts: the smallest offset in its subtree (a call's own position is its operator). */
function leftmostOffset(root: Expr, positions: Readonly<Record<string, number>>): number {
  let min = Number.POSITIVE_INFINITY;
  const stack: Expr[] = [root];
  while (stack.length > 0) {
    const e = stack.pop() as Expr;
    const p = positions[e.id.toString()];
    if (p !== undefined && p < min) min = p;
    stack.push(...childrenOf(e));
  }
  return Number.isFinite(min) ? min : 0;
}

function makeFilter(text: string, eventType: TrafficEventType, program: Program): FilterProgram {
  const slot = program.slotOf(EVENT_VARIABLE) as number;
  const run = runner(program, slot);
  return {
    text,
    eventType,
    expr: program.expr,
    cost: program.cost ?? 0,
    evaluateRaw(ev: unknown): Value {
      try {
        return run(ev);
      } catch (e) {
        // A bug, not a CEL error; still never thrown into the pipeline.
        return new CelErr(`internal error: ${e instanceof Error ? e.message : String(e)}`);
      }
    },
    evaluate: verdict(run),
    assuming(index: number): (ev: unknown) => boolean {
      const rest = conjuncts(program.expr).filter((_, i) => i !== index);
      return verdict(runner(program.conjunction(rest), slot));
    },
  };
}

/** "Is the filter true for ev": an error is no match, counted, and never thrown. */
function verdict(run: (ev: unknown) => Value): (ev: unknown) => boolean {
  return (ev) => {
    let r: Value;
    try {
      r = run(ev);
    } catch {
      r = null;
    }
    if (r === true) return true;
    if (r !== false) countError();
    return false;
  };
}

/** The program as a function of `ev`: straight to its group test when it is one, else through its frame. */
function runner(program: Program, slot: number): (ev: unknown) => Value {
  if (program.rootGroup?.slot === slot) return groupOnValue(program.rootGroup);
  const root = program.root;
  // One frame per filter, reused: evaluation is synchronous and cannot re-enter itself.
  const frame: Value[] = new Array<Value>(program.frameSize);
  return (ev) => {
    frame[slot] = ev as Value;
    try {
      return root(frame);
    } finally {
      frame[slot] = null;
    }
  };
}
