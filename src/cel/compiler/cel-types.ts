// The static type model of the checker: CEL's types, type parameters, and unification over them.

export type CelT =
  | { readonly kind: 'int' | 'uint' | 'double' | 'bool' | 'string' | 'bytes' | 'null' | 'dyn' | 'error' }
  | { readonly kind: 'list'; readonly elem: CelT }
  | { readonly kind: 'map'; readonly key: CelT; readonly value: CelT }
  /** The type of a type value; `of` is the denoted type when known, e.g. type(int). */
  | { readonly kind: 'type'; readonly of: CelT | undefined }
  /** A named object with a fixed set of fields, e.g. a traffic record; selecting another field is an error. */
  | { readonly kind: 'record'; readonly name: string; readonly fields: ReadonlyMap<string, CelT> }
  /** An extension type with no fields, e.g. net.IP. */
  | { readonly kind: 'opaque'; readonly name: string }
  | { readonly kind: 'param'; readonly name: string };

export const INT: CelT = { kind: 'int' };
export const UINT: CelT = { kind: 'uint' };
export const DOUBLE: CelT = { kind: 'double' };
export const BOOL: CelT = { kind: 'bool' };
export const STRING: CelT = { kind: 'string' };
export const BYTES: CelT = { kind: 'bytes' };
export const NULL: CelT = { kind: 'null' };
export const DYN: CelT = { kind: 'dyn' };
/** The type of an expression that already failed to check; it unifies with anything so errors do not cascade. */
export const ERROR: CelT = { kind: 'error' };
export const TYPE: CelT = { kind: 'type', of: undefined };
export const IP_TYPE: CelT = { kind: 'opaque', name: 'net.IP' };
export const CIDR_TYPE: CelT = { kind: 'opaque', name: 'net.CIDR' };

export const listOf = (elem: CelT): CelT => ({ kind: 'list', elem });
export const mapOf = (key: CelT, value: CelT): CelT => ({ kind: 'map', key, value });
export const typeOf = (of: CelT): CelT => ({ kind: 'type', of });
export const param = (name: string): CelT => ({ kind: 'param', name });
export const record = (name: string, fields: ReadonlyMap<string, CelT>): CelT => ({ kind: 'record', name, fields });

/** The runtime type name CEL's type() returns for values of this type. */
export function typeName(t: CelT): string {
  switch (t.kind) {
    case 'null':
      return 'null_type';
    case 'record':
    case 'opaque':
      return t.name;
    default:
      return t.kind;
  }
}

/** CEL's own spelling, e.g. list(int), map(string, dyn); used in problem messages. */
export function formatType(t: CelT): string {
  switch (t.kind) {
    case 'list':
      return `list(${formatType(t.elem)})`;
    case 'map':
      return `map(${formatType(t.key)}, ${formatType(t.value)})`;
    case 'type':
      return t.of === undefined ? 'type' : `type(${formatType(t.of)})`;
    case 'param':
      return t.name;
    default:
      return typeName(t);
  }
}

/** Bindings of type parameters, built up while checking one expression. */
export type Substitution = Map<string, CelT>;

/** Follows parameter bindings until a non-parameter or an unbound parameter. */
export function prune(s: Substitution, t: CelT): CelT {
  let cur = t;
  while (cur.kind === 'param') {
    const next = s.get(cur.name);
    if (next === undefined) return cur;
    cur = next;
  }
  return cur;
}

function occurs(s: Substitution, name: string, t: CelT): boolean {
  const p = prune(s, t);
  switch (p.kind) {
    case 'param':
      return p.name === name;
    case 'list':
      return occurs(s, name, p.elem);
    case 'map':
      return occurs(s, name, p.key) || occurs(s, name, p.value);
    case 'type':
      return p.of !== undefined && occurs(s, name, p.of);
    default:
      return false;
  }
}

/**
 * Whether a value of type `actual` may be used where `expected` is wanted, binding parameters in `s`
 * as a side effect. dyn and error are assignable both ways, as in cel-go's checker.
 */
export function assign(s: Substitution, expected: CelT, actual: CelT): boolean {
  const a = prune(s, expected);
  const b = prune(s, actual);
  if (a.kind === 'param') {
    if (b.kind === 'param' && b.name === a.name) return true;
    if (occurs(s, a.name, b)) return false;
    s.set(a.name, b);
    return true;
  }
  if (b.kind === 'param') {
    if (occurs(s, b.name, a)) return false;
    s.set(b.name, a);
    return true;
  }
  if (a.kind === 'dyn' || b.kind === 'dyn' || a.kind === 'error' || b.kind === 'error') return true;
  switch (a.kind) {
    case 'list':
      return b.kind === 'list' && assign(s, a.elem, b.elem);
    case 'map':
      return b.kind === 'map' && assign(s, a.key, b.key) && assign(s, a.value, b.value);
    case 'type':
      // Type values compare with each other whatever they denote: type(7) == type(7u) checks.
      return b.kind === 'type';
    case 'record':
    case 'opaque':
      return (b.kind === a.kind && b.name === a.name) || b.kind === 'null';
    default:
      return a.kind === b.kind;
  }
}

/** Replaces bound parameters by their bindings; unbound ones become dyn when `freeToDyn`. */
export function substitute(s: Substitution, t: CelT, freeToDyn: boolean): CelT {
  const p = prune(s, t);
  switch (p.kind) {
    case 'param':
      return freeToDyn ? DYN : p;
    case 'list':
      return listOf(substitute(s, p.elem, freeToDyn));
    case 'map':
      return mapOf(substitute(s, p.key, freeToDyn), substitute(s, p.value, freeToDyn));
    case 'type':
      return p.of === undefined ? p : typeOf(substitute(s, p.of, freeToDyn));
    default:
      return p;
  }
}

/** Structural equality after substitution. */
export function sameType(s: Substitution, x: CelT, y: CelT): boolean {
  const a = prune(s, x);
  const b = prune(s, y);
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'list':
      return sameType(s, a.elem, (b as typeof a).elem);
    case 'map':
      return sameType(s, a.key, (b as typeof a).key) && sameType(s, a.value, (b as typeof a).value);
    case 'param':
    case 'record':
    case 'opaque':
      return a.name === (b as typeof a).name;
    case 'type':
      return true;
    default:
      return true;
  }
}

export function isDynLike(t: CelT): boolean {
  return t.kind === 'dyn' || t.kind === 'error' || t.kind === 'param';
}

/** Renames the parameters of an overload signature so two calls of one function do not share bindings. */
export function freshen(t: CelT, suffix: string): CelT {
  switch (t.kind) {
    case 'param':
      return param(`${t.name}#${suffix}`);
    case 'list':
      return listOf(freshen(t.elem, suffix));
    case 'map':
      return mapOf(freshen(t.key, suffix), freshen(t.value, suffix));
    case 'type':
      return t.of === undefined ? t : typeOf(freshen(t.of, suffix));
    default:
      return t;
  }
}
