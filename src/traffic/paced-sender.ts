// Sends generated records at a chosen rate (or as fast as the sink takes them) until a count or a time limit is reached.
import { setTimeout as sleep } from 'node:timers/promises';

export interface PacedProgress {
  readonly sent: number;
  readonly target: number;
  readonly elapsedMs: number;
  /** Records acknowledged per second since the start. */
  readonly ratePerSecond: number;
}

export interface PacedSendOptions<M> {
  /** Builds the next record to send. */
  readonly next: () => M;
  /** Delivers one batch; resolves when the sink has acknowledged it. A rejection stops the run. */
  readonly send: (batch: M[]) => Promise<void>;
  /** How many records to send in all. */
  readonly count: number;
  /** Records per second; undefined sends as fast as the sink acknowledges. */
  readonly rate?: number;
  /** Stop after this long even if `count` is not reached. */
  readonly maxDurationMs?: number;
  /** Records per batch (default 500). At a set rate, batches are also cut every `tickMs`. */
  readonly batchSize?: number;
  /** Batches awaiting acknowledgement at once (default 4). */
  readonly maxInFlight?: number;
  /** Pacing granularity at a set rate, in ms (default 20). */
  readonly tickMs?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: PacedProgress) => void;
  /** How often onProgress is called, in ms (default 1000); it is also called once at the end. */
  readonly progressEveryMs?: number;
}

export interface PacedSummary extends PacedProgress {
  /** Why the run ended. */
  readonly stoppedBy: 'count' | 'time' | 'signal';
}

/**
 * Rate control is by schedule, not by sleeping a fixed gap: after t seconds, rate x t records are due,
 * and each tick sends what is due. A slow acknowledgement therefore does not lower the average rate,
 * unless the sink cannot keep up (then it runs at the sink's pace; the summary shows the real rate).
 */
export async function sendPaced<M>(opts: PacedSendOptions<M>): Promise<PacedSummary> {
  const { count, rate } = opts;
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be a whole number >= 0, got ${count}`);
  if (rate !== undefined && !(rate > 0)) throw new RangeError(`rate must be positive, got ${rate}`);
  const batchSize = Math.max(1, opts.batchSize ?? 500);
  const maxInFlight = Math.max(1, opts.maxInFlight ?? 4);
  const tickMs = opts.tickMs ?? 20;
  const progressEvery = opts.progressEveryMs ?? 1_000;
  const started = performance.now();
  const deadline = opts.maxDurationMs === undefined ? Number.POSITIVE_INFINITY : started + opts.maxDurationMs;

  let scheduled = 0;
  let sent = 0;
  let failure: unknown;
  const inFlight = new Set<Promise<void>>();
  let lastProgress = started;
  const progress = (): PacedProgress => {
    const elapsedMs = performance.now() - started;
    return { sent, target: count, elapsedMs, ratePerSecond: elapsedMs > 0 ? (sent * 1000) / elapsedMs : 0 };
  };
  const report = (): void => {
    const now = performance.now();
    if (opts.onProgress !== undefined && now - lastProgress >= progressEvery) {
      lastProgress = now;
      opts.onProgress(progress());
    }
  };

  let stoppedBy: PacedSummary['stoppedBy'] = 'count';
  while (scheduled < count && failure === undefined) {
    if (opts.signal?.aborted) {
      stoppedBy = 'signal';
      break;
    }
    const now = performance.now();
    if (now >= deadline) {
      stoppedBy = 'time';
      break;
    }
    let n = Math.min(batchSize, count - scheduled);
    if (rate !== undefined) {
      const due = Math.floor((rate * (now - started)) / 1000) + 1;
      n = Math.min(n, due - scheduled);
      if (n <= 0) {
        const wait = Math.min(tickMs, ((scheduled + 1) * 1000) / rate - (now - started), deadline - now);
        await sleep(Math.max(1, wait));
        report();
        continue;
      }
    }
    if (inFlight.size >= maxInFlight) {
      await Promise.race(inFlight);
      report();
      continue;
    }
    const batch: M[] = new Array<M>(n);
    for (let i = 0; i < n; i++) batch[i] = opts.next();
    scheduled += n;
    const p: Promise<void> = opts.send(batch).then(
      () => {
        sent += n;
      },
      (err: unknown) => {
        failure ??= err;
      },
    );
    const tracked = p.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    report();
  }
  await Promise.all(inFlight);
  if (failure !== undefined) throw failure;
  const summary = { ...progress(), stoppedBy };
  opts.onProgress?.(summary);
  return summary;
}
