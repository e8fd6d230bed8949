// Immutable indexes of CIDR ranges (IPv4 and IPv6 kept apart) that find every value whose range contains an address.
import { ipBit, parseIPWords, parseIPv4Word, type CIDR, type IPAddr } from './ip.js';

interface TrieNode<V> {
  readonly zero: TrieNode<V> | null;
  readonly one: TrieNode<V> | null;
  /** The value stored at exactly this prefix, if any. */
  readonly value: V | undefined;
}

const node = <V>(zero: TrieNode<V> | null, one: TrieNode<V> | null, value: V | undefined): TrieNode<V> | null =>
  zero === null && one === null && value === undefined ? null : { zero, one, value };

/** Rebuilds the path to the prefix of `cidr` with `value` there, sharing every other node; empty branches are pruned. */
function updated<V>(n: TrieNode<V> | null, cidr: CIDR, depth: number, value: V | undefined): TrieNode<V> | null {
  if (depth === cidr.bits) return node(n?.zero ?? null, n?.one ?? null, value);
  if (ipBit(cidr.ip, depth) === 0) return node(updated(n?.zero ?? null, cidr, depth + 1, value), n?.one ?? null, n?.value);
  return node(n?.zero ?? null, updated(n?.one ?? null, cidr, depth + 1, value), n?.value);
}

/** The IPv4 prefixes of one length: the top `bits` bits of the address (as a small integer) to the value stored there. */
interface V4Level<V> {
  readonly bits: number;
  readonly byPrefix: ReadonlyMap<number, V>;
}

/** The key of an IPv4 word (unsigned) for prefixes of `bits` bits: a small integer, which V8 hashes fastest. */
const v4Key = (word: number, bits: number): number => (bits === 0 ? 0 : (word >>> (32 - bits)) | 0);

const byBits = (a: V4Level<unknown>, b: V4Level<unknown>): number => a.bits - b.bits;

/** Bits of an IPv4 address that pick its entry in a PrefixMap's table of prefix lengths. */
const BLOCK_BITS = 16;

/** Where a parsed address is written: the words of IPAddr, reused by every lookup. */
const parsed = new Int32Array(4);

/**
 * One value per prefix. Containment ignores host bits (netip.Prefix.Contains masks the prefix), so
 * "10.1.2.3/8" names the same prefix as "10.0.0.0/8".
 *
 * IPv4 prefixes are kept in one hash map per prefix length in use, so a lookup costs at most one map
 * probe per distinct length instead of a walk of up to 32 nodes, and finds the value itself. A table
 * by the address's top 16 bits (made on the first lookup) lists the lengths that have a prefix
 * covering that /16, so an address outside every stored range costs one array read and no probe.
 * IPv6 prefixes are kept in a binary trie: a lookup walks at most 128 nodes.
 *
 * It never changes: set() returns a new map that shares all but the touched length's map (IPv4) or
 * path (IPv6) with this one, so readers holding the old one are never disturbed by an update.
 */
export class PrefixMap<V> {
  /** The IPv4 levels by prefix length (0-32). */
  private readonly v4ByBits: (ReadonlyMap<number, V> | undefined)[];
  /** Per /16 block, bit L - 1 set when a prefix of length L (1-32) covers some of it; made on the first lookup. */
  private v4Lengths: Int32Array | undefined;

  private constructor(
    /** Ascending by prefix length. */
    private readonly v4: readonly V4Level<V>[],
    private readonly v6: TrieNode<V> | null,
  ) {
    this.v4ByBits = new Array<ReadonlyMap<number, V> | undefined>(33).fill(undefined);
    for (const l of v4) this.v4ByBits[l.bits] = l.byPrefix;
  }

  static empty<V>(): PrefixMap<V> {
    return new PrefixMap<V>([], null);
  }

  /** A map of many (range, value) pairs at once (a later value for a prefix wins): no map is copied. */
  static of<V>(pairs: Iterable<readonly [CIDR, V]>): PrefixMap<V> {
    const v4 = new Map<number, Map<number, V>>();
    let v6: TrieNode<V> | null = null;
    for (const [cidr, value] of pairs) {
      if (cidr.ip.family === 6) {
        v6 = updated(v6, cidr, 0, value);
        continue;
      }
      let byPrefix = v4.get(cidr.bits);
      if (byPrefix === undefined) v4.set(cidr.bits, (byPrefix = new Map()));
      byPrefix.set(v4Key(cidr.ip.w0 >>> 0, cidr.bits), value);
    }
    return new PrefixMap([...v4].map(([bits, byPrefix]): V4Level<V> => ({ bits, byPrefix })).sort(byBits), v6);
  }

