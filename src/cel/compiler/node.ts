// The compiled form of one AST node: a closure over a frame of variable slots, plus what the specialiser needs to know.
import type { CelT } from './cel-types.js';
import type { GroupPredicate } from './group.js';
import type { Value } from './values.js';

/** Variable slots: declared variables first, then one slot per comprehension variable. */
export type Frame = Value[];
export type Fn = (f: Frame) => Value;

/** A chain of record field selections rooted at a variable slot, e.g. ev.<group>.<field>. */
export interface FieldPath {
  readonly slot: number;
  readonly path: readonly string[];
  /** The declared type of the last field. */
  readonly leaf: CelT;
}

export interface Node {
  readonly fn: Fn;
  readonly type: CelT;
  /** Present when the value was computed at compile time (constant folding). */
  readonly constant?: { readonly value: Value };
  /** Slots read by the node that are bound outside it; empty means the node can be folded. */
  readonly free: ReadonlySet<number>;
  readonly field?: FieldPath;
  /** Present when the node is a test of one record group's fields (then fn is that test over the frame). */
  readonly group?: GroupPredicate;
}

const NO_SLOTS: ReadonlySet<number> = new Set();

export function constantNode(value: Value, type: CelT): Node {
  return { fn: () => value, type, constant: { value }, free: NO_SLOTS };
}

export function unionFree(nodes: readonly Node[]): ReadonlySet<number> {
  let out: Set<number> | undefined;
  for (const n of nodes) {
    if (n.free.size === 0) continue;
    out ??= new Set();
    for (const s of n.free) out.add(s);
  }
  return out ?? NO_SLOTS;
}

export function withoutSlots(free: ReadonlySet<number>, slots: readonly number[]): ReadonlySet<number> {
  if (!slots.some((s) => free.has(s))) return free;
  const out = new Set(free);
  for (const s of slots) out.delete(s);
  return out;
}
