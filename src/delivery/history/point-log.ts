// One series' points at one resolution, packed: each point is its period's index as a delta from the one
// before, a byte saying which counts it has, and those counts as unsigned varints (LEB128), so a minute
// with a few hundred events costs about 12 to 20 bytes and a period without activity nothing (README.md
// "Memory"). Points are kept in time order; one period's reports from several workers add into one point.
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
const HAS_PARKED = 4;
const HAS_REDRIVEN = 8;
const HAS_DEAD = 16;
const HAS_FAILURES = 32;
const HAS_LATENCY = 64;

export class PointLog {
  private bytes = new Uint8Array(0);
  private used = 0;
  /** The index of the first and last points; -1 when empty. */
  private firstIndex = -1;
  private lastIndex = -1;
  /** Where the last point begins, and the index of the point before it (its delta's base). */
  private lastAt = 0;
  private lastBase = 0;

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
      this.write(index - base, c);
      if (this.firstIndex < 0) this.firstIndex = index;
      this.lastIndex = index;
      return;
    }
    if (index === this.lastIndex) {
      const merged = this.decodeAt(this.lastAt).counters;
      merged.add(c);
      this.used = this.lastAt;
      this.write(index - this.lastBase, merged);
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
    while (at < this.used) {
      const { delta, counters, next } = this.decodeAt(at);
      index += delta;
      at = next;
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
      return;
    }
    let at = 0;
    let i = 0;
    for (;;) {
      const { delta, next } = this.decodeAt(at);
      if (i + delta >= index) break;
      i += delta;
      at = next;
    }
    const first = this.decodeAt(at);
    const rest = this.bytes.subarray(first.next, this.used);
    const old = { lastAt: this.lastAt, lastBase: this.lastBase, restAt: first.next };
    this.bytes = new Uint8Array(0);
    this.used = 0;
    const firstIndex = i + first.delta;
    this.write(firstIndex, first.counters);
    const shift = this.used - old.restAt;
    this.ensure(rest.length);
    this.bytes.set(rest, this.used);
    this.used += rest.length;
    this.firstIndex = firstIndex;
    if (old.lastAt === at) {
      this.lastAt = 0;
      this.lastBase = 0;
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
    for (const [index, c] of points) this.add(index, c);
  }

  private write(delta: number, c: Counters): void {
    const failures = [...c.failures];
    let latencyBuckets = 0;
    for (const n of c.latency) if (n > 0) latencyBuckets++;
    // A varint is at most 8 bytes for a safe integer; the mask one.
    this.ensure(8 * (9 + 2 * failures.length + 2 * latencyBuckets));
    this.varint(delta);
    const mask =
      (c.matched > 0 ? HAS_MATCHED : 0) |
      (c.delivered > 0 || c.deliveredBytes > 0 ? HAS_DELIVERED : 0) |
      (c.parked > 0 ? HAS_PARKED : 0) |
      (c.redriven > 0 ? HAS_REDRIVEN : 0) |
      (c.deadLettered > 0 ? HAS_DEAD : 0) |
      (failures.length > 0 ? HAS_FAILURES : 0) |
      (latencyBuckets > 0 ? HAS_LATENCY : 0);
    this.bytes[this.used++] = mask;
    if (mask & HAS_MATCHED) this.varint(c.matched);
    if (mask & HAS_DELIVERED) {
      this.varint(c.delivered);
      this.varint(c.deliveredBytes);
    }
    if (mask & HAS_PARKED) this.varint(c.parked);
    if (mask & HAS_REDRIVEN) this.varint(c.redriven);
    if (mask & HAS_DEAD) this.varint(c.deadLettered);
    if (mask & HAS_FAILURES) {
      this.varint(failures.length);
      for (const [code, n] of failures) {
        this.varint(this.codes.indexOf(code));
        this.varint(n);
      }
    }
    if (mask & HAS_LATENCY) {
      this.varint(latencyBuckets);
      c.latency.forEach((n, i) => {
        if (n === 0) return;
        this.varint(i);
        this.varint(n);
      });
    }
  }

  private decodeAt(start: number): { delta: number; counters: Counters; next: number } {
    let at = start;
    const read = (): number => {
      let value = 0;
      let scale = 1;
      for (;;) {
        const b = this.bytes[at++] as number;
        value += (b & 0x7f) * scale;
        if (b < 0x80) return value;
        scale *= 128;
      }
    };
    const delta = read();
    const mask = this.bytes[at++] as number;
    const c = new Counters();
    if (mask & HAS_MATCHED) c.matched = read();
    if (mask & HAS_DELIVERED) {
      c.delivered = read();
      c.deliveredBytes = read();
    }
    if (mask & HAS_PARKED) c.parked = read();
    if (mask & HAS_REDRIVEN) c.redriven = read();
    if (mask & HAS_DEAD) c.deadLettered = read();
    if (mask & HAS_FAILURES) {
      for (let n = read(); n > 0; n--) {
        const code = this.codes.codeOf(read());
        c.fail(code, read());
      }
    }
    if (mask & HAS_LATENCY) {
      for (let n = read(); n > 0; n--) {
        const bucket = Math.min(read(), LATENCY_BUCKETS - 1);
        c.latency[bucket] = (c.latency[bucket] as number) + read();
      }
    }
    return { delta, counters: c, next: at };
  }

  private varint(value: number): void {
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
