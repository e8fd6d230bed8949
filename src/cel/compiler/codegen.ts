// Turns a checked AST into a tree of JavaScript closures; user text is never evaluated as code.
//
// Every closure returns a Value, and a CelErr is just another value, so no exception is thrown on
// the hot path. Subtrees that read no variable are evaluated once here (constant folding).
import type { Constant, Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import { BOOL, DYN, ERROR, typeName, type CelT } from './cel-types.js';
import type { CheckResult } from './checker.js';
import { compileComprehension } from './comprehension.js';
import { presenceTester, typedReader } from './fields.js';
import { andTests, groupFn, notTest, orTests, sameGroup, type GroupPredicate } from './group.js';
import { constantNode, unionFree, type FieldPath, type Fn, type Node } from './node.js';
import { BINARY, METHODS_1, METHODS_2, UNARY, hasDynamic, selectDynamic, type Impl1, type Impl2 } from './runtime.js';
import { NETWORK_BINARY, NETWORK_METHODS_1, NETWORK_METHODS_2, NETWORK_UNARY } from './network.js';
import { specializeCall } from './specialize.js';
import { CelErr, CelMap, CelTypeValue, CelUint, internalize, mapKeyOf, noSuchOverload, type MapKey, type Value } from './values.js';

/** Functions whose constant arguments are validated when the expression is compiled (cel-go does the same for ip and cidr). */
const VALIDATED_FUNCTIONS = new Set(['matches', 'ip', 'cidr', 'containsIP', 'containsCIDR', 'inCidrRange']);

/** A constant argument that can never work, found while compiling, e.g. an invalid regular expression. */
export interface ArgumentProblem {
  readonly exprId: bigint;
  readonly message: string;
}

export class ClosureCompiler {
  readonly problems: ArgumentProblem[] = [];
  private nextSlot: number;
  private readonly locals: { readonly name: string; readonly slot: number }[] = [];

  constructor(
    private readonly checked: CheckResult,
    private readonly variableSlots: ReadonlyMap<string, number>,
  ) {
    this.nextSlot = variableSlots.size;
  }

  /** Slots the program's frame needs. */
  get frameSize(): number {
    return this.nextSlot;
  }

  typeOf(e: Expr): CelT {
    return this.checked.types.get(e.id) ?? DYN;
  }

  compile(e: Expr): Node {
    const n = this.compileKind(e);
    if (n.constant !== undefined || n.free.size > 0) return n;
    return constantNode(n.fn([]), n.type);
  }

  private report(exprId: bigint, message: string): void {
    if (!this.problems.some((p) => p.exprId === exprId)) this.problems.push({ exprId, message });
  }

  /** Binds a comprehension variable to a fresh slot for the duration of `body`. */
  withLocal<T>(name: string, body: (slot: number) => T): T {
    const slot = this.nextSlot++;
    this.locals.push({ name, slot });
    try {
      return body(slot);
    } finally {
      this.locals.pop();
    }
  }

  private localSlot(name: string): number | undefined {
    for (let i = this.locals.length - 1; i >= 0; i--) if (this.locals[i]?.name === name) return this.locals[i]?.slot;
    return undefined;
  }

  private compileKind(e: Expr): Node {
    const type = this.typeOf(e);
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        return constantNode(constantValue(k.value), type);
      case 'identExpr':
        return this.variable(e, k.value.name, type);
      case 'selectExpr': {
        const ref = this.checked.refs.get(e.id);
        if (ref?.kind === 'variable') return this.variable(e, ref.name, type);
        if (k.value.operand === undefined) return constantNode(new CelErr('select without operand'), ERROR);
        return this.select(this.compile(k.value.operand), internalize(k.value.field), k.value.testOnly, type);
      }
      case 'callExpr': {
        const { target, args } = k.value;
        const nodes = (target ? [target, ...args] : args).map((a) => this.compile(a));
        const n = this.call(e.id, k.value.function, target !== undefined, nodes, type);
        // A constant call that fails on valid constant arguments, e.g. cidr('10.0.0.0/99'), can never work.
        if (VALIDATED_FUNCTIONS.has(k.value.function) && n.constant === undefined && n.free.size === 0) {
          if (nodes.every((a) => !(a.constant?.value instanceof CelErr))) {
            const value = n.fn([]);
            if (value instanceof CelErr) this.report(e.id, `${value.message}.`);
            return constantNode(value, type);
          }
        }
        return n;
      }
      case 'listExpr':
        return this.list(k.value.elements.map((el) => this.compile(el)), type);
      case 'structExpr':
        return this.map(e, type);
      case 'comprehensionExpr':
        return compileComprehension(this, k.value, type);
      default:
        return constantNode(new CelErr('empty expression'), ERROR);
    }
  }

  private variable(e: Expr, name: string, type: CelT): Node {
    const ref = this.checked.refs.get(e.id);
    if (ref?.kind === 'type') return constantNode(CelTypeValue.of(typeName(ref.type)), type);
    const slot = this.localSlot(name) ?? (ref?.kind === 'local' ? undefined : this.variableSlots.get(name));
    if (slot === undefined) return constantNode(new CelErr(`undeclared reference to '${name}'`), ERROR);
    const fn: Fn = (f) => f[slot] as Value;
    const field: FieldPath | undefined = type.kind === 'record' ? { slot, path: [], leaf: type } : undefined;
    return field === undefined ? { fn, type, free: new Set([slot]) } : { fn, type, free: new Set([slot]), field };
  }

  private select(operand: Node, field: string, testOnly: boolean, type: CelT): Node {
    const free = operand.free;
    const path: FieldPath | undefined =
      operand.field !== undefined && operand.type.kind === 'record'
        ? { slot: operand.field.slot, path: [...operand.field.path, field], leaf: testOnly ? BOOL : type }
        : undefined;
    if (testOnly) {
      if (path !== undefined) return { fn: presenceTester(path), type, free };
      const op = operand.fn;
      return { fn: (f) => hasDynamic(op(f), field), type, free };
    }
    if (path !== undefined) return { fn: typedReader(path), type, free, field: path };
    const op = operand.fn;
    return { fn: (f) => selectDynamic(op(f), field), type, free };
  }

  private call(id: bigint, name: string, receiver: boolean, args: readonly Node[], type: CelT): Node {
    const free = unionFree(args);
    const [a, b, c] = args;
    if (!receiver && a !== undefined && b !== undefined) {
      if (name === '_&&_' || name === '_||_') return logical(name, a, b, type);
      if (name === '_?_:_' && c !== undefined) return { fn: conditional(a.fn, b.fn, c.fn), type, free };
    }
    if (name === '!_' && !receiver && a?.group !== undefined) {
      return groupNode({ slot: a.group.slot, name: a.group.name, test: notTest(a.group.test) }, type, free);
    }
    if (name === '@not_strictly_false' && a !== undefined) {
      const x = a.fn;
      return { fn: (f) => x(f) !== false, type, free };
    }
    const special = specializeCall(name, receiver, args, (message) => this.report(id, message));
    if (special !== undefined) return special.group === undefined ? { fn: special.fn, type, free } : { fn: special.fn, type, free, group: special.group };
    if (args.length === 1 && a !== undefined) {
      const impl: Impl1 | undefined = receiver
        ? (METHODS_1.get(name) ?? NETWORK_METHODS_1.get(name))
        : (UNARY.get(name) ?? NETWORK_UNARY.get(name));
      if (impl !== undefined) return { fn: strict1(a.fn, impl), type, free };
    }
    if (args.length === 2 && a !== undefined && b !== undefined) {
      const impl: Impl2 | undefined = receiver
        ? (METHODS_2.get(name) ?? NETWORK_METHODS_2.get(name))
        : (BINARY.get(name) ?? NETWORK_BINARY.get(name));
      if (impl !== undefined) return { fn: strict2(a.fn, b.fn, impl), type, free };
    }
    // Unchecked programs may call what does not exist; cel-go makes that an error value, not a failure.
    return constantNode(new CelErr(`unbound function '${name}'`), ERROR);
  }

  private list(elements: readonly Node[], type: CelT): Node {
    const fns = elements.map((n) => n.fn);
    const fn: Fn = (f) => {
      const out: Value[] = new Array<Value>(fns.length);
      for (let i = 0; i < fns.length; i++) {
        const v = (fns[i] as Fn)(f);
        if (v instanceof CelErr) return v;
        out[i] = v;
      }
      return out;
    };
    return { fn, type, free: unionFree(elements) };
  }

  private map(e: Expr, type: CelT): Node {
    const k = e.exprKind;
    if (k.case !== 'structExpr' || k.value.messageName !== '') return constantNode(new CelErr('message construction is not supported'), ERROR);
    const entries: [Node, Node][] = [];
    for (const en of k.value.entries) {
      if (en.keyKind.case !== 'mapKey' || en.value === undefined) return constantNode(new CelErr('unsupported map entry'), ERROR);
      entries.push([this.compile(en.keyKind.value), this.compile(en.value)]);
    }
    const fn: Fn = (f) => {
      const out = new Map<MapKey, readonly [Value, Value]>();
      for (const [kn, vn] of entries) {
        const key = kn.fn(f);
        if (key instanceof CelErr) return key;
        const value = vn.fn(f);
        if (value instanceof CelErr) return value;
        const nk = mapKeyOf(key);
        if (nk === undefined) return new CelErr(`unsupported key type: ${typeof key}`);
        if (out.has(nk)) return new CelErr(`Failed with repeated key: ${String(key)}`);
        out.set(nk, [key, value]);
      }
      return new CelMap(out);
    };
    return { fn, type, free: unionFree(entries.flat()) };
  }
}

