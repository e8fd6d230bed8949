// An immutable table of string suffixes that finds, for a string, the values of every suffix it ends with: the index of `endsWith` filters.
//
// A record's string is read once from its end, hashing as it goes; at each length some stored suffix
// has, the hash so far is looked up in an open-addressing table and a hit is confirmed with
// String.prototype.endsWith. Two suffixes of one length cannot both end the same string, so each
// length yields at most one value. The cost is one pass over the last characters of the string and
// one probe per distinct suffix length, however many suffixes are stored.

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/** The hash of the last `length` characters of `s`, read from the end (FNV-1a over UTF-16 code units). */
function suffixHash(s: string, length: number): number {
  let h = FNV_OFFSET;
  for (let k = 0; k < length; k++) h = Math.imul(h ^ s.charCodeAt(s.length - 1 - k), FNV_PRIME);
  return h;
}

const slotOf = (h: number, mask: number): number => (h ^ (h >>> 15)) & mask;

export class SuffixTable<V> {
  private constructor(
    /** The distinct lengths of the suffixes, ascending. */
    private readonly lengths: Int32Array,
    /** Open addressing by hash: an entry's index plus one, 0 for an empty slot. */
    private readonly slots: Int32Array,
    private readonly hashes: Int32Array,
    private readonly suffixes: readonly string[],
    private readonly values: readonly V[],
  ) {}

  /** A table of (suffix, value) pairs; a later value for a suffix wins. */
  static of<V>(pairs: Iterable<readonly [string, V]>): SuffixTable<V> {
    const bySuffix = new Map<string, V>();
    for (const [suffix, value] of pairs) bySuffix.set(suffix, value);
    const suffixes = [...bySuffix.keys()];
    const values = [...bySuffix.values()];
    const hashes = Int32Array.from(suffixes, (s) => suffixHash(s, s.length));
    const lengths = Int32Array.from(new Set(suffixes.map((s) => s.length))).sort();
    // At most half full, so a probe meets an empty slot soon.
    let size = 2;
    while (size < 2 * suffixes.length) size *= 2;
    const slots = new Int32Array(size);
    for (let i = 0; i < suffixes.length; i++) {
      let s = slotOf(hashes[i] as number, size - 1);
      while (slots[s] !== 0) s = (s + 1) & (size - 1);
      slots[s] = i + 1;
    }
    return new SuffixTable(lengths, slots, hashes, suffixes, values);
  }

  get size(): number {
    return this.suffixes.length;
  }

  /**
   * Writes the value of each stored suffix that `text` ends with to `out[0..n)`, shortest suffix
   * first, and returns n. `out` is a reusable buffer: entries past n are stale.
   */
  collect(text: string, out: V[]): number {
    const { lengths, slots, hashes, suffixes } = this;
    const mask = slots.length - 1;
    const end = text.length;
    let count = 0;
    let h = FNV_OFFSET;
    let read = 0;
    for (let l = 0; l < lengths.length; l++) {
      const length = lengths[l] as number;
      if (length > end) break;
      for (; read < length; read++) h = Math.imul(h ^ text.charCodeAt(end - 1 - read), FNV_PRIME);
      for (let s = slotOf(h, mask), e = slots[s] as number; e !== 0; s = (s + 1) & mask, e = slots[s] as number) {
        const suffix = suffixes[e - 1] as string;
        if (hashes[e - 1] === h && suffix.length === length && text.endsWith(suffix)) {
          out[count++] = this.values[e - 1] as V;
          break;
        }
      }
    }
    return count;
  }
}
