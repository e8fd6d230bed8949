// One worker's counts of one closed period (a minute or an hour) as it travels on a history topic: the
// value a versioned JSON object holding a point per subscription and destination with activity. Readers
// check every field; a record they cannot read is skipped whole.
import { Counters, LATENCY_BUCKETS } from './counters.js';
import { versionedObject } from '../../kafka/versioned-json.js';

export interface SeriesPoint {
  readonly destination: string;
  /** The subscription the events were matched for; "" for events of none. */
  readonly subscription: string;
  readonly counters: Counters;
}

export interface HistoryRecord {
  readonly worker: string;
  /** The period's start (ms since the epoch) and length. */
  readonly start: number;
  readonly lengthMs: number;
  readonly points: readonly SeriesPoint[];
}

const VERSION = 1;
/** Points per record: a record stays well within a topic's default 1 MB max.message.bytes. */
export const POINTS_PER_RECORD = 500;
const ID = /^[a-z]{1,8}_[0-9A-Z]{1,64}$/;
const CODE = /^[A-Z][A-Z0-9_]{0,63}$/;
/** Error codes per point: the delivery codes are a closed list of about twenty (src/delivery/errors.ts). */
const MAX_CODES = 32;

export function encodeRecord(r: HistoryRecord): Buffer {
  return Buffer.from(
    JSON.stringify({
      v: VERSION,
      worker: r.worker,
      start: r.start,
      length_ms: r.lengthMs,
      points: r.points.map(({ destination, subscription, counters: c }) => ({
        destination,
        subscription,
        matched: c.matched,
        delivered: c.delivered,
        delivered_bytes: c.deliveredBytes,
        parked: c.parked,
        redriven: c.redriven,
        dead_lettered: c.deadLettered,
        failures: Object.fromEntries(c.failures),
        // Only the buckets with counts: [bucket, count].
        latency: c.latency.flatMap((n, i) => (n > 0 ? [[i, n]] : [])),
      })),
    }),
  );
}

type Json = Record<string, unknown>;
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** The record in a value, or undefined when it is not one this version reads. */
export function decodeRecord(value: Buffer): HistoryRecord | undefined {
  const o = versionedObject(value, VERSION);
  if (o === undefined) return undefined;
  if (typeof o.worker !== 'string' || !isCount(o.start) || !isCount(o.length_ms) || o.length_ms === 0 || !Array.isArray(o.points)) return undefined;
  if (o.points.length > POINTS_PER_RECORD) return undefined;
  const points: SeriesPoint[] = [];
  for (const p of o.points as unknown[]) {
    const point = decodePoint(p);
    if (point === undefined) return undefined;
    points.push(point);
  }
  return { worker: o.worker, start: o.start, lengthMs: o.length_ms, points };
}

function decodePoint(v: unknown): SeriesPoint | undefined {
  const p = v as Json;
  if (p === null || typeof p !== 'object') return undefined;
  const { destination, subscription } = p;
  if (typeof destination !== 'string' || !ID.test(destination) || typeof subscription !== 'string' || (subscription !== '' && !ID.test(subscription))) return undefined;
  const c = new Counters();
  for (const [field, key] of [
    ['matched', 'matched'],
    ['delivered', 'delivered'],
    ['delivered_bytes', 'deliveredBytes'],
    ['parked', 'parked'],
    ['redriven', 'redriven'],
    ['dead_lettered', 'deadLettered'],
  ] as const) {
    if (!isCount(p[field])) return undefined;
    c[key] = p[field];
  }
  const failures = p.failures as Json;
  if (failures === null || typeof failures !== 'object' || Array.isArray(failures)) return undefined;
  const codes = Object.entries(failures);
  if (codes.length > MAX_CODES) return undefined;
  for (const [code, n] of codes) {
    if (!CODE.test(code) || !isCount(n)) return undefined;
    c.fail(code, n);
  }
  if (!Array.isArray(p.latency) || p.latency.length > LATENCY_BUCKETS) return undefined;
  for (const entry of p.latency as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 2) return undefined;
    const [bucket, n] = entry as unknown[];
    if (!Number.isInteger(bucket) || (bucket as number) < 0 || (bucket as number) >= LATENCY_BUCKETS || !isCount(n)) return undefined;
    c.latency[bucket as number] = (c.latency[bucket as number] as number) + n;
  }
  return { destination, subscription, counters: c };
}
