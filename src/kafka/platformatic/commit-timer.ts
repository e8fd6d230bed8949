// The platformatic consumer's offset commits, gathered on a short timer: the client sends one
// OffsetCommit request per commit() call, so the partitions that finish a batch within the same few
// milliseconds are committed in one request, each with its highest offset.

export interface PartitionOffset {
  readonly topic: string;
  readonly partition: number;
  /** The next record to read. */
  readonly offset: number;
}

/** How long a commit waits for others to join it. */
export const COMMIT_EVERY_MS = 20;

interface Pending {
  topic: string;
  partition: number;
  offset: number;
  readonly waiters: Array<{ resolve: () => void; reject: (err: unknown) => void }>;
}

export class CommitTimer {
  private pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly send: (offsets: readonly PartitionOffset[]) => Promise<void>,
    private readonly everyMs = COMMIT_EVERY_MS,
  ) {}

  /** Resolves once a request holding this offset (or a higher one of the partition) was committed; rejects when it failed. */
  commit(topic: string, partition: number, offset: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const key = `${topic}\u0000${partition}`;
      let p = this.pending.get(key);
      if (p === undefined) this.pending.set(key, (p = { topic, partition, offset, waiters: [] }));
      p.offset = Math.max(p.offset, offset);
      p.waiters.push({ resolve, reject });
      this.timer ??= setTimeout(() => void this.flush(), this.everyMs);
    });
  }

  /** Sends what is pending now. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const due = [...this.pending.values()];
    this.pending = new Map();
    if (due.length === 0) return;
    try {
      await this.send(due.map(({ topic, partition, offset }) => ({ topic, partition, offset })));
      for (const p of due) for (const w of p.waiters) w.resolve();
    } catch (err) {
      for (const p of due) for (const w of p.waiters) w.reject(err);
    }
  }
}
