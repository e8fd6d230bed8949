// The type checker: assigns a type to every node of a parsed (macro-expanded) AST and collects every problem.
//
// It follows cel-go's checker: overload resolution with type parameters, list and map literals of
// mixed element types widen to dyn, dyn is assignable to anything, and a failed node gets the error
// type so one mistake is reported once rather than at every enclosing call.
import type { Constant, Expr } from '@bufbuild/cel-spec/cel/expr/syntax_pb.js';
import {
  BOOL,
  BYTES,
  DOUBLE,
  DYN,
  ERROR,
  INT,
  NULL,
  STRING,
  UINT,
  assign,
  formatType,
  freshen,
  listOf,
  mapOf,
  param,
  prune,
  sameType,
  substitute,
  typeOf,
  type CelT,
  type Substitution,
} from './cel-types.js';
import { TYPE_DENOTATIONS, type Overload } from './declarations.js';
import { INT64_MAX, INT64_MIN, UINT64_MAX } from './values.js';

/** The declarations an expression is checked against. */
export interface TypeEnv {
  readonly variables: ReadonlyMap<string, CelT>;
  readonly functions: ReadonlyMap<string, readonly Overload[]>;
}

export type CheckIssueCode = 'syntax' | 'unknown_variable' | 'unknown_field' | 'unknown_function' | 'type' | 'unsupported';

export interface CheckIssue {
  readonly code: CheckIssueCode;
  readonly exprId: bigint;
  readonly message: string;
  /** For unknown_field on a record: the field name that was not found. */
  readonly field?: string;
}

export type Reference =
  | { readonly kind: 'variable'; readonly name: string }
  | { readonly kind: 'local'; readonly name: string }
  | { readonly kind: 'type'; readonly type: CelT }
  | { readonly kind: 'call'; readonly overloads: readonly Overload[] };

export interface CheckResult {
  /** The type of every node, with unresolved type parameters widened to dyn. */
  readonly types: ReadonlyMap<bigint, CelT>;
  readonly refs: ReadonlyMap<bigint, Reference>;
  readonly issues: readonly CheckIssue[];
  readonly resultType: CelT;
}

const OPERATOR_SYMBOLS: Readonly<Record<string, string>> = {
  '_==_': '==',
  '_!=_': '!=',
  '_<_': '<',
  '_<=_': '<=',
  '_>_': '>',
  '_>=_': '>=',
  '_+_': '+',
  '_-_': '-',
  '_*_': '*',
  '_/_': '/',
  '_%_': '%',
  '-_': '-',
  '!_': '!',
  '_&&_': '&&',
  '_||_': '||',
  '_?_:_': '?:',
  '@in': 'in',
  '_[_]': '[]',
};

const MAP_KEY_KINDS = new Set(['int', 'uint', 'bool', 'string', 'dyn', 'error', 'param']);

export function checkExpr(root: Expr, env: TypeEnv): CheckResult {
  const c = new Checker(env);
  const t = c.visit(root);
  const types = new Map<bigint, CelT>();
  for (const [id, raw] of c.rawTypes) types.set(id, substitute(c.subst, raw, true));
  return { types, refs: c.refs, issues: c.issues, resultType: substitute(c.subst, t, true) };
}

class Checker {
  subst: Substitution = new Map();
  readonly rawTypes = new Map<bigint, CelT>();
  readonly refs = new Map<bigint, Reference>();
  readonly issues: CheckIssue[] = [];
  private readonly scopes: Map<string, CelT>[] = [];
  private fresh = 0;
  private readonly hasDottedVariables: boolean;

  constructor(private readonly env: TypeEnv) {
    this.hasDottedVariables = [...env.variables.keys()].some((k) => k.includes('.'));
  }

  visit(e: Expr): CelT {
    const t = this.visitKind(e);
    this.rawTypes.set(e.id, t);
    return t;
  }

  private issue(code: CheckIssueCode, exprId: bigint, message: string, field?: string): CelT {
    this.issues.push(field === undefined ? { code, exprId, message } : { code, exprId, message, field });
    return ERROR;
  }

  private freshParam(): CelT {
    return param(`_T${this.fresh++}`);
  }

