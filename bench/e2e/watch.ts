// Watches a consumer group work through preloaded records (or a copy write them out): the rate between the first
// progress seen and the end, and its processes' CPU and memory.
import { findErrorBy } from '@platformatic/kafka';
import type { KafkaAdmin as Admin, KafkaClient as Kafka } from '../../src/kafka/seam.js';
import { sampleProcess, type ProcSample } from './proc-stats.js';

export interface DrainResult {
  /** Records committed between the first progress seen and the end, over that time. */
  readonly recordsPerSecond: number;
  readonly seconds: number;
  readonly records: number;
  /** CPU cores the watched processes used, summed, during that window. */
  readonly cores: number;
  /** Highest VmHWM of any watched process, in MiB. */
  readonly peakRssMiB: number;
}

/** Sum of committed offsets of `group` over the partitions of `topics` (a partition without a commit counts 0). */
export async function committed(admin: Admin, group: string, topics: readonly string[]): Promise<number> {
  let sum = 0;
  for (const topic of topics) for (const offset of (await admin.committedOffsets(group, topic)).values()) sum += Math.max(0, offset);
  return sum;
}

/** What a broker answers about a topic created a moment ago, before its metadata and leaders settle. */
const TRANSIENT = new Set(['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE', 'NOT_LEADER_FOR_PARTITION', 'NOT_LEADER_OR_FOLLOWER']);

/**
 * Runs `fn` again while the broker answers that it does not know a topic or its leader yet: just after
 * a topic is created, its metadata reaches the broker's cache a moment later.
 */
export async function whenTopicsKnown<T>(fn: () => Promise<T>, attempts = 30): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await fn();
    } catch (err) {
      const transient = [...TRANSIENT].some((apiId) => findErrorBy(err as Error, 'apiId', apiId) !== null) || /does not host this topic-partition|does not exist/.test(String(err));
      if (!transient || i >= attempts) throw err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

export async function endOffsets(kafka: Kafka, topics: readonly string[]): Promise<number> {
  const admin = kafka.admin();
  try {
    return await endOffsetsWith(admin, topics);
  } finally {
    await admin.close();
  }
}

export async function endOffsetsWith(admin: Admin, topics: readonly string[]): Promise<number> {
  let sum = 0;
  for (const topic of topics) for (const p of await whenTopicsKnown(() => admin.partitionOffsets(topic))) sum += p.high;
  return sum;
}

export interface WatchOptions {
  readonly timeoutMs: number;
  readonly pollMs?: number;
  readonly progress?: (m: string) => void;
  /** Throws (ending the wait) when a watched process has died. */
  readonly check?: () => void;
}

/**
 * Polls the group's commits every `pollMs` until they reach `target`. The clock starts at the first
 * poll that shows progress, and the records counted are those committed after it, so start-up and
 * the group join are left out. Throws when `timeoutMs` passes first, naming how far it got.
 */
export function watchDrain(
  kafka: Kafka,
  group: string,
  topics: readonly string[],
  target: number,
  pids: readonly number[],
  opts: WatchOptions,
): Promise<DrainResult> {
  return watchProgress(kafka, `group ${group}`, 'committed', (admin) => committed(admin, group, topics), target, pids, opts);
}

/** As watchDrain, counting the records written to `outputs` since `before` (a copy that commits nothing worth watching). */
export function watchOutputs(kafka: Kafka, outputs: readonly string[], before: number, target: number, pids: readonly number[], opts: WatchOptions): Promise<DrainResult> {
  return watchProgress(kafka, outputs.join(', '), 'written', async (admin) => (await endOffsetsWith(admin, outputs)) - before, target, pids, opts);
}

async function watchProgress(
  kafka: Kafka,
  what: string,
  verb: string,
  count: (admin: Admin) => Promise<number>,
  target: number,
  pids: readonly number[],
  opts: WatchOptions,
): Promise<DrainResult> {
  const admin = kafka.admin();
  try {
    return await watch(admin, what, verb, count, target, pids, opts);
  } finally {
    await admin.close();
  }
}

async function watch(
  admin: Admin,
  what: string,
  verb: string,
  count: (admin: Admin) => Promise<number>,
  target: number,
  pids: readonly number[],
  opts: WatchOptions,
): Promise<DrainResult> {
  const pollMs = opts.pollMs ?? 250;
  const started = Date.now();
  let first: { at: number; done: number; samples: (ProcSample | undefined)[] } | undefined;
  let lastReport = 0;
  let peak = 0;
  // The latest sample of each process: one that ends by itself when done (kcat) is counted up to its last.
  const latest: (ProcSample | undefined)[] = pids.map(() => undefined);
  for (;;) {
    const done = await whenTopicsKnown(() => count(admin));
    const now = performance.now();
    const samples = pids.map((pid, i) => (latest[i] = sampleProcess(pid) ?? latest[i]));
    // A process that exited but was not reaped yet still has its CPU times and no memory lines (NaN).
    for (const s of samples) if (s !== undefined && Number.isFinite(s.peakRssMiB)) peak = Math.max(peak, s.peakRssMiB);
    if (first === undefined && done > 0) first = { at: now, done, samples };
    if (done >= target && first !== undefined) {
      const seconds = (now - first.at) / 1000;
      // CPU seconds over the whole window, so a process that ended early counts only what it used.
      let cpuSeconds = 0;
      samples.forEach((s, i) => {
        const a = first?.samples[i];
        if (a !== undefined && s !== undefined) cpuSeconds += s.cpuSeconds - a.cpuSeconds;
      });
      const cores = seconds > 0 ? cpuSeconds / seconds : 0;
      const records = done - first.done;
      return { recordsPerSecond: seconds > 0 ? records / seconds : Number.NaN, seconds, records, cores, peakRssMiB: peak };
    }
    opts.check?.();
    if (Date.now() - started > opts.timeoutMs) {
      throw new Error(`${what}: ${done} of ${target} records ${verb} in ${Math.round((Date.now() - started) / 1000)} s; giving up`);
    }
    if (opts.progress !== undefined && Date.now() - lastReport > 2_000) {
      lastReport = Date.now();
      opts.progress(`${what}: ${done.toLocaleString('en-US')} / ${target.toLocaleString('en-US')} ${verb}`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