/**
 * `a && b` or `a || b`. Two tests of the same record group become one group test, which reads the
 * group once for both (see group.ts).
 */
export function logical(name: '_&&_' | '_||_', a: Node, b: Node, type: CelT): Node {
  const free = unionFree([a, b]);
  const ga = a.group;
  const gb = b.group;
  if (ga !== undefined && gb !== undefined && sameGroup(ga, gb)) {
    const test = name === '_&&_' ? andTests(ga.test, gb.test) : orTests(ga.test, gb.test);
    return groupNode({ slot: ga.slot, name: ga.name, test }, type, free);
  }
  return { fn: name === '_&&_' ? and(a.fn, b.fn) : or(a.fn, b.fn), type, free };
}

function groupNode(group: GroupPredicate, type: CelT, free: ReadonlySet<number>): Node {
  return { fn: groupFn(group), type, free, group };
}

function constantValue(c: Constant): Value {
  const k = c.constantKind;
  switch (k.case) {
    case 'boolValue':
    case 'int64Value':
    case 'doubleValue':
    case 'bytesValue':
      return k.value;
    case 'stringValue':
      return internalize(k.value);
    case 'uint64Value':
      return new CelUint(k.value);
    case 'nullValue':
      return null;
    default:
      return new CelErr(`unsupported literal ${String(k.case)}`);
  }
}

