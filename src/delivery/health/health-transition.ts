// A destination's health as its events tell it (ARCHITECTURE.md "Health events"): the state of its status
// over all workers, when a change becomes an event, and the event's payload
// (schemas/audit/event_destination_health.schema.json). Pure: the emitter (health-emitter.ts) runs it.
import type { DestinationStatusSummary } from '../status/status-aggregate.js';
import { versionedObject } from '../../kafka/versioned-json.js';

export type HealthState = 'ok' | 'failing' | 'parked' | 'stalled';

/** stalled when an event waits for it past the bound, else its status state; undefined while unknown (nothing to tell). */
export function healthStateOf(s: DestinationStatusSummary): HealthState | undefined {
  if (s.stalledSince !== undefined) return 'stalled';
  return s.state === 'unknown' ? undefined : s.state;
}

/** What the health topic keeps per destination: the state its last event gave. */
export interface HealthRecord {
  readonly state: HealthState;
  /** How many events the destination has had; 0 for the first state seen, ok, which is no event. */
  readonly seq: number;
  /** When its last event was emitted; 0 before the first. */
  readonly emittedAt: number;
}

export type HealthStep =
  | { readonly kind: 'none' }
  /** The first state seen is ok: kept, with no event (a destination working is no news). */
  | { readonly kind: 'baseline'; readonly record: HealthRecord }
  | { readonly kind: 'event'; readonly record: HealthRecord; readonly before: HealthState | 'unknown' }
  /** A change within minIntervalMs of the last event: it waits, and the next event sums it up. */
  | { readonly kind: 'held' };

/**
 * The step for a destination whose last event gave `last` and whose state is `current` now: at most one
 * event per destination per minIntervalMs, each from the state the last one gave to the state now.
 */
export function nextStep(last: HealthRecord | undefined, current: HealthState | undefined, now: number, minIntervalMs: number): HealthStep {
  if (current === undefined || current === last?.state) return { kind: 'none' };
  if (last === undefined && current === 'ok') return { kind: 'baseline', record: { state: 'ok', seq: 0, emittedAt: 0 } };
  if (last !== undefined && last.emittedAt > 0 && now - last.emittedAt < minIntervalMs) return { kind: 'held' };
  return { kind: 'event', before: last?.state ?? 'unknown', record: { state: current, seq: (last?.seq ?? 0) + 1, emittedAt: now } };
}

export interface HealthDestination {
  readonly id: string;
  readonly accountId: string;
  readonly uri: string;
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

/** The event's `object` (docs/events.md "Health events"). */
export function healthPayload(
  d: HealthDestination,
  s: DestinationStatusSummary,
  before: HealthState | 'unknown',
  state: HealthState,
  changedAt: number,
  transitions: number,
): Record<string, unknown> {
  const failed = state !== 'ok' && s.lastError !== undefined;
  return {
    account_id: d.accountId,
    destination: { id: d.id, uri: d.uri },
    state_before: before,
    state,
    reason: failed ? s.lastError?.message : null,
    error_code: failed ? s.lastError?.code : null,
    parked_events: s.parkedEvents,
    last_delivered_at: iso(s.lastDeliveredAt),
    stalled_since: iso(s.stalledSince),
    changed_at: new Date(changedAt).toISOString(),
    transitions: Math.max(1, transitions),
  };
}

const STATES: readonly HealthState[] = ['ok', 'failing', 'parked', 'stalled'];
const VERSION = 1;

export function encodeHealthRecord(r: HealthRecord): Buffer {
  return Buffer.from(JSON.stringify({ v: VERSION, state: r.state, seq: r.seq, emitted_at: r.emittedAt }));
}

/** The record in a value, or undefined for one this version cannot read. */
export function decodeHealthRecord(value: Buffer): HealthRecord | undefined {
  const o = versionedObject(value, VERSION);
  if (o === undefined) return undefined;
  const { state, seq } = o;
  const emittedAt = o.emitted_at;
  if (!STATES.includes(state as HealthState) || !Number.isSafeInteger(seq) || (seq as number) < 0) return undefined;
  if (typeof emittedAt !== 'number' || !Number.isFinite(emittedAt) || emittedAt < 0) return undefined;
  return { state: state as HealthState, seq: seq as number, emittedAt };
}
