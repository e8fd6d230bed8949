// Compiles comprehensions, the expansion of the macros all, exists, exists_one, map and filter.
//
// CEL spec, Macros: the loop evaluates loopCondition before each step and stops when it is false;
// for all/exists it is @not_strictly_false(@result), so an error in one element does not stop the
// loop and a later false (all) or true (exists) still decides the result.
import type { Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import type { CelT } from './cel-types.js';
import type { ClosureCompiler } from './codegen.js';
import { constantNode, unionFree, withoutSlots, type Fn, type Frame, type Node } from './node.js';
import { CelErr, CelMap, noSuchOverload, type Value } from './values.js';

interface ComprehensionParts {
  readonly iterVar: string;
  readonly iterRange?: Expr;
  readonly accuVar: string;
  readonly accuInit?: Expr;
  readonly loopCondition?: Expr;
  readonly loopStep?: Expr;
  readonly result?: Expr;
}

function isEmptyList(e: Expr): boolean {
  return e.exprKind.case === 'listExpr' && e.exprKind.value.elements.length === 0;
}

function isIdent(e: Expr | undefined, name: string): boolean {
  return e?.exprKind.case === 'identExpr' && e.exprKind.value.name === name;
}

/** Matches `accu + [elem]` and returns elem. */
function appendedElement(e: Expr | undefined, accu: string): Expr | undefined {
  if (e?.exprKind.case !== 'callExpr') return undefined;
  const call = e.exprKind.value;
  if (call.function !== '_+_' || call.target !== undefined || call.args.length !== 2) return undefined;
  const [left, right] = call.args;
  if (!isIdent(left, accu) || right?.exprKind.case !== 'listExpr' || right.exprKind.value.elements.length !== 1) return undefined;
  return right.exprKind.value.elements[0];
}

/**
 * map() and filter() accumulate with `@result + [x]`, which copies the list at every step. When the
 * accumulator starts as a fresh empty list, it is private to the loop, so appending in place gives
 * the same result in linear time.
 */
function appendStep(c: ClosureCompiler, parts: ComprehensionParts, accuSlot: number): { fn: Fn; nodes: Node[] } | undefined {
  if (!parts.accuInit || !isEmptyList(parts.accuInit) || !parts.loopStep) return undefined;
  const step = parts.loopStep;
  const push = (elem: Node): Fn => {
    const x = elem.fn;
    return (f) => {
      const acc = f[accuSlot];
      if (acc instanceof CelErr) return acc;
      const v = x(f);
      if (v instanceof CelErr) return v;
      (acc as Value[]).push(v);
      return acc as Value;
    };
  };
  const direct = appendedElement(step, parts.accuVar);
  if (direct !== undefined) {
    const elem = c.compile(direct);
    return { fn: push(elem), nodes: [elem] };
  }
  // filter: cond ? accu + [x] : accu
  if (step.exprKind.case === 'callExpr' && step.exprKind.value.function === '_?_:_') {
    const [cond, then, otherwise] = step.exprKind.value.args;
    const elemExpr = appendedElement(then, parts.accuVar);
    if (cond === undefined || elemExpr === undefined || !isIdent(otherwise, parts.accuVar)) return undefined;
    const condNode = c.compile(cond);
    const elem = c.compile(elemExpr);
    const test = condNode.fn;
    const append = push(elem);
    const fn: Fn = (f) => {
      const t = test(f);
      if (t === true) return append(f);
      if (t === false) return f[accuSlot] as Value;
      return t instanceof CelErr ? t : noSuchOverload('_?_:_', t);
    };
    return { fn, nodes: [condNode, elem] };
  }
  return undefined;
}

export function compileComprehension(c: ClosureCompiler, parts: ComprehensionParts, type: CelT): Node {
  const { iterRange, accuInit, loopCondition, loopStep, result } = parts;
  if (!iterRange || !accuInit || !loopCondition || !loopStep || !result) return constantNode(new CelErr('incomplete comprehension'), type);
  const range = c.compile(iterRange);
  const init = c.compile(accuInit);
  return c.withLocal(parts.accuVar, (accuSlot) => {
    const [cond, step, appends] = c.withLocal(parts.iterVar, (iterSlot) => {
      const condNode = c.compile(loopCondition);
      const fast = appendStep(c, parts, accuSlot);
      const stepNode = fast === undefined ? c.compile(loopStep) : undefined;
      const bodyNodes = [condNode, ...(fast?.nodes ?? []), ...(stepNode ? [stepNode] : [])];
      const free = withoutSlots(unionFree(bodyNodes), [iterSlot, accuSlot]);
      return [condNode, { fn: fast?.fn ?? (stepNode as Node).fn, free, iterSlot }, fast !== undefined] as const;
    });
    const res = c.compile(result);
    const free = withoutSlots(unionFree([range, init, res, { ...cond, free: step.free }]), [accuSlot]);
    const iterSlot = step.iterSlot;
    const rangeFn = range.fn;
    const initFn: Fn = appends ? () => [] : init.fn;
    const condFn = cond.constant?.value === true ? undefined : cond.fn;
    const stepFn = step.fn;
    const resultFn = res.fn;
    const fn: Fn = (f: Frame) => {
      const r = rangeFn(f);
      let items: readonly Value[];
      if (Array.isArray(r)) items = r as readonly Value[];
      else if (r instanceof CelMap) items = Array.from(r.entries.values(), (en) => en[0]);
      else return r instanceof CelErr ? r : noSuchOverload('comprehension', r);
      f[accuSlot] = initFn(f);
      for (let i = 0; i < items.length; i++) {
        f[iterSlot] = items[i] as Value;
        if (condFn !== undefined && condFn(f) === false) break;
        f[accuSlot] = stepFn(f);
      }
      return resultFn(f);
    };
    return { fn, type, free };
  });
}
