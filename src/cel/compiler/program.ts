// The general CEL compiler: text -> bounded parse -> type check -> closures, for any declared variables.
//
// The filter compiler (../compile.ts) is one client; the conformance tests drive it directly with
// their own variables. Nothing here evaluates user text as JavaScript.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { parse as ParseFn } from '@bufbuild/cel';
import type { Expr, SourceInfo } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { BOOL, type CelT } from './cel-types.js';
import { checkExpr, type CheckIssueCode, type CheckResult, type TypeEnv } from './checker.js';
import { ClosureCompiler, logical } from './codegen.js';
import { estimateCost, measureAst, scanNesting } from './measure.js';
import { estimateWork, type WorkModel } from './work.js';
import type { GroupPredicate } from './group.js';
import { constantNode, type Fn, type Node } from './node.js';
import { CelErr, type Value } from './values.js';

/**
 * @bufbuild/cel's parser on its own. The package's entry point also loads its checker, evaluator,
 * standard library and protobuf registry, none of which this compiler uses: about 14 MiB of every
 * process's RSS (bench/results/memory.md). The package exports only its entry point, so the parser's
 * module (dist/cjs/parse.js, which needs nothing outside its own three files) is required by path
 * beside it; a release that moves it falls back to the entry point, with the same parser.
 */
const parse: typeof ParseFn = loadParser();

function loadParser(): typeof ParseFn {
  const require = createRequire(import.meta.url);
  try {
    const alone = require(join(dirname(require.resolve('@bufbuild/cel')), 'parse.js')) as { parse?: unknown };
    if (typeof alone.parse === 'function') return alone.parse as typeof ParseFn;
  } catch {
    // Not where this release keeps it: use the entry point.
  }
  return (require('@bufbuild/cel') as { parse: typeof ParseFn }).parse;
}

export interface ProgramLimits {
  /** Characters of source text. */
  readonly maxLength: number;
  /** Bracket and conditional nesting, checked on the text before the (recursive) parser runs. */
  readonly maxNesting: number;
  readonly maxNodes: number;
  readonly maxDepth: number;
  /** Elements of one list literal, or entries of one map literal. */
  readonly maxLiteral: number;
  /**
   * Upper bound on an evaluation's work (see work.ts) when `work` is given, else on its steps (see
   * estimateCost). Steps are also bounded by it before type checking, since constant parts are
   * evaluated while compiling.
   */
  readonly maxCost: number;
  /** What the work of an evaluation is measured with: the most each variable's fields hold. */
  readonly work?: WorkModel;
}

/** Generous limits for general use; they only keep the parser and the recursive passes off the stack limit. */
export const GENERAL_LIMITS: ProgramLimits = {
  maxLength: 100_000,
  maxNesting: 100,
  maxNodes: 100_000,
  maxDepth: 250,
  maxLiteral: 100_000,
  maxCost: Number.POSITIVE_INFINITY,
};

export type ProgramIssueCode = CheckIssueCode | 'too_large' | 'too_costly' | 'invalid_argument';

export interface ProgramIssue {
  readonly code: ProgramIssueCode;
  /** Offset in the source text (UTF-16 units). */
  readonly offset: number;
  readonly message: string;
  readonly exprId?: bigint;
  /** For unknown_field: the field that was not found. */
  readonly field?: string;
  /** For too_costly: the expression's work bound, and the limit it passes. */
  readonly cost?: number;
  readonly limit?: number;
}

export interface CompileOptions {
  readonly env: TypeEnv;
  readonly limits?: ProgramLimits;
  /** Compile even when the checker found type problems (conformance tests with disable_check). */
  readonly unchecked?: boolean;
}

/** What a program keeps of the parser's source info: the offset of each node, for messages. */
export type SourcePositions = Pick<SourceInfo, 'positions'>;

/**
 * The variable slots of an environment, made once per distinct list of variable names and shared by
 * every program compiled for it: 10,000 filters each kept a map and a list of their own (a few
 * hundred bytes each, bench/results/memory.md).
 */
interface SlotTable {
  readonly byName: ReadonlyMap<string, number>;
  readonly list: readonly (readonly [string, number])[];
}

/** Most distinct variable lists kept; past that, a table is made per program. */
const SLOT_TABLES_MAX = 256;
const slotTables = new Map<string, SlotTable>();
const tableOf = new WeakMap<ReadonlyMap<string, number>, SlotTable>();

function slotTable(names: Iterable<string>): SlotTable {
  const list = [...names];
  const key = list.join('\u0000');
  let table = slotTables.get(key);
  if (table === undefined) {
    const byName = new Map<string, number>();
    for (const name of list) byName.set(name, byName.size);
    table = { byName, list: [...byName] };
    tableOf.set(byName, table);
    if (slotTables.size < SLOT_TABLES_MAX) slotTables.set(key, table);
  }
  return table;
}

