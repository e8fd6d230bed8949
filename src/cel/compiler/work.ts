// A static bound on the work one evaluation of an expression does, in units of about one byte touched.
//
// Counting steps (one per node) let a filter concatenate or search kilobyte strings in "one step"
// (issue 38, finding 2). Here each operation costs the bytes it reads or writes, given the most a value
// can hold: a literal's own length, a field's maximum size from the environment, the sum of a
// concatenation's parts, a comprehension's body once per element of its range. The bound holds for
// every record the field sizes hold for (the filter environment's come from the catalogue's limits,
// checked before any filter sees a record). Call only on trees within the depth limit: it recurses.
import type { Expr, Expr_Select } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';

/** The most a value may hold: `n` characters of a string or bytes, elements of a list, entries of a map. */
export interface Extent {
  readonly n: number;
  /** A list's elements, or a map's values. */
  readonly elem?: Extent;
  /** A map's keys. */
  readonly key?: Extent;
}

export interface WorkModel {
  /**
   * The most characters (or elements) the value at `path` under `variable` can hold, 0 for a scalar;
   * undefined when the model does not know the path (it is then taken as `unknownBytes`).
   */
  readonly fieldExtent: (variable: string, path: readonly string[]) => Extent | undefined;
  /** The extent assumed for a value the model cannot bound otherwise, e.g. the record size limit. */
  readonly unknownBytes: number;
}

const SCALAR: Extent = { n: 0 };

/**
 * What the operations cost, in units: one is about a byte read or written, about a nanosecond on the
 * bench machine (bench/results/filter-cost.md). A step is one node's closure call and the value it
 * makes; joining strings makes a rope that the next read copies flat; a substring search compares
 * each position of the string with the pattern (V8's search is linear only for some patterns); size()
 * walks code points.
 */
export const WORK = {
  step: 50,
  joinPerChar: 8,
  sizePerChar: 32,
} as const;

/** Bytes of a value: its length times the bytes of its largest element (and key), at least 1. */
function width(x: Extent): number {
  const per = Math.max(1, (x.elem === undefined ? 1 : width(x.elem)) + (x.key === undefined ? 0 : width(x.key)));
  return Math.max(1, x.n) * (x.elem === undefined && x.key === undefined ? 1 : per);
}

function merge(a: Extent | undefined, b: Extent | undefined): Extent | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const elem = merge(a.elem, b.elem);
  const key = merge(a.key, b.key);
  return { n: Math.max(a.n, b.n), ...(elem !== undefined && { elem }), ...(key !== undefined && { key }) };
}

/** A string a conversion can yield from a scalar: the longest int, uint, double, bool, IP or CIDR text. */
const SCALAR_TEXT = 64;

interface Measured {
  readonly cost: number;
  readonly extent: Extent;
}

/** The work bound of one evaluation of `e`, in units of about one byte read or written. */
export function estimateWork(e: Expr, model: WorkModel): number {
  return new Estimator(model).measure(e, new Map()).cost;
}

class Estimator {
  constructor(private readonly model: WorkModel) {}

  private unknown(): Extent {
    return { n: this.model.unknownBytes };
  }

