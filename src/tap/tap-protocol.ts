// The messages of a live tap on its two topics (ARCHITECTURE.md "Live tap"): the API opens and closes taps
// on the requests topic, which every worker reads; workers answer on the events topic, keyed by tap id,
// which the API processes read. Both topics keep minutes of messages, never more.
import type { StoredSource } from '../configlog/resources.js';
import type { TimestampFormat } from '../events/timestamp-format.js';
import { versionedObject } from '../kafka/versioned-json.js';

/** How long the tap topics keep messages: longer than the longest tap, so a worker that starts late still sees an open one. */
export const TAP_TOPIC_CONFIG = { 'retention.ms': String(10 * 60_000), 'segment.ms': String(60_000) };

/** The longest a tap may run, in seconds, and the most events it may stream. */
export const TAP_MAX_SECONDS = 300;
export const TAP_DEFAULT_SECONDS = 30;
export const TAP_MAX_LIMIT = 10_000;
export const TAP_DEFAULT_LIMIT = 100;
/** Events per second one client is sent; beyond that the tap samples and says how many it skipped. */
export const TAP_EVENTS_PER_SECOND = 100;
/**
 * Bytes one client's stream may hold unsent (in the response and its socket): a client that reads more
 * slowly than its events come is skipped, told how many events, and never buffered for (src/tap/README.md).
 */
export const TAP_BUFFER_BYTES = 64 * 1024;

export interface TapOpen {
  readonly v: 1;
  readonly op: 'open';
  readonly tap: string;
  /** The account whose records alone the tap may see; null for the operator's, which sees all (as its subscriptions do). */
  readonly owner: string | null;
  readonly sources: readonly StoredSource[];
  /**
   * Event ids: those of this subscription and destination (what that destination receives), or of the
   * tap alone when the tap is not a subscription's or it has no destination.
   */
  readonly ids: { readonly subscription: string; readonly destination: string };
  readonly timestamp_format: TimestampFormat;
  /** Sampling as the subscription's sources do it (sampling.ts), seeded by the subscription id; absent: every match. */
  readonly sample_seed_id?: string;
  /** ms since the epoch; the tap ends by itself then. */
  readonly expires_at: number;
  readonly limit: number;
}

export interface TapClose {
  readonly v: 1;
  readonly op: 'close';
  readonly tap: string;
}

export type TapRequest = TapOpen | TapClose;

/** The `kind` header of a message on the events topic; its value is the event (the payload bytes) or JSON. */
export type TapMessageKind = 'event' | 'skipped' | 'ack';
export const TAP_KIND_HEADER = 'tap-kind';

/** A worker that applied an open says so, with its consumer group member id. */
export interface TapAck {
  readonly member: string | undefined;
}

/** A worker's count of the events it did not send (over its own share of the rate). */
export interface TapSkipped {
  readonly skipped: number;
}

/** A request read from the topic, or undefined when it is not one (never thrown: the topic is the service's own, but a reader never crashes on input). */
export function parseTapRequest(value: Buffer | null): TapRequest | undefined {
  const r = versionedObject(value, 1) as (Partial<TapOpen> & Partial<TapClose>) | undefined;
  if (r === undefined || typeof r.tap !== 'string') return undefined;
  if (r.op === 'close') return { v: 1, op: 'close', tap: r.tap };
  if (r.op !== 'open' || !Array.isArray(r.sources) || typeof r.expires_at !== 'number' || typeof r.limit !== 'number' || typeof r.ids !== 'object' || r.ids === null) return undefined;
  return r as TapOpen;
}