  private visitKind(e: Expr): CelT {
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        return this.constant(e.id, k.value);
      case 'identExpr':
        return this.ident(e.id, k.value.name);
      case 'selectExpr': {
        const { operand, field, testOnly } = k.value;
        if (operand === undefined) return this.issue('syntax', e.id, 'A field selection has no operand.');
        if (!testOnly && this.hasDottedVariables) {
          const q = this.qualifiedName(e);
          const vt = q === undefined ? undefined : this.env.variables.get(q);
          if (q !== undefined && vt !== undefined) {
            this.refs.set(e.id, { kind: 'variable', name: q });
            return vt;
          }
        }
        return this.select(e.id, this.visit(operand), field, testOnly);
      }
      case 'callExpr':
        return this.call(e.id, k.value.function, k.value.target, k.value.args);
      case 'listExpr': {
        if (k.value.optionalIndices.length > 0) return this.issue('unsupported', e.id, 'Optional list elements are not supported.');
        let elem: CelT | undefined;
        for (const el of k.value.elements) {
          const t = this.visit(el);
          elem = elem === undefined ? t : this.join(elem, t);
        }
        return listOf(elem ?? this.freshParam());
      }
      case 'structExpr': {
        if (k.value.messageName !== '')
          return this.issue('unsupported', e.id, `Message construction (${k.value.messageName}{...}) is not supported.`);
        let key: CelT | undefined;
        let value: CelT | undefined;
        for (const entry of k.value.entries) {
          if (entry.keyKind.case !== 'mapKey' || entry.value === undefined || entry.optionalEntry)
            return this.issue('unsupported', e.id, 'Only plain map entries are supported in a map literal.');
          const kt = this.visit(entry.keyKind.value);
          if (!MAP_KEY_KINDS.has(prune(this.subst, kt).kind))
            this.issue('type', entry.keyKind.value.id, `A map key cannot be of type ${formatType(kt)}.`);
          key = key === undefined ? kt : this.join(key, kt);
          const vt = this.visit(entry.value);
          value = value === undefined ? vt : this.join(value, vt);
        }
        return mapOf(key ?? this.freshParam(), value ?? this.freshParam());
      }
      case 'comprehensionExpr':
        return this.comprehension(e.id, k.value);
      default:
        return this.issue('syntax', e.id, 'The expression is empty.');
    }
  }

  private constant(id: bigint, c: Constant): CelT {
    const k = c.constantKind;
    switch (k.case) {
      case 'boolValue':
        return BOOL;
      case 'int64Value':
        if (k.value > INT64_MAX || k.value < INT64_MIN) return this.issue('syntax', id, 'The integer literal is out of the int64 range.');
        return INT;
      case 'uint64Value':
        if (k.value > UINT64_MAX) return this.issue('syntax', id, 'The unsigned integer literal is out of the uint64 range.');
        return UINT;
      case 'doubleValue':
        return DOUBLE;
      case 'stringValue':
        return STRING;
      case 'bytesValue':
        return BYTES;
      case 'nullValue':
        return NULL;
      default:
        return this.issue('unsupported', id, `Literals of kind ${String(k.case)} are not supported.`);
    }
  }

  private ident(id: bigint, name: string): CelT {
    for (let i = this.scopes.length - 1; i >= 0; i--) {
      const t = this.scopes[i]?.get(name);
      if (t !== undefined) {
        this.refs.set(id, { kind: 'local', name });
        return t;
      }
    }
    const vt = this.env.variables.get(name);
    if (vt !== undefined) {
      this.refs.set(id, { kind: 'variable', name });
      return vt;
    }
    const denoted = TYPE_DENOTATIONS.get(name);
    if (denoted !== undefined) {
      this.refs.set(id, { kind: 'type', type: denoted });
      return typeOf(denoted);
    }
    return this.issue('unknown_variable', id, `'${name}' is not a declared variable.`);
  }

  private isLocal(name: string): boolean {
    return this.scopes.some((s) => s.has(name));
  }

  /** `a.b.c` as one dotted name when the chain is made only of selections on an identifier. */
  private qualifiedName(e: Expr): string | undefined {
    const parts: string[] = [];
    let cur: Expr | undefined = e;
    while (cur !== undefined && cur.exprKind.case === 'selectExpr') {
      if (cur.exprKind.value.testOnly) return undefined;
      parts.push(cur.exprKind.value.field);
      cur = cur.exprKind.value.operand;
    }
    if (cur === undefined || cur.exprKind.case !== 'identExpr') return undefined;
    const root = cur.exprKind.value.name;
    if (this.isLocal(root)) return undefined;
    parts.push(root);
    return parts.reverse().join('.');
  }

  private select(id: bigint, operandType: CelT, field: string, testOnly: boolean): CelT {
    const t = prune(this.subst, operandType);
    switch (t.kind) {
      case 'record': {
        const ft = t.fields.get(field);
        if (ft === undefined) return this.issue('unknown_field', id, `${t.name} has no field '${field}'.`, field);
        return testOnly ? BOOL : ft;
      }
      case 'map':
        if (!assign(this.subst, t.key, STRING))
          return this.issue('type', id, `Field selection needs a map with string keys, not ${formatType(t)}.`);
        return testOnly ? BOOL : t.value;
      case 'dyn':
      case 'error':
      case 'param':
        return testOnly ? BOOL : DYN;
      default:
        return this.issue('type', id, `type '${formatType(t)}' does not support field selection`);
    }
  }

  private call(id: bigint, fn: string, target: Expr | undefined, args: readonly Expr[]): CelT {
    const argTypes: CelT[] = [];
    if (target !== undefined) argTypes.push(this.visit(target));
    for (const a of args) argTypes.push(this.visit(a));
    const overloads = this.env.functions.get(fn);
    if (overloads === undefined)
      return this.issue('unknown_function', id, `'${fn}' is not a known ${target === undefined ? 'function' : 'method'}.`);
    const receiver = target !== undefined;
    let result: CelT | undefined;
    let commit: Substitution | undefined;
    const matched: Overload[] = [];
    for (const o of overloads) {
      if (o.receiver !== receiver || o.params.length !== argTypes.length) continue;
      const s = new Map(this.subst);
      const suffix = String(this.fresh++);
      if (!o.params.every((p, i) => assign(s, freshen(p, suffix), argTypes[i] as CelT))) continue;
      const rt = substitute(s, freshen(o.result, suffix), false);
      matched.push(o);
      if (result === undefined) {
        result = rt;
        commit = s;
      } else {
        if (!sameType(s, result, rt)) result = DYN;
        commit = undefined;
      }
    }
    if (result === undefined) {
      if (argTypes.some((t) => prune(this.subst, t).kind === 'error')) return ERROR;
      return this.issue('type', id, noOverloadMessage(fn, receiver, argTypes.map((t) => formatType(substitute(this.subst, t, true)))));
    }
    if (commit !== undefined) this.subst = commit;
    this.refs.set(id, { kind: 'call', overloads: matched });
    return result;
  }

  /** The element type of a literal with elements of types a and b: the common type, else dyn. */
  private join(a: CelT, b: CelT): CelT {
    if (sameType(this.subst, a, b)) return a;
    const pa = prune(this.subst, a);
    const pb = prune(this.subst, b);
    if (pa.kind === 'dyn' || pb.kind === 'dyn' || pa.kind === 'error' || pb.kind === 'error') return DYN;
    const s = new Map(this.subst);
    if (assign(s, a, b)) {
      this.subst = s;
      return a;
    }
    return DYN;
  }

  private comprehension(
    id: bigint,
    c: {
      iterVar: string;
      iterVar2: string;
      iterRange?: Expr;
      accuVar: string;
      accuInit?: Expr;
      loopCondition?: Expr;
      loopStep?: Expr;
      result?: Expr;
    },
  ): CelT {
    if (c.iterVar2 !== '') return this.issue('unsupported', id, 'Two-variable comprehensions are not supported.');
    if (!c.iterRange || !c.accuInit || !c.loopCondition || !c.loopStep || !c.result)
      return this.issue('syntax', id, 'The comprehension is incomplete.');
    const range = prune(this.subst, this.visit(c.iterRange));
    let iterType: CelT;
    switch (range.kind) {
      case 'list':
        iterType = range.elem;
        break;
      case 'map':
        iterType = range.key;
        break;
      case 'dyn':
      case 'error':
      case 'param':
        iterType = DYN;
        break;
      default:
        iterType = this.issue('type', c.iterRange.id, `A value of type ${formatType(range)} cannot be iterated over; use a list or a map.`);
    }
    const accuType = this.visit(c.accuInit);
    this.scopes.push(new Map([[c.accuVar, accuType]]));
    this.scopes.push(new Map([[c.iterVar, iterType]]));
    const cond = this.visit(c.loopCondition);
    if (!assign(this.subst, BOOL, cond)) this.issue('type', c.loopCondition.id, 'The loop condition must be a bool.');
    const step = this.visit(c.loopStep);
    if (!assign(this.subst, accuType, step))
      this.issue('type', c.loopStep.id, `The predicate must be a bool, not ${formatType(substitute(this.subst, step, true))}.`);
    this.scopes.pop();
    const result = this.visit(c.result);
    this.scopes.pop();
    return result;
  }
}

function noOverloadMessage(fn: string, receiver: boolean, args: readonly string[]): string {
  const sym = OPERATOR_SYMBOLS[fn];
  if (sym !== undefined) {
    if (args.length === 2) return `The operator ${sym} cannot be applied to ${args[0]} and ${args[1]}.`;
    return `The operator ${sym} cannot be applied to (${args.join(', ')}).`;
  }
  if (receiver) return `The method ${fn} cannot be applied to ${args[0]} with arguments (${args.slice(1).join(', ')}).`;
  return `The function ${fn} cannot be applied to (${args.join(', ')}).`;
}