  measure(e: Expr, scope: ReadonlyMap<string, Extent>): Measured {
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr': {
        const c = k.value.constantKind;
        if (c.case === 'stringValue' || c.case === 'bytesValue') return { cost: WORK.step, extent: { n: c.value.length } };
        return { cost: WORK.step, extent: SCALAR };
      }
      case 'identExpr':
        return { cost: WORK.step, extent: scope.get(k.value.name) ?? SCALAR };
      case 'selectExpr':
        return this.select(e, scope);
      case 'listExpr': {
        let cost = WORK.step;
        let elem: Extent | undefined;
        for (const x of k.value.elements) {
          const m = this.measure(x, scope);
          cost += m.cost;
          elem = merge(elem, m.extent);
        }
        return { cost, extent: { n: k.value.elements.length, elem: elem ?? SCALAR } };
      }
      case 'structExpr': {
        let cost = WORK.step;
        let key: Extent | undefined;
        let elem: Extent | undefined;
        for (const en of k.value.entries) {
          if (en.keyKind.case === 'mapKey') {
            const m = this.measure(en.keyKind.value, scope);
            // Each entry hashes its key.
            cost += m.cost + width(m.extent);
            key = merge(key, m.extent);
          }
          if (en.value) {
            const m = this.measure(en.value, scope);
            cost += m.cost;
            elem = merge(elem, m.extent);
          }
        }
        return { cost, extent: { n: k.value.entries.length, elem: elem ?? SCALAR, key: key ?? SCALAR } };
      }
      case 'comprehensionExpr':
        return this.comprehension(k.value, scope);
      case 'callExpr':
        return this.call(k.value.function, k.value.target, k.value.args, scope);
      default:
        return { cost: WORK.step, extent: SCALAR };
    }
  }

  /** A chain of selections from a variable reads a field of the model's size; from a local, of its extent. */
  private select(e: Expr, scope: ReadonlyMap<string, Extent>): Measured {
    const path: string[] = [];
    let at: Expr | undefined = e;
    let cost = 0;
    while (at?.exprKind.case === 'selectExpr') {
      const s: Expr_Select = at.exprKind.value;
      if (s.testOnly) {
        // has(): a presence test, whatever the value holds.
        const operand = s.operand ? this.measure(s.operand, scope) : { cost: 0 };
        return { cost: operand.cost + WORK.step, extent: SCALAR };
      }
      path.unshift(s.field);
      cost += WORK.step;
      at = s.operand;
    }
    if (at?.exprKind.case === 'identExpr') {
      const name = at.exprKind.value.name;
      const local = scope.get(name);
      if (local !== undefined) return { cost: cost + WORK.step, extent: local.elem ?? this.unknown() };
      return { cost: cost + WORK.step, extent: this.model.fieldExtent(name, path) ?? this.unknown() };
    }
    const operand = at === undefined ? { cost: 0, extent: SCALAR } : this.measure(at, scope);
    return { cost: cost + operand.cost, extent: operand.extent.elem ?? this.unknown() };
  }

  private comprehension(
    c: Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value'],
    scope: ReadonlyMap<string, Extent>,
  ): Measured {
    const range = c.iterRange ? this.measure(c.iterRange, scope) : { cost: 0, extent: SCALAR };
    const init = c.accuInit ? this.measure(c.accuInit, scope) : { cost: 0, extent: SCALAR };
    // A map's iteration variable is its key.
    const iterExtent = range.extent.key ?? range.extent.elem ?? this.unknown();
    const n = range.extent.n;
    // map() and filter() start from an empty list and append at most one element per step.
    const appending = c.accuInit?.exprKind.case === 'listExpr' && c.accuInit.exprKind.value.elements.length === 0;
    const inner = new Map(scope);
    inner.set(c.iterVar, iterExtent);
    inner.set(c.accuVar, appending ? { n, elem: this.unknown() } : init.extent);
    // The step's own element: measured without the accumulator, which is appended to in place (comprehension.ts).
    const step = c.loopStep ? this.step(c.loopStep, c.accuVar, appending, inner) : { cost: 0, extent: SCALAR };
    const condition = c.loopCondition ? this.measure(c.loopCondition, inner) : { cost: 0 };
    if (appending) inner.set(c.accuVar, { n, elem: step.extent.elem ?? iterExtent });
    const result = c.result ? this.measure(c.result, inner) : { cost: 0, extent: SCALAR };
    return {
      cost: range.cost + init.cost + result.cost + n * (condition.cost + step.cost + WORK.step),
      extent: appending ? { n, elem: step.extent.elem ?? iterExtent } : result.extent,
    };
  }

  /** A loop step; `accu + [x]` on an appending accumulator costs x, not a copy of the list. */
  private step(e: Expr, accu: string, appending: boolean, scope: ReadonlyMap<string, Extent>): Measured {
    const k = e.exprKind;
    if (appending && k.case === 'callExpr') {
      const call = k.value;
      const [a, b, c] = call.args;
      const isAccu = (x: Expr | undefined): boolean => x?.exprKind.case === 'identExpr' && x.exprKind.value.name === accu;
      if (call.function === '_+_' && isAccu(a) && b !== undefined) {
        const m = this.measure(b, scope);
        return { cost: m.cost + WORK.step, extent: { n: 0, elem: m.extent.elem ?? SCALAR } };
      }
      if (call.function === '_?_:_' && a !== undefined && b !== undefined && isAccu(c)) {
        const cond = this.measure(a, scope);
        const then = this.step(b, accu, appending, scope);
        return { cost: cond.cost + then.cost + WORK.step, extent: then.extent };
      }
    }
    return this.measure(e, scope);
  }

  private call(fn: string, target: Expr | undefined, args: readonly Expr[], scope: ReadonlyMap<string, Extent>): Measured {
    const parts = [...(target === undefined ? [] : [target]), ...args].map((x) => this.measure(x, scope));
    const own = parts.reduce((sum, p) => sum + p.cost, 0);
    const [a, b, c] = parts.map((p) => p.extent) as [Extent | undefined, Extent | undefined, Extent | undefined];
    const w = (x: Extent | undefined): number => (x === undefined ? 1 : width(x));
    const done = (work: number, extent: Extent = SCALAR): Measured => ({ cost: own + WORK.step + work, extent });
    switch (fn) {
      case '_&&_':
      case '_||_':
      case '!_':
      case '@not_strictly_false':
        return done(0);
      case '_?_:_': {
        // Only one branch is evaluated.
        const [cond, then, otherwise] = parts;
        const cost = (cond?.cost ?? 0) + Math.max(then?.cost ?? 0, otherwise?.cost ?? 0) + WORK.step;
        return { cost, extent: merge(b, c) ?? SCALAR };
      }
      case '_==_':
      case '_!=_':
      case '_<_':
      case '_<=_':
      case '_>_':
      case '_>=_':
        return done(Math.min(w(a), w(b)));
      case '_+_': {
        // Strings and bytes are joined, lists copied; numbers add (both extents 0).
        if (a === undefined || b === undefined || (a.n === 0 && b.n === 0 && a.elem === undefined)) return done(0);
        const elem = merge(a.elem, b.elem);
        return done(WORK.joinPerChar * (w(a) + w(b)), { n: a.n + b.n, ...(elem !== undefined && { elem }) });
      }
      case '@in': {
        const item = w(a);
        const coll = b ?? this.unknown();
        const literal = args[1]?.exprKind.case === 'listExpr' && args[1].exprKind.value.elements.every((x) => x.exprKind.case === 'constExpr');
        // A map, or a list of literals (a set the compiler builds once): one hash of the item.
        if (coll.key !== undefined || literal) return done(item);
        return done(Math.max(1, coll.n) * Math.min(item, coll.elem === undefined ? item : width(coll.elem)));
      }
      case '_[_]':
        if (a?.key !== undefined) return done(w(b), a.elem ?? SCALAR);
        return done(0, a?.elem ?? this.unknown());
      case 'size':
        // A string's size counts its code points.
        return done(a !== undefined && a.elem === undefined ? WORK.sizePerChar * a.n : 0);
      case 'contains':
        return done(w(a) * w(b));
      case 'startsWith':
      case 'endsWith':
        return done(Math.min(w(a), w(b)));
      case 'matches':
        // RE2 simulates the pattern's program (about one state per pattern character) over each input character.
        return done((w(a) + 1) * (w(b) + 1));
      case 'string':
        return done(w(a), { n: Math.max(a?.n ?? 0, SCALAR_TEXT) });
      case 'bytes':
        // UTF-8 takes up to 4 bytes a character (a UTF-16 unit up to 3).
        return done(w(a), { n: 3 * (a?.n ?? 0) });
      case 'dyn':
        return done(0, a ?? SCALAR);
      default:
        // Conversions, IP and CIDR functions: each reads its arguments once.
        return done(parts.reduce((sum, p) => sum + w(p.extent), 0));
    }
  }
}