function logicErr(fn: string, a: Value, b: Value): Value {
  if (a instanceof CelErr) return a;
  if (b instanceof CelErr) return b;
  return noSuchOverload(fn, a, b);
}

/**
 * CEL spec, Logical operators: "false && error" is false whichever side the error is on, and
 * "true && error" is the error: both sides are evaluated unless the left decides.
 */
function and(x: Fn, y: Fn): Fn {
  return (f) => {
    const a = x(f);
    if (a === false) return false;
    const b = y(f);
    if (b === false) return false;
    if (a === true && b === true) return true;
    return logicErr('_&&_', a, b);
  };
}

function or(x: Fn, y: Fn): Fn {
  return (f) => {
    const a = x(f);
    if (a === true) return true;
    const b = y(f);
    if (b === true) return true;
    if (a === false && b === false) return false;
    return logicErr('_||_', a, b);
  };
}

function conditional(c: Fn, t: Fn, e: Fn): Fn {
  return (f) => {
    const v = c(f);
    if (v === true) return t(f);
    if (v === false) return e(f);
    return v instanceof CelErr ? v : noSuchOverload('_?_:_', v);
  };
}

function strict1(x: Fn, impl: Impl1): Fn {
  return (f) => {
    const a = x(f);
    return a instanceof CelErr ? a : impl(a);
  };
}

function strict2(x: Fn, y: Fn, impl: Impl2): Fn {
  return (f) => {
    const a = x(f);
    const b = y(f);
    if (a instanceof CelErr) return a;
    if (b instanceof CelErr) return b;
    return impl(a, b);
  };
}