  /** The value at exactly the prefix of `cidr` (host bits ignored). */
  get(cidr: CIDR): V | undefined {
    if (cidr.ip.family === 4) return this.v4.find((l) => l.bits === cidr.bits)?.byPrefix.get(v4Key(cidr.ip.w0 >>> 0, cidr.bits));
    let n: TrieNode<V> | null = this.v6;
    for (let i = 0; n !== null && i < cidr.bits; i++) n = ipBit(cidr.ip, i) === 0 ? n.zero : n.one;
    return n?.value;
  }

  /** A map with `value` at `cidr`'s prefix, or with nothing there when `value` is undefined. */
  set(cidr: CIDR, value: V | undefined): PrefixMap<V> {
    return this.setAll([[cidr, value]]);
  }

  /** set() of several prefixes in turn, copying each touched IPv4 length's map once. */
  setAll(changes: Iterable<readonly [CIDR, V | undefined]>): PrefixMap<V> {
    let v6 = this.v6;
    const touched = new Map<number, Map<number, V>>();
    for (const [cidr, value] of changes) {
      if (cidr.ip.family === 6) {
        v6 = updated(v6, cidr, 0, value);
        continue;
      }
      let byPrefix = touched.get(cidr.bits);
      if (byPrefix === undefined) touched.set(cidr.bits, (byPrefix = new Map(this.v4.find((l) => l.bits === cidr.bits)?.byPrefix)));
      const key = v4Key(cidr.ip.w0 >>> 0, cidr.bits);
      if (value === undefined) byPrefix.delete(key);
      else byPrefix.set(key, value);
    }
    if (touched.size === 0) return new PrefixMap(this.v4, v6);
    const levels = this.v4.filter((l) => !touched.has(l.bits));
    for (const [bits, byPrefix] of touched) if (byPrefix.size > 0) levels.push({ bits, byPrefix });
    return new PrefixMap(levels.sort(byBits), v6);
  }

  /**
   * Writes the value of each prefix that contains `ip` to `out[0..n)`, shortest prefix first, and
   * returns n. `out` is a reusable buffer: entries past n are stale, and nothing is allocated.
   */
  collect(ip: IPAddr, out: V[]): number {
    if (ip.family === 4) return this.collectWord(ip.w0 >>> 0, out);
    let n: TrieNode<V> | null = this.v6;
    let count = 0;
    for (let i = 0; n !== null; i++) {
      if (n.value !== undefined) out[count++] = n.value;
      if (i === 128) break;
      n = ipBit(ip, i) === 0 ? n.zero : n.one;
    }
    return count;
  }

  /**
   * collect() for the address in `text`, parsed on the fly without allocating (as parseIP parses
   * it); 0 when `text` is no address.
   */
  collectText(text: string, out: V[]): number {
    const w = parseIPv4Word(text);
    if (w >= 0) return this.collectWord(w, out);
    const family = parseIPWords(text, 0, text.length, parsed);
    if (family === 4) return this.collectWord((parsed[0] as number) >>> 0, out);
    return family === 6 ? this.collectV6(parsed, out) : 0;
  }

  private collectWord(w: number, out: V[]): number {
    let count = 0;
    const all = this.v4ByBits[0]?.get(0);
    if (all !== undefined) out[count++] = all;
    // The lengths with a prefix over this /16, shortest first: the lowest bit set is the shortest.
    let lengths = (this.v4Lengths ??= this.lengthTable())[w >>> (32 - BLOCK_BITS)] as number;
    while (lengths !== 0) {
      const lowest = lengths & -lengths;
      const bits = 32 - Math.clz32(lowest);
      lengths ^= lowest;
      const value = (this.v4ByBits[bits] as ReadonlyMap<number, V>).get(v4Key(w, bits));
      if (value !== undefined) out[count++] = value;
    }
    return count;
  }

  private lengthTable(): Int32Array {
    const table = new Int32Array(1 << BLOCK_BITS);
    for (const { bits, byPrefix } of this.v4) {
      if (bits === 0) continue;
      const bit = 1 << (bits - 1);
      for (const key of byPrefix.keys()) {
        if (bits >= BLOCK_BITS) {
          const block = (key >>> 0) >>> (bits - BLOCK_BITS);
          table[block] = (table[block] as number) | bit;
        } else {
          // A prefix shorter than a block covers 2^(16 - bits) blocks.
          const first = (key >>> 0) << (BLOCK_BITS - bits);
          for (let b = first; b < first + (1 << (BLOCK_BITS - bits)); b++) table[b] = (table[b] as number) | bit;
        }
      }
    }
    return table;
  }

