// An immutable binary prefix trie over CIDR ranges (IPv4 and IPv6 kept apart) that finds every value whose range contains an address.
import { ipBit, parseIPv4Word, type CIDR, type IPAddr } from './ip.js';

interface TrieNode<T> {
  readonly zero: TrieNode<T> | null;
  readonly one: TrieNode<T> | null;
  /** Values stored at exactly this prefix; null while there are none. */
  readonly values: readonly T[] | null;
}

const node = <T>(zero: TrieNode<T> | null, one: TrieNode<T> | null, values: readonly T[] | null): TrieNode<T> | null =>
  zero === null && one === null && values === null ? null : { zero, one, values };

/**
 * Rebuilds the path to the prefix of `cidr` with `update` applied to the values there, sharing every
 * other node with the old trie; empty branches are pruned.
 */
function updated<T>(
  n: TrieNode<T> | null,
  cidr: CIDR,
  depth: number,
  update: (values: readonly T[] | null) => readonly T[] | null,
): TrieNode<T> | null {
  if (depth === cidr.bits) return node(n?.zero ?? null, n?.one ?? null, update(n?.values ?? null));
  if (ipBit(cidr.ip, depth) === 0) return node(updated(n?.zero ?? null, cidr, depth + 1, update), n?.one ?? null, n?.values ?? null);
  return node(n?.zero ?? null, updated(n?.one ?? null, cidr, depth + 1, update), n?.values ?? null);
}

/**
 * Containment ignores host bits (netip.Prefix.Contains masks the prefix), so "10.1.2.3/8" is stored
 * at the same node as "10.0.0.0/8". A lookup walks at most 32 (IPv4) or 128 (IPv6) nodes.
 *
 * The trie never changes: with() and without() return a new trie that shares all but one path with
 * this one, so readers holding the old trie are never disturbed by an update.
 */
export class CidrTrie<T> {
  private constructor(
    private readonly v4: TrieNode<T> | null,
    private readonly v6: TrieNode<T> | null,
    /** The number of (range, value) pairs held. */
    readonly size: number,
  ) {}

  static empty<T>(): CidrTrie<T> {
    return new CidrTrie<T>(null, null, 0);
  }

  /**
   * A trie that also holds `value` at `cidr`. Values at one prefix keep the order of `compare`
   * when given (equal ones in insertion order), else insertion order.
   */
  with(cidr: CIDR, value: T, compare?: (a: T, b: T) => number): CidrTrie<T> {
    const add = (values: readonly T[] | null): readonly T[] => {
      const list = values ?? [];
      let at = list.length;
      if (compare !== undefined) while (at > 0 && compare(list[at - 1] as T, value) > 0) at--;
      return [...list.slice(0, at), value, ...list.slice(at)];
    };
    return cidr.ip.family === 4
      ? new CidrTrie(updated(this.v4, cidr, 0, add), this.v6, this.size + 1)
      : new CidrTrie(this.v4, updated(this.v6, cidr, 0, add), this.size + 1);
  }

  /** A trie without one occurrence of `value` at `cidr`'s prefix; this trie when it is not there. */
  without(cidr: CIDR, value: T): CidrTrie<T> {
    let found = false;
    const drop = (values: readonly T[] | null): readonly T[] | null => {
      const at = values?.indexOf(value) ?? -1;
      if (values === null || at < 0) return values;
      found = true;
      return values.length === 1 ? null : [...values.slice(0, at), ...values.slice(at + 1)];
    };
    const v4 = cidr.ip.family === 4 ? updated(this.v4, cidr, 0, drop) : this.v4;
    const v6 = cidr.ip.family === 6 ? updated(this.v6, cidr, 0, drop) : this.v6;
    return found ? new CidrTrie(v4, v6, this.size - 1) : this;
  }

  /** Every value whose range contains `ip`, shortest prefix first. */
  match(ip: IPAddr): T[] {
    const lists: (readonly T[])[] = [];
    const n = this.collect(ip, lists);
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(...(lists[i] as readonly T[]));
    return out;
  }

  /**
   * Writes the value list of each node on the path of `ip` to `out[0..n)`, shortest prefix first,
   * and returns n. `out` is a reusable buffer: entries past n are stale, and nothing is allocated.
   */
  collect(ip: IPAddr, out: (readonly T[])[]): number {
    let n: TrieNode<T> | null = ip.family === 4 ? this.v4 : this.v6;
    const depth = ip.family === 4 ? 32 : 128;
    let count = 0;
    for (let i = 0; n !== null; i++) {
      if (n.values !== null) out[count++] = n.values;
      if (i === depth) break;
      n = ipBit(ip, i) === 0 ? n.zero : n.one;
    }
    return count;
  }

  /** collect() for IPv4 text, parsed on the fly; -1 when `text` is no IPv4 address. */
  collectV4(text: string, out: (readonly T[])[]): number {
    const w = parseIPv4Word(text);
    if (w < 0) return -1;
    let n: TrieNode<T> | null = this.v4;
    let count = 0;
    for (let i = 31; n !== null; i--) {
      if (n.values !== null) out[count++] = n.values;
      if (i < 0) break;
      n = ((w >>> i) & 1) === 0 ? n.zero : n.one;
    }
    return count;
  }
}
