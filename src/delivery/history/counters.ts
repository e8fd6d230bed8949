// One period's delivery counts for one series (a subscription and destination, or a destination), and the
// latency histogram they carry: fixed buckets, so workers' periods and a period's subscriptions add up by
// adding counts (src/delivery/history/README.md).

/**
 * Upper bounds (ms) of the latency buckets, a 1-2-5 ladder from 1 ms to 5,000 s, and one bucket above it:
 * a quantile is answered as its bucket's upper bound, so within a factor of 2.5 of the true value.
 */
export const LATENCY_BOUNDS_MS: readonly number[] = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000, 2_000_000, 5_000_000,
];
/** The ladder's buckets and the one above its last bound. */
export const LATENCY_BUCKETS = LATENCY_BOUNDS_MS.length + 1;

/** The bucket of a latency: the first whose upper bound it does not pass. */
export function latencyBucket(ms: number): number {
  let lo = 0;
  let hi = LATENCY_BOUNDS_MS.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ms <= (LATENCY_BOUNDS_MS[mid] as number)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

const NO_FAILURES: ReadonlyMap<string, number> = new Map();

export class Counters {
  /** Events queued for the destination from consumed records (matched by the subscription). */
  matched = 0;
  /** Events the destination acknowledged, and their bytes (the envelopes as delivered). */
  delivered = 0;
  deliveredBytes = 0;
  /** Events parked in the destination's retry topic. */
  parked = 0;
  /** Parked events handed back to the destination's runner by its re-driver. */
  redriven = 0;
  /** Events dead-lettered (refused for good). */
  deadLettered = 0;
  /**
   * Failed attempts of events, by delivery error code: an event failing three attempts counts three. Made
   * at the first failure: most periods of most series have none, and a worker holds a Counters per active series.
   */
  private failed: Map<string, number> | undefined;
  /** Delivered events by latency bucket (record time to acknowledgement). */
  readonly latency = new Array<number>(LATENCY_BUCKETS).fill(0);

  add(other: Counters): void {
    this.matched += other.matched;
    this.delivered += other.delivered;
    this.deliveredBytes += other.deliveredBytes;
    this.parked += other.parked;
    this.redriven += other.redriven;
    this.deadLettered += other.deadLettered;
    for (const [code, n] of other.failures) this.fail(code, n);
    for (let i = 0; i < LATENCY_BUCKETS; i++) this.latency[i] = (this.latency[i] as number) + (other.latency[i] as number);
  }

  fail(code: string, n = 1): void {
    this.failed ??= new Map();
    this.failed.set(code, (this.failed.get(code) ?? 0) + n);
  }

  get failures(): ReadonlyMap<string, number> {
    return this.failed ?? NO_FAILURES;
  }

  /** One delivered event that waited `latencyMs` from its record's time. */
  deliveredOne(bytes: number, latencyMs: number): void {
    this.delivered++;
    this.deliveredBytes += bytes;
    const bucket = latencyBucket(Math.max(0, latencyMs));
    this.latency[bucket] = (this.latency[bucket] as number) + 1;
  }

  get failedAttempts(): number {
    let n = 0;
    for (const v of this.failures.values()) n += v;
    return n;
  }

  /**
   * The latency at quantile `q` (0..1]: the upper bound of the bucket holding it, or the last bound for
   * the bucket above the ladder; undefined when nothing was delivered.
   */
  quantile(q: number): number | undefined {
    let total = 0;
    for (const n of this.latency) total += n;
    if (total === 0) return undefined;
    const rank = Math.max(1, Math.ceil(q * total));
    let seen = 0;
    for (let i = 0; i < LATENCY_BUCKETS; i++) {
      seen += this.latency[i] as number;
      if (seen >= rank) return LATENCY_BOUNDS_MS[Math.min(i, LATENCY_BOUNDS_MS.length - 1)];
    }
    return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
  }

  get isEmpty(): boolean {
    return this.matched === 0 && this.delivered === 0 && this.parked === 0 && this.redriven === 0 && this.deadLettered === 0 && this.failures.size === 0;
  }
}