export class Program {
  private readonly slots: readonly (readonly [string, number])[];

  constructor(
    readonly expr: Expr,
    readonly sourceInfo: SourcePositions | undefined,
    readonly checked: CheckResult,
    /** The root closure; call it with a frame whose variable slots are filled (see slotOf). */
    readonly root: Fn,
    readonly frameSize: number,
    private readonly variableSlots: ReadonlyMap<string, number>,
    /** Set when the whole expression is a test of one group of one variable (see group.ts). */
    readonly rootGroup?: GroupPredicate,
    /** The bound on one evaluation's work (work.ts), when the limits measure it. */
    readonly cost?: number,
  ) {
    this.slots = tableOf.get(variableSlots)?.list ?? [...variableSlots];
  }

  get resultType(): CelT {
    return this.checked.resultType;
  }

  slotOf(variable: string): number | undefined {
    return this.variableSlots.get(variable);
  }

  /**
   * A program for the conjunction of some subexpressions of this one (e.g. some of its top-level
   * conjuncts), compiled with this program's checks; `true` for none.
   */
  conjunction(parts: readonly Expr[]): Program {
    const compiler = new ClosureCompiler(this.checked, this.variableSlots);
    let node: Node = constantNode(true, BOOL);
    parts.forEach((part, i) => {
      const n = compiler.compile(part);
      node = i === 0 ? n : logical('_&&_', node, n, BOOL);
    });
    return new Program(this.expr, this.sourceInfo, this.checked, node.fn, compiler.frameSize, this.variableSlots, node.group, this.cost);
  }

  /** Evaluates with the given variables, returning the CEL value or error value as is. */
  evalRaw(bindings: Readonly<Record<string, Value>>): Value {
    const frame: Value[] = new Array<Value>(this.frameSize);
    for (const [name, slot] of this.slots) {
      frame[slot] = Object.hasOwn(bindings, name) ? (bindings[name] as Value) : new CelErr(`no value for variable '${name}'`);
    }
    return this.root(frame);
  }
}

export type ProgramResult =
  | { readonly ok: true; readonly program: Program; readonly issues: readonly ProgramIssue[] }
  | {
      readonly ok: false;
      readonly issues: readonly ProgramIssue[];
      readonly expr?: Expr;
      readonly sourceInfo?: SourceInfo;
      readonly checked?: CheckResult;
    };

interface ParseFailure {
  readonly location?: { readonly start?: { readonly offset?: number } };
  readonly message?: string;
}

/**
 * Programs compiled without problems, by environment, limits and text. A program is immutable (each
 * evaluation brings its own frame), so subscriptions with the same filter text share one instead of
 * keeping one each; an entry goes when its program is collected.
 */
const compiled = new WeakMap<TypeEnv, WeakMap<ProgramLimits, Map<string, WeakRef<Program>>>>();

interface CompiledEntry {
  readonly byText: Map<string, WeakRef<Program>>;
  readonly text: string;
  readonly ref: WeakRef<Program>;
}

const forgetCompiled = new FinalizationRegistry<CompiledEntry>(({ byText, text, ref }) => {
  if (byText.get(text) === ref) byText.delete(text);
});

function compiledFor(env: TypeEnv, limits: ProgramLimits): Map<string, WeakRef<Program>> {
  let byLimits = compiled.get(env);
  if (byLimits === undefined) compiled.set(env, (byLimits = new WeakMap()));
  let byText = byLimits.get(limits);
  if (byText === undefined) byLimits.set(limits, (byText = new Map()));
  return byText;
}

export function compileProgram(text: string, options: CompileOptions): ProgramResult {
  const limits = options.limits ?? GENERAL_LIMITS;
  // Unchecked compilation may keep problems in an ok result: it is never shared.
  const byText = options.unchecked === true ? undefined : compiledFor(options.env, limits);
  const known = byText?.get(text)?.deref();
  if (known !== undefined) return { ok: true, program: known, issues: [] };
  const result = compileNew(text, options, limits);
  if (byText !== undefined && result.ok && result.issues.length === 0) {
    const ref = new WeakRef(result.program);
    byText.set(text, ref);
    forgetCompiled.register(result.program, { byText, text, ref });
  }
  return result;
}

