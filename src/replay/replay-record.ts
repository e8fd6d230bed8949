// A replay as the config log stores it, the progress its workers checkpoint in the progress topic
// (compacted, keyed <replay id>/<topic>/<partition>), and the state both make (ARCHITECTURE.md "Replay").
import type { Owned } from '../accounts/account.js';
import { versionedObject } from '../kafka/versioned-json.js';

/** One partition of a replay's range: offsets found by timestamp at `from` (start) and `to` (end, exclusive). */
export interface ReplayPartition {
  readonly topic: string;
  readonly partition: number;
  readonly start: number;
  readonly end: number;
}

export const REPLAY_STATES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export type ReplayState = (typeof REPLAY_STATES)[number];
export type EndedState = 'done' | 'failed' | 'cancelled';

export interface ReplayError {
  readonly code: string;
  readonly message: string;
}

/** How a replay ended, written once by the API (a cancel, or the workers' last report). */
export interface ReplayEnd {
  readonly state: EndedState;
  readonly at: string;
  readonly error?: ReplayError;
  readonly records_scanned: number;
  readonly events_delivered: number;
}

export interface StoredReplay extends Owned {
  readonly id: string;
  readonly subscription_id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
  /** RFC 3339: records stamped in [from, to) are replayed. */
  readonly from: string;
  readonly to: string;
  readonly destination_ids: readonly string[];
  /** The traffic event types replayed: the subscription's, or those the request narrowed them to. */
  readonly sources: readonly string[];
  readonly partitions: readonly ReplayPartition[];
  /** Set once, when it ended (cancelled, done or failed). */
  readonly ended?: ReplayEnd;
}

/** A worker's checkpoint of one partition: the next offset to read, and what it delivered so far. */
export interface ReplayProgressReport {
  readonly v: 1;
  readonly replay: string;
  readonly topic: string;
  readonly partition: number;
  /** The next offset to read: every record before it settled (delivered, parked or dead-lettered). */
  readonly next: number;
  readonly end: number;
  readonly events_delivered: number;
  /** When a worker first read the partition (ms). */
  readonly started_at: number;
  /** When the report was written (ms). */
  readonly at: number;
  readonly error?: ReplayError;
}

export const progressKey = (replay: string, topic: string, partition: number): string => `${replay}/${topic}/${partition}`;

/** The consumer group of one replay: its committed offsets are where its readers resume. */
export const replayGroupId = (consumerGroup: string, replay: string): string => `${consumerGroup}.replay.${replay}`;

export function decodeProgress(value: Buffer | null): ReplayProgressReport | undefined {
  const r = versionedObject(value, 1);
  if (r === undefined || typeof r.replay !== 'string' || typeof r.topic !== 'string' || typeof r.partition !== 'number' || typeof r.next !== 'number') return undefined;
  return r as unknown as ReplayProgressReport;
}

/** What a replay's state and progress are, from its stored record and the latest report of each partition. */
export interface ReplayStatus {
  readonly state: ReplayState;
  readonly records_scanned: number;
  readonly records_total: number;
  readonly events_delivered: number;
  readonly fraction: number;
  readonly estimated_done_at: string | null;
  readonly finished_at: string | null;
  readonly error: ReplayError | null;
}

export function replayStatus(r: StoredReplay, reports: ReadonlyMap<string, ReplayProgressReport>, now = Date.now()): ReplayStatus {
  let scanned = 0;
  let total = 0;
  let delivered = 0;
  let allDone = true;
  let anyReport = false;
  let startedAt = Number.POSITIVE_INFINITY;
  let lastAt = 0;
  let error: ReplayError | undefined;
  for (const p of r.partitions) {
    const span = Math.max(0, p.end - p.start);
    total += span;
    const rep = reports.get(progressKey(r.id, p.topic, p.partition));
    if (rep === undefined) {
      if (span > 0) allDone = false;
      continue;
    }
    anyReport = true;
    scanned += Math.min(span, Math.max(0, rep.next - p.start));
    delivered += rep.events_delivered;
    startedAt = Math.min(startedAt, rep.started_at);
    lastAt = Math.max(lastAt, rep.at);
    if (rep.error !== undefined) error ??= rep.error;
    if (rep.next < p.end) allDone = false;
  }
  const fraction = total === 0 ? 1 : scanned / total;
  const ended = r.ended;
  if (ended !== undefined) {
    return {
      state: ended.state,
      records_scanned: Math.max(scanned, ended.records_scanned),
      records_total: total,
      events_delivered: Math.max(delivered, ended.events_delivered),
      fraction: ended.state === 'done' ? 1 : fraction,
      estimated_done_at: null,
      finished_at: ended.at,
      error: ended.error ?? null,
    };
  }
  const base = { records_scanned: scanned, records_total: total, events_delivered: delivered, fraction };
  if (error !== undefined) return { ...base, state: 'failed', estimated_done_at: null, finished_at: new Date(lastAt).toISOString(), error };
  if (allDone) return { ...base, fraction: 1, state: 'done', estimated_done_at: null, finished_at: new Date(lastAt > 0 ? lastAt : Date.parse(r.created_at)).toISOString(), error: null };
  let estimate: string | null = null;
  if (scanned > 0 && Number.isFinite(startedAt)) {
    const perRecord = (now - startedAt) / scanned;
    estimate = new Date(now + Math.round(perRecord * (total - scanned))).toISOString();
  }
  return { ...base, state: anyReport ? 'running' : 'queued', estimated_done_at: estimate, finished_at: null, error: null };
}
