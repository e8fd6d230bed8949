// One series' points at one resolution, packed: each point is a byte saying which counts it has (and
// whether it follows the point before by one period), its index as a delta from the one before when it
// does not, and those counts as unsigned varints (LEB128; delivered as its difference from matched, or
// nothing when it equals matched; the latency buckets as a bit set, or nothing when it is the point
// before's, and their counts), so a minute with a few hundred events costs about 11 bytes and a period
// without activity nothing (README.md "Memory"). Points are kept in time order; one period's reports
// from several workers add into one point.
import { Counters, LATENCY_BUCKETS } from './counters.js';

/** Error codes as small numbers: the delivery codes are a closed list, and a code from the topic is checked (history-record.ts). */
export class CodeTable {
  private readonly codes: string[] = [];
  private readonly index = new Map<string, number>();
  static readonly MAX = 256;

  indexOf(code: string): number {
    let i = this.index.get(code);
    if (i === undefined) {
      // Past the bound (never with the service's own codes) a code is kept as the last one seen in its place.
      i = this.codes.length < CodeTable.MAX ? this.codes.length : CodeTable.MAX - 1;
      if (this.codes.length < CodeTable.MAX) {
        this.codes.push(code);
        this.index.set(code, i);
      }
    }
    return i;
  }

  codeOf(i: number): string {
    return this.codes[i] ?? 'UNKNOWN';
  }
}

const HAS_MATCHED = 1;
const HAS_DELIVERED = 2;
/** With HAS_DELIVERED: delivered equals matched, so only the bytes are written. */
const DELIVERED_AS_MATCHED = 4;
const HAS_LATENCY = 8;
/** With HAS_LATENCY: the buckets with counts are the point before's, so their bit set is not written. */
const SAME_LATENCY_SET = 16;
const HAS_FAILURES = 32;
/** A second byte follows, saying which of the rarer counts do (OTHER_*). */
const HAS_OTHERS = 64;
/** The point follows the one before it by one period: its delta is not written. */
const NEXT_PERIOD = 128;
const OTHER_PARKED = 1;
const OTHER_REDRIVEN = 2;
const OTHER_DEAD = 4;

export class PointLog {
  private bytes = new Uint8Array(0);
  private used = 0;
  /** The index of the first and last points; -1 when empty. */
  private firstIndex = -1;
  private lastIndex = -1;
  /** Where the last point begins, and the index of the point before it (its delta's base). */
  private lastAt = 0;
  private lastBase = 0;
  /** The latency bit sets of the last point and of the point before it (0: none, or no point). */
  private lastSet = 0;
  private baseSet = 0;

  constructor(private readonly codes: CodeTable) {}

  get byteLength(): number {
    return this.bytes.byteLength;
  }

  get isEmpty(): boolean {
    return this.firstIndex < 0;
  }

  /** Adds `c` into the point of period `index` (made when missing). */
  add(index: number, c: Counters): void {
    if (this.lastIndex < 0 || index > this.lastIndex) {
      const base = this.lastIndex < 0 ? 0 : this.lastIndex;
      this.lastAt = this.used;
      this.lastBase = base;
      this.baseSet = this.lastSet;
      this.lastSet = this.write(index - base, c, this.baseSet);
      if (this.firstIndex < 0) this.firstIndex = index;
      this.lastIndex = index;
      return;
    }
    if (index === this.lastIndex) {
      const merged = this.decodeAt(this.lastAt, this.baseSet).counters;
      merged.add(c);
      this.used = this.lastAt;
      this.lastSet = this.write(index - this.lastBase, merged, this.baseSet);
      return;
    }
    // A late report of an earlier period (a worker that could not publish for a while): rare, so rebuilt.
    const points = [...this.points()];
    const at = points.findIndex(([i]) => i >= index);
    if (at >= 0 && points[at]?.[0] === index) points[at]?.[1].add(c);
    else points.splice(at < 0 ? points.length : at, 0, [index, c]);
    this.rebuild(points);
  }

