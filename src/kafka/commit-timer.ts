// Offset commits of a group consumer, gathered on a short timer, with at most one request per partition
// in flight. The platformatic client sends one OffsetCommit request per commit() call, so the partitions
// that finish a batch within the same few milliseconds are committed in one request. A partition whose
// commit is in flight waits for its answer before its next one is sent, with the latest offset asked for
// meanwhile: two requests for one partition in flight could land in either order (a client's retry of
// the earlier one arriving last), and move the committed offset back (duplicates, issue 22 finding 8).

export interface PartitionOffset {
  readonly topic: string;
  readonly partition: number;
  /** The next record to read. */
  readonly offset: number;
}

/** How long a commit waits for others to join it. */
export const COMMIT_EVERY_MS = 20;
/** How long a stopping consumer waits for its commits in flight and the ones behind them. */
export const STOP_FLUSH_MS = 5_000;

interface Pending {
  readonly topic: string;
  readonly partition: number;
  offset: number;
  readonly waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }>;
}

export class CommitTimer {
  private pending = new Map<string, Pending>();
  /** Partitions with a request in flight. */
  private readonly sending = new Set<string>();
  private readonly requests = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: (offsets: readonly PartitionOffset[]) => Promise<void>,
    private readonly everyMs = COMMIT_EVERY_MS,
  ) {}

  /**
   * Resolves once a request holding this offset, or a later one of the partition, was committed; rejects
   * when that request failed. The latest offset asked for wins (the caller's newest decision), not the
   * highest: after its partition was read again, a lower offset is the truth.
   */
  commit(topic: string, partition: number, offset: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const key = `${topic}\u0000${partition}`;
      let p = this.pending.get(key);
      if (p === undefined) this.pending.set(key, (p = { topic, partition, offset, waiters: [] }));
      p.offset = offset;
      p.waiters.push({ resolve, reject });
      this.schedule();
    });
  }

  /**
   * Sends what is pending now and waits until nothing is pending or in flight, or until `deadlineMs`
   * passed: a consumer that stops does not wait for a commit the broker leaves unanswered (the records
   * after the last commit are read again). False when it gave up.
   */
  async flush(deadlineMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    const until = Date.now() + deadlineMs;
    for (;;) {
      this.sendDue();
      if (this.requests.size === 0) return true;
      const left = until - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      const expired = Number.isFinite(left) ? new Promise<void>((r) => (timer = setTimeout(r, left))) : new Promise<void>(() => undefined);
      await Promise.race([...this.requests, expired]);
      clearTimeout(timer);
    }
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => this.sendDue(), this.everyMs);
  }

  /** One request for the pending partitions without a request in flight; the others wait for theirs. */
  private sendDue(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const due: Pending[] = [];
    for (const [key, p] of this.pending) {
      if (this.sending.has(key)) continue;
      due.push(p);
      this.pending.delete(key);
      this.sending.add(key);
    }
    if (due.length === 0) return;
    const request = this.send(due.map(({ topic, partition, offset }) => ({ topic, partition, offset }))).then(
      () => {
        for (const p of due) for (const w of p.waiters) w.resolve();
      },
      (err: unknown) => {
        for (const p of due) for (const w of p.waiters) w.reject(err);
      },
    );
    const done = request.finally(() => {
      for (const p of due) this.sending.delete(`${p.topic}\u0000${p.partition}`);
      this.requests.delete(done);
      // Commits asked for while this one was in flight go next.
      if (this.pending.size > 0) this.schedule();
    });
    this.requests.add(done);
  }
}
