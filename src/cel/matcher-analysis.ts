// Finds, in a compiled filter's AST, the one top-level conjunct the subscription matcher can index.
//
// Why indexing one conjunct is sound: a filter matches only when it evaluates to true, and CEL's
// `a && b` is true only when both a and b are true ("false && x" is false even when x is an error;
// an error on one side and true on the other is an error). So a record for which any conjunct is
// not true (false or an error) cannot match, and the matcher may skip every filter whose indexed
// conjunct the index proves not true for the record.
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { parseCIDR, type CIDR } from '../net/ip.js';
import { internalize } from './compiler/values.js';
import { exprKey } from './expr-key.js';
import { EVENT_VARIABLE } from './filter-env.js';
import { indexedField, type IndexedField } from './indexed-fields.js';

export type IndexPlan =
  /** The field (its dotted name) equals one of `keys` (`==` or `in` a list literal): strings, or integers for an integer field. */
  | { readonly kind: 'hash'; readonly field: string; readonly keys: readonly (string | number)[] }
  /** The field, an IP-valued one, parsed as an IP lies inside `cidr`. */
  | { readonly kind: 'cidr'; readonly field: string; readonly cidr: CIDR }
  /** The field, a string field, ends with `suffix` (`ev.<field>.endsWith("…")`). */
  | { readonly kind: 'suffix'; readonly field: string; readonly suffix: string };

export interface FilterAnalysis {
  /** The conjunct to index, or undefined when none is indexable (the filter is always evaluated). */
  readonly plan: IndexPlan | undefined;
  /**
   * True when the filter is that conjunct alone, so an index hit on a well-typed value is already a
   * match and the filter need not be evaluated.
   */
  readonly exact: boolean;
  /**
   * The keys (see expr-key.ts) of every top-level conjunct but the indexed one, sorted; of all of
   * them when nothing is indexed. Filters reached through the same index hit with the same `rest`
   * are true for exactly the same records, so the matcher evaluates one of them for all.
   */
  readonly rest: string;
  /** The position of the indexed conjunct among conjuncts(expr); -1 when nothing is indexed. */
  readonly conjunct: number;
}

/** Splits nested `_&&_` calls into their operands, left to right. */
export function conjuncts(expr: Expr): Expr[] {
  const k = expr.exprKind;
  if (k.case === 'callExpr' && k.value.function === '_&&_' && k.value.target === undefined) {
    return k.value.args.flatMap(conjuncts);
  }
  return [expr];
}

/** The arguments of a global call `fn(a, b…)` with `arity` arguments. */
function call(e: Expr | undefined, fn: string, arity: number): readonly Expr[] | undefined {
  const k = e?.exprKind;
  if (k?.case !== 'callExpr' || k.value.function !== fn || k.value.target !== undefined) return undefined;
  return k.value.args.length === arity ? k.value.args : undefined;
}

/** The receiver and arguments of a method call `x.fn(a…)` with `arity` arguments. */
function methodCall(e: Expr | undefined, fn: string, arity: number): readonly Expr[] | undefined {
  const k = e?.exprKind;
  if (k?.case !== 'callExpr' || k.value.function !== fn || k.value.target === undefined) return undefined;
  return k.value.args.length === arity ? [k.value.target, ...k.value.args] : undefined;
}

/** A string literal, interned: as a hash key it is compared with record values, and a slice of the filter text reads slower. */
function stringConst(e: Expr | undefined): string | undefined {
  const k = e?.exprKind;
  return k?.case === 'constExpr' && k.value.constantKind.case === 'stringValue' ? internalize(k.value.constantKind.value) : undefined;
}

/**
 * An int literal as a JS number. Only int literals are indexed: the port is an int, and CEL's
 * heterogeneous equality (`443.0 == port` is true) would need the double keys normalised; the
 * checker rejects mixed-type `==` anyway, so such a filter is simply left unindexed.
 */