function compileNew(text: string, options: CompileOptions, limits: ProgramLimits): ProgramResult {
  const fail = (issue: ProgramIssue): ProgramResult => ({ ok: false, issues: [issue] });
  if (text.length > limits.maxLength)
    return fail({ code: 'too_large', offset: 0, message: `The expression is ${text.length} characters long; the limit is ${limits.maxLength}.` });
  const nesting = scanNesting(text, limits.maxNesting);
  if (nesting.offendingOffset !== undefined)
    return fail({
      code: 'too_large',
      offset: nesting.offendingOffset,
      message: `The expression nests brackets or conditionals ${nesting.depth} deep; the limit is ${limits.maxNesting}.`,
    });
  if (nesting.literalError !== undefined)
    return fail({ code: 'syntax', offset: nesting.literalError.offset, message: nesting.literalError.message });
  if (nesting.bracketError !== undefined)
    return fail({ code: 'syntax', offset: nesting.bracketError.offset, message: nesting.bracketError.message });

  let expr: Expr;
  let sourceInfo: SourceInfo | undefined;
  try {
    const parsed = parse(text);
    expr = parsed.expr;
    sourceInfo = parsed.sourceInfo;
  } catch (e) {
    if (e instanceof RangeError && /call stack/i.test(e.message))
      return fail({ code: 'too_large', offset: 0, message: 'The expression is nested too deeply to parse.' });
    const pf = e as ParseFailure;
    const offset = pf.location?.start?.offset ?? 0;
    const raw = e instanceof Error ? ((e as Error & { rawMessage?: string }).rawMessage ?? e.message) : String(e);
    return fail({ code: 'syntax', offset, message: `Syntax error: ${raw}.` });
  }

  const stats = measureAst(expr, limits.maxNodes);
  const tooLarge: string[] = [];
  if (stats.nodes > limits.maxNodes) tooLarge.push(`it has more than ${limits.maxNodes} nodes`);
  if (stats.depth > limits.maxDepth) tooLarge.push(`it nests ${stats.depth} levels deep (limit ${limits.maxDepth})`);
  if (stats.largestLiteral > limits.maxLiteral)
    tooLarge.push(`a list or map literal has ${stats.largestLiteral} elements (limit ${limits.maxLiteral})`);
  if (tooLarge.length === 0 && Number.isFinite(limits.maxCost)) {
    const steps = estimateCost(expr, stats.literalElements);
    // Each step is at least one unit of work: the expression is too costly whatever its fields hold.
    if (steps > limits.maxCost && limits.work !== undefined) return tooCostly(estimateWork(expr, limits.work), limits.maxCost, expr, sourceInfo);
    if (steps > limits.maxCost) tooLarge.push(`it may take up to ${steps} evaluation steps (limit ${limits.maxCost})`);
  }
  if (tooLarge.length > 0)
    return { ok: false, issues: [{ code: 'too_large', offset: 0, message: `The expression is too large: ${tooLarge.join('; ')}.` }], expr, sourceInfo };

  const checked = checkExpr(expr, options.env);
  const positionOf = (id: bigint): number => sourceInfo?.positions[id.toString()] ?? 0;
  const issues: ProgramIssue[] = checked.issues.map((i) => ({
    code: i.code,
    offset: positionOf(i.exprId),
    message: i.message,
    exprId: i.exprId,
    ...(i.field === undefined ? {} : { field: i.field }),
  }));
  if (issues.length > 0 && options.unchecked !== true) return { ok: false, issues, expr, sourceInfo, checked };

  // After the checks, so every field the expression reads is one the model knows; before the closures,
  // which evaluate the constant parts.
  const cost = limits.work === undefined ? undefined : estimateWork(expr, limits.work);
  if (cost !== undefined && cost > limits.maxCost && options.unchecked !== true) return tooCostly(cost, limits.maxCost, expr, sourceInfo, checked);

  const variableSlots = slotTable(options.env.variables.keys()).byName;
  const compiler = new ClosureCompiler(checked, variableSlots);
  const root = compiler.compile(expr);
  for (const p of compiler.problems)
    issues.push({ code: 'invalid_argument', offset: positionOf(p.exprId), message: p.message, exprId: p.exprId });
  if (compiler.problems.length > 0 && options.unchecked !== true) return { ok: false, issues, expr, sourceInfo, checked };
  // Only the positions outlive compilation (compile.ts reports problems with them); the rest of the
  // parser's source info (line offsets, macro calls) is left behind.
  const positions = sourceInfo === undefined ? undefined : { positions: sourceInfo.positions };
  const program = new Program(expr, positions, checked, root.fn, compiler.frameSize, variableSlots, root.group, cost);
  return { ok: true, program, issues };
}

function tooCostly(cost: number, limit: number, expr: Expr, sourceInfo: SourceInfo | undefined, checked?: CheckResult): ProgramResult {
  const message = `The expression may do ${cost} units of work per evaluation (about one a character read or written); the limit is ${limit}.`;
  return { ok: false, issues: [{ code: 'too_costly', offset: 0, message, cost, limit }], expr, sourceInfo, ...(checked !== undefined && { checked }) };
}

/** 1-based line and column of an offset; columns count UTF-16 units from the line start. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
}
