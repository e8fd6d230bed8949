// One worker's report of one destination's state, as it travels on the status topic: keyed
// `<destination id>/<worker id>`, the value a JSON object (times in ms since the epoch), a tombstone once
// the destination is deleted. Readers check every field: a record they cannot read is skipped.
import type { DestinationState } from '../destination-health.js';
import { versionedObject } from '../../kafka/versioned-json.js';

export interface ReportedError {
  readonly code: string;
  readonly message: string;
  readonly at: number;
}

/** A measurement of the destination's retry topic: deliveries parked and not yet re-driven (ARCHITECTURE.md "Destination status"). */
export interface ParkedBacklog {
  readonly events: number;
  readonly checkedAt: number;
}

export interface StatusReport {
  readonly destination: string;
  readonly worker: string;
  readonly state: DestinationState;
  /** When the state began. */
  readonly since: number;
  /** The worker's last attempt (a write or a check), whatever its outcome. */
  readonly lastAttemptAt: number | null;
  readonly lastDeliveredAt: number | null;
  readonly lastError: ReportedError | null;
  /** Measured by a worker that re-drives the destination's retry topic; null from the others. */
  readonly parked: ParkedBacklog | null;
  /** The oldest parked delivery this worker knows of that is not re-driven yet. */
  readonly oldestParkedAt: number | null;
  /** When the batch began that read this worker's oldest record waiting for the destination past the bound (DestinationStatus.stalledSince). */
  readonly stalledSince: number | null;
  readonly reportedAt: number;
  /** The worker stopped cleanly: its report is history, no longer a running worker's state. */
  readonly stopped: boolean;
}

const VERSION = 1;
const STATES: readonly DestinationState[] = ['unknown', 'ok', 'failing', 'parked'];

export function reportKey(destination: string, worker: string): string {
  return `${destination}/${worker}`;
}

/** The destination and worker of a key, or undefined for a key that is not one. */
export function parseReportKey(key: string): { destination: string; worker: string } | undefined {
  const slash = key.indexOf('/');
  if (slash <= 0 || slash === key.length - 1) return undefined;
  return { destination: key.slice(0, slash), worker: key.slice(slash + 1) };
}

export function encodeReport(r: StatusReport): Buffer {
  return Buffer.from(
    JSON.stringify({
      v: VERSION,
      destination: r.destination,
      worker: r.worker,
      state: r.state,
      since: r.since,
      last_attempt_at: r.lastAttemptAt,
      last_delivered_at: r.lastDeliveredAt,
      last_error: r.lastError,
      parked: r.parked === null ? null : { events: r.parked.events, checked_at: r.parked.checkedAt },
      oldest_parked_at: r.oldestParkedAt,
      stalled_since: r.stalledSince,
      reported_at: r.reportedAt,
      stopped: r.stopped,
    }),
  );
}

type Json = Record<string, unknown>;

const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const timeOrNull = (v: unknown): number | null | undefined => (v === null ? null : isTime(v) ? v : undefined);

/** The report in a record's value, or undefined when the value is not a report this version reads. */
export function decodeReport(value: Buffer): StatusReport | undefined {
  const o = versionedObject(value, VERSION);
  if (o === undefined) return undefined;
  const { destination, worker, state, stopped } = o;
  const lastAttemptAt = timeOrNull(o.last_attempt_at);
  const lastDeliveredAt = timeOrNull(o.last_delivered_at);
  const oldestParkedAt = timeOrNull(o.oldest_parked_at);
  // Reports of workers from before the field have none: nothing stalled that they say.
  const stalledSince = o.stalled_since === undefined ? null : timeOrNull(o.stalled_since);
  const lastError = decodeError(o.last_error);
  const parked = decodeParked(o.parked);
  if (typeof destination !== 'string' || typeof worker !== 'string' || typeof stopped !== 'boolean') return undefined;
  if (!STATES.includes(state as DestinationState) || !isTime(o.since) || !isTime(o.reported_at)) return undefined;
  if (lastAttemptAt === undefined || lastDeliveredAt === undefined || oldestParkedAt === undefined || stalledSince === undefined || lastError === undefined || parked === undefined) return undefined;
  return {
    destination,
    worker,
    state: state as DestinationState,
    since: o.since,
    lastAttemptAt,
    lastDeliveredAt,
    lastError,
    parked,
    oldestParkedAt,
    stalledSince,
    reportedAt: o.reported_at,
    stopped,
  };
}

function decodeError(v: unknown): ReportedError | null | undefined {
  if (v === null) return null;
  const e = v as Json | undefined;
  if (e === undefined || typeof e !== 'object' || typeof e.code !== 'string' || typeof e.message !== 'string' || !isTime(e.at)) return undefined;
  return { code: e.code, message: e.message, at: e.at };
}

function decodeParked(v: unknown): ParkedBacklog | null | undefined {
  if (v === null) return null;
  const p = v as Json | undefined;
  if (p === undefined || typeof p !== 'object' || !Number.isSafeInteger(p.events) || (p.events as number) < 0 || !isTime(p.checked_at)) return undefined;
  return { events: p.events as number, checkedAt: p.checked_at };
}