function intConst(e: Expr | undefined): number | undefined {
  const k = e?.exprKind;
  if (k?.case !== 'constExpr' || k.value.constantKind.case !== 'int64Value') return undefined;
  const n = Number(k.value.constantKind.value);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** A member name from `x.name` (not the `has()` test form), with its operand. */
function member(e: Expr): { operand: Expr; name: string } | undefined {
  const k = e.exprKind;
  if (k.case !== 'selectExpr' || k.value.testOnly || k.value.operand === undefined) return undefined;
  return { operand: k.value.operand, name: k.value.field };
}

/** The indexed field `e` reads, for `ev.<path>` (the checker accepts only this form of a field). */
function fieldOf(e: Expr | undefined): IndexedField | undefined {
  const names: string[] = [];
  let at = e;
  for (let m = at && member(at); m !== undefined; m = member(at)) {
    names.unshift(m.name);
    at = m.operand;
  }
  const root = at?.exprKind;
  return root?.case === 'identExpr' && root.value.name === EVENT_VARIABLE && names.length > 0 ? indexedField(names.join('.')) : undefined;
}

function hashKey(field: IndexedField, e: Expr | undefined): string | number | undefined {
  return field.int ? intConst(e) : stringConst(e);
}

function hashPlan(field: IndexedField | undefined, values: readonly (Expr | undefined)[]): IndexPlan | undefined {
  if (field === undefined) return undefined;
  const keys: (string | number)[] = [];
  for (const v of values) {
    const key = hashKey(field, v);
    if (key === undefined) return undefined;
    if (!keys.includes(key)) keys.push(key);
  }
  return { kind: 'hash', field: field.path, keys };
}

/** `ev.<field>` or `ip(ev.<field>)`, for an IP-valued field. */
function ipFieldOf(e: Expr | undefined): string | undefined {
  const inner = call(e, 'ip', 1)?.[0] ?? e;
  const field = fieldOf(inner);
  return field?.ip === true ? field.path : undefined;
}

/** `"10.0.0.0/8"` or `cidr("10.0.0.0/8")`, parsed; undefined when it is not a valid literal range. */
function cidrLiteral(e: Expr | undefined, allowBareString: boolean): CIDR | undefined {
  const text = stringConst(call(e, 'cidr', 1)?.[0]) ?? (allowBareString ? stringConst(e) : undefined);
  return text === undefined ? undefined : parseCIDR(text);
}

function planOf(e: Expr): IndexPlan | undefined {
  const eq = call(e, '_==_', 2);
  if (eq !== undefined) {
    return hashPlan(fieldOf(eq[0]), [eq[1]]) ?? hashPlan(fieldOf(eq[1]), [eq[0]]);
  }
  const inList = call(e, '@in', 2);
  if (inList !== undefined) {
    const list = inList[1]?.exprKind;
    if (list?.case !== 'listExpr' || list.value.optionalIndices.length > 0) return undefined;
    return hashPlan(fieldOf(inList[0]), list.value.elements);
  }
  // cidr("…").containsIP(ev.<field>) and cidr("…").containsIP(ip(ev.<field>))
  const contains = methodCall(e, 'containsIP', 1);
  if (contains !== undefined) {
    const cidr = cidrLiteral(contains[0], false);
    const field = ipFieldOf(contains[1]);
    return cidr !== undefined && field !== undefined ? { kind: 'cidr', field, cidr } : undefined;
  }
  // ev.<field>.endsWith("…") on a string field: a string receiver and argument make it String.endsWith.
  const ends = methodCall(e, 'endsWith', 1);
  if (ends !== undefined) {
    const field = fieldOf(ends[0]);
    const suffix = stringConst(ends[1]);
    return field !== undefined && !field.int && suffix !== undefined ? { kind: 'suffix', field: field.path, suffix } : undefined;
  }
  // The shorthand inCidrRange(ip, cidr), with either argument as a string or as ip()/cidr().
  const shorthand = call(e, 'inCidrRange', 2);
  if (shorthand !== undefined) {
    const field = ipFieldOf(shorthand[0]);
    const cidr = cidrLiteral(shorthand[1], true);
    return cidr !== undefined && field !== undefined ? { kind: 'cidr', field, cidr } : undefined;
  }
  return undefined;
}

/**
 * Rough selectivity, higher is better: a hash key by its field's (the catalogue's), a range by its
 * length, a suffix below any range (a domain holds many names) and above a port.
 */
function score(plan: IndexPlan): number {
  if (plan.kind === 'cidr') return 10 + (plan.cidr.bits * 60) / (plan.cidr.ip.family === 4 ? 32 : 128);
  if (plan.kind === 'suffix') return 8;
  return (indexedField(plan.field)?.selectivity ?? 0) / Math.max(1, plan.keys.length);
}

export function analyseFilter(expr: Expr): FilterAnalysis {
  const parts = conjuncts(expr);
  let best: IndexPlan | undefined;
  let bestAt = -1;
  for (let i = 0; i < parts.length; i++) {
    const plan = planOf(parts[i] as Expr);
    if (plan !== undefined && (best === undefined || score(plan) > score(best))) {
      best = plan;
      bestAt = i;
    }
  }
  // A filter is true exactly when every conjunct is true, whatever their order, so the remaining
  // conjuncts are keyed as a sorted list: `a && b` and `b && a` share their evaluation.
  const rest = parts.filter((_, i) => i !== bestAt).map(exprKey).sort();
  return { plan: best, exact: best !== undefined && rest.length === 0, rest: rest.join(' && '), conjunct: bestAt };
}