  /** The points in time order, each as a fresh Counters. */
  *points(fromIndex = Number.NEGATIVE_INFINITY, toIndex = Number.POSITIVE_INFINITY): Generator<[number, Counters]> {
    let at = 0;
    let index = 0;
    let set = 0;
    while (at < this.used) {
      const { delta, counters, next, latencySet } = this.decodeAt(at, set);
      index += delta;
      at = next;
      set = latencySet;
      if (index >= toIndex) return;
      if (index >= fromIndex) yield [index, counters];
    }
  }

  /** Drops the points before period `index`; the rest are copied into a buffer of their own size. */
  dropBefore(index: number): void {
    if (this.firstIndex < 0 || this.firstIndex >= index) return;
    if (this.lastIndex < index) {
      this.bytes = new Uint8Array(0);
      this.used = 0;
      this.firstIndex = this.lastIndex = -1;
      this.lastSet = this.baseSet = 0;
      return;
    }
    let at = 0;
    let i = 0;
    let set = 0;
    for (;;) {
      const { delta, next, latencySet } = this.decodeAt(at, set);
      if (i + delta >= index) break;
      i += delta;
      at = next;
      set = latencySet;
    }
    // The first point kept is written again on its own: its index in full, its bit set with nothing before it.
    const first = this.decodeAt(at, set);
    const rest = this.bytes.subarray(first.next, this.used);
    const old = { lastAt: this.lastAt, lastBase: this.lastBase, restAt: first.next };
    this.bytes = new Uint8Array(0);
    this.used = 0;
    const firstIndex = i + first.delta;
    this.write(firstIndex, first.counters, 0);
    const shift = this.used - old.restAt;
    this.ensure(rest.length);
    this.bytes.set(rest, this.used);
    this.used += rest.length;
    this.firstIndex = firstIndex;
    if (old.lastAt === at) {
      this.lastAt = 0;
      this.lastBase = 0;
      this.baseSet = 0;
    } else this.lastAt = old.lastAt + shift;
    this.trim();
  }

  /** Gives back the room grown ahead of use. */
  trim(): void {
    if (this.bytes.byteLength > this.used) this.bytes = this.bytes.slice(0, this.used);
  }

  private rebuild(points: ReadonlyArray<readonly [number, Counters]>): void {
    this.bytes = new Uint8Array(0);
    this.used = 0;
    this.firstIndex = this.lastIndex = -1;
    this.lastSet = this.baseSet = 0;
    for (const [index, c] of points) this.add(index, c);
  }

  /** Writes a point after one whose latency bit set was `baseSet`; returns its own bit set. */
  private write(delta: number, c: Counters, baseSet: number): number {
    const failures = [...c.failures];
    let latencyBuckets = 0;
    let set = 0;
    c.latency.forEach((n, i) => {
      if (n > 0) {
        latencyBuckets++;
        set += 2 ** i;
      }
    });
    // A varint is at most 8 bytes for a safe integer; the masks two.
    this.ensure(8 * (10 + 2 * failures.length + latencyBuckets));
    const hasDelivered = c.delivered > 0 || c.deliveredBytes > 0;
    const others = (c.parked > 0 ? OTHER_PARKED : 0) | (c.redriven > 0 ? OTHER_REDRIVEN : 0) | (c.deadLettered > 0 ? OTHER_DEAD : 0);
    const mask =
      (delta === 1 ? NEXT_PERIOD : 0) |
      (c.matched > 0 ? HAS_MATCHED : 0) |
      (hasDelivered ? HAS_DELIVERED : 0) |
      (hasDelivered && c.delivered === c.matched ? DELIVERED_AS_MATCHED : 0) |
      (set > 0 ? HAS_LATENCY : 0) |
      (set > 0 && set === baseSet ? SAME_LATENCY_SET : 0) |
      (failures.length > 0 ? HAS_FAILURES : 0) |
      (others > 0 ? HAS_OTHERS : 0);
    this.bytes[this.used++] = mask;
    if (!(mask & NEXT_PERIOD)) this.varint(delta);
    if (mask & HAS_OTHERS) this.bytes[this.used++] = others;
    if (mask & HAS_MATCHED) this.varint(c.matched);
    if (mask & HAS_DELIVERED) {
      // Most minutes deliver about what they matched: the difference is small, so its varint is short.
      if (!(mask & DELIVERED_AS_MATCHED)) this.varint(zigzag(c.delivered - c.matched));
      this.varint(c.deliveredBytes);
    }
    if (others & OTHER_PARKED) this.varint(c.parked);
    if (others & OTHER_REDRIVEN) this.varint(c.redriven);
    if (others & OTHER_DEAD) this.varint(c.deadLettered);
    if (mask & HAS_FAILURES) {
      this.varint(failures.length);
      for (const [code, n] of failures) {
        this.varint(this.codes.indexOf(code));
        this.varint(n);
      }
    }
    if (mask & HAS_LATENCY) {
      // Which buckets have counts, as a bit set (two bytes for latencies up to 10 s) unless the point
      // before had the same, then their counts.
      if (!(mask & SAME_LATENCY_SET)) this.varint(set);
      for (const n of c.latency) if (n > 0) this.varint(n);
    }
    return set;
  }