  /** The IPv6 walk of collect(), over the four words of an address. */
  private collectV6(words: Int32Array, out: V[]): number {
    let n: TrieNode<V> | null = this.v6;
    let count = 0;
    for (let i = 0; n !== null; i++) {
      if (n.value !== undefined) out[count++] = n.value;
      if (i === 128) break;
      n = (((words[i >>> 5] as number) >>> (31 - (i & 31))) & 1) === 0 ? n.zero : n.one;
    }
    return count;
  }
}

const NONE: readonly never[] = Object.freeze([]);

/** A list of values per prefix, on a PrefixMap: the values whose range contains an address, all of them. */
export class CidrTrie<T> {
  private constructor(
    private readonly map: PrefixMap<readonly T[]>,
    /** The number of (range, value) pairs held. */
    readonly size: number,
  ) {}

  static empty<T>(): CidrTrie<T> {
    return new CidrTrie<T>(PrefixMap.empty(), 0);
  }

  /** A trie of many (range, value) pairs at once, values at one prefix in their order. */
  static of<T>(pairs: Iterable<readonly [CIDR, T]>): CidrTrie<T> {
    const lists = new Map<string, { cidr: CIDR; values: T[] }>();
    let size = 0;
    for (const [cidr, value] of pairs) {
      size++;
      const key = prefixText(cidr);
      const at = lists.get(key);
      if (at === undefined) lists.set(key, { cidr, values: [value] });
      else at.values.push(value);
    }
    return new CidrTrie(PrefixMap.of([...lists.values()].map(({ cidr, values }) => [cidr, values] as const)), size);
  }

  /**
   * A trie that also holds `value` at `cidr`. Values at one prefix keep the order of `compare`
   * when given (equal ones in insertion order), else insertion order.
   */
  with(cidr: CIDR, value: T, compare?: (a: T, b: T) => number): CidrTrie<T> {
    const list = this.at(cidr);
    let at = list.length;
    if (compare !== undefined) while (at > 0 && compare(list[at - 1] as T, value) > 0) at--;
    return new CidrTrie(this.map.set(cidr, [...list.slice(0, at), value, ...list.slice(at)]), this.size + 1);
  }

  /** A trie without one occurrence of `value` at `cidr`'s prefix; this trie when it is not there. */
  without(cidr: CIDR, value: T): CidrTrie<T> {
    const list = this.at(cidr);
    const at = list.indexOf(value);
    if (at < 0) return this;
    const rest = list.length === 1 ? undefined : [...list.slice(0, at), ...list.slice(at + 1)];
    return new CidrTrie(this.map.set(cidr, rest), this.size - 1);
  }

  /** The values stored at exactly the prefix of `cidr` (host bits ignored), in their stored order. */
  at(cidr: CIDR): readonly T[] {
    return this.map.get(cidr) ?? NONE;
  }

  /** Every value whose range contains `ip`, shortest prefix first. */
  match(ip: IPAddr): T[] {
    const lists: (readonly T[])[] = [];
    const n = this.collect(ip, lists);
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(...(lists[i] as readonly T[]));
    return out;
  }

  /** The value list of each prefix that contains `ip`, as PrefixMap.collect writes them. */
  collect(ip: IPAddr, out: (readonly T[])[]): number {
    return this.map.collect(ip, out);
  }

  /** collect() for the address in `text`, parsed on the fly; 0 when `text` is no address. */
  collectText(text: string, out: (readonly T[])[]): number {
    return this.map.collectText(text, out);
  }
}

/** A text naming the prefix of a range: its family, length and the bits above the length. */
export function prefixText(c: CIDR): string {
  const words = [c.ip.w0, c.ip.w1, c.ip.w2, c.ip.w3];
  const kept: number[] = [];
  for (let i = 0; i < 4; i++) {
    const keep = Math.max(0, Math.min(32, c.bits - 32 * i));
    kept.push(keep === 0 ? 0 : ((words[i] as number) >>> (32 - keep)) << (32 - keep));
  }
  return `${c.ip.family}/${c.bits}/${kept.join('.')}`;
}
