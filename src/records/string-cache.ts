// The strings of the filterable fields, made once for values that repeat: a record's server name or
// address is most often one seen shortly before (bench/results/PROFILE.md, "The route's floor").
//
// Making a string of a buffer's bytes is a call into the runtime, about as costly as hashing and
// comparing the few bytes of a short value; and a string made anew must hash itself again when the
// matcher looks it up, where the string kept here has its hash already. The cache is a table per field of
// recent strings by the hash of their bytes, the newest in each slot: no eviction to run, a bounded size.
import { isUtf8 } from 'node:buffer';
import { DecodeError } from './errors.js';
import { latin1Text } from './latin1-text.js';

type Slices = { latin1Slice(start: number, end: number): string; utf8Slice(start: number, end: number): string };

const SLOTS = 4096;
/** Longer values are rarely repeated names or addresses: they are made without the cache. */
const LONGEST = 64;

/** The table of one field: values of different fields (server names, client addresses) do not push each other out. */
export type StringCache = (string | undefined)[];

export const newStringCache = (): StringCache => new Array<string | undefined>(SLOTS).fill(undefined);

/**
 * The string of bytes [a, b) of `buf`, refusing invalid UTF-8 (DecodeError `invalid_utf8` naming
 * `path`); an ASCII value seen shortly before in `table` comes back as the very string made then.
 */
export function cachedString(buf: Buffer, a: number, b: number, path: string, table: StringCache): string {
  const n = b - a;
  let any = 0;
  let h = n;
  for (let i = a; i < b; i++) {
    const c = buf[i] as number;
    any |= c;
    h = Math.imul(h ^ c, 0x01000193);
  }
  if (any >= 0x80) {
    if (!isUtf8(buf.subarray(a, b))) throw new DecodeError('invalid_utf8', `${path} is not valid UTF-8.`);
    return (buf as unknown as Slices).utf8Slice(a, b);
  }
  if (n > LONGEST) return (buf as unknown as Slices).latin1Slice(a, b);
  const slot = (h ^ (h >>> 15)) & (SLOTS - 1);
  const seen = table[slot];
  if (seen !== undefined && seen.length === n) {
    let i = 0;
    while (i < n && seen.charCodeAt(i) === buf[a + i]) i++;
    if (i === n) return seen;
  }
  // An ASCII byte range is the same text in Latin-1.
  const made = latin1Text(buf, a, b);
  table[slot] = made;
  return made;
}