  /** Reads the point at `start`, after one whose latency bit set was `baseSet`. */
  private decodeAt(start: number, baseSet: number): { delta: number; counters: Counters; next: number; latencySet: number } {
    let at = start;
    const byte = (): number => {
      // Past the written bytes a varint would read zeros for ever: a point cut short is a bug, said at once.
      if (at >= this.used) throw new RangeError(`a point log ends inside a point (at byte ${at} of ${this.used})`);
      return this.bytes[at++] as number;
    };
    const read = (): number => {
      let value = 0;
      let scale = 1;
      for (;;) {
        const b = byte();
        value += (b & 0x7f) * scale;
        if (b < 0x80) return value;
        scale *= 128;
      }
    };
    const mask = byte();
    const delta = mask & NEXT_PERIOD ? 1 : read();
    const others = mask & HAS_OTHERS ? byte() : 0;
    const c = new Counters();
    if (mask & HAS_MATCHED) c.matched = read();
    if (mask & HAS_DELIVERED) {
      c.delivered = mask & DELIVERED_AS_MATCHED ? c.matched : c.matched + unzigzag(read());
      c.deliveredBytes = read();
    }
    if (others & OTHER_PARKED) c.parked = read();
    if (others & OTHER_REDRIVEN) c.redriven = read();
    if (others & OTHER_DEAD) c.deadLettered = read();
    if (mask & HAS_FAILURES) {
      for (let n = read(); n > 0; n--) {
        const code = this.codes.codeOf(read());
        c.fail(code, read());
      }
    }
    let set = 0;
    if (mask & HAS_LATENCY) {
      set = mask & SAME_LATENCY_SET ? baseSet : read();
      for (let i = 0; i < LATENCY_BUCKETS; i++) if (Math.floor(set / 2 ** i) % 2 === 1) c.latency[i] = read();
    }
    return { delta, counters: c, next: at, latencySet: set };
  }

  private varint(value: number): void {
    if (value < 0 || !Number.isSafeInteger(value)) throw new RangeError(`a point log holds counts from 0 to 2^53, not ${value}`);
    let v = value;
    while (v >= 0x80) {
      this.bytes[this.used++] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    this.bytes[this.used++] = v;
  }

  private ensure(more: number): void {
    if (this.used + more <= this.bytes.byteLength) return;
    // Grown by a quarter, so a series that keeps growing wastes little ahead of its use.
    const next = new Uint8Array(Math.max(this.used + more, Math.ceil(this.bytes.byteLength * 1.25), 32));
    next.set(this.bytes.subarray(0, this.used));
    this.bytes = next;
  }
}

/** A signed difference as an unsigned varint's value: 0, -1, 1, -2, ... as 0, 1, 2, 3, ... */
function zigzag(n: number): number {
  return n >= 0 ? 2 * n : -2 * n - 1;
}

function unzigzag(v: number): number {
  return v % 2 === 0 ? v / 2 : -(v + 1) / 2;
}
