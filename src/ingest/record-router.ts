// The hot path for one consumed record: decode the filterable fields, offer it to the live taps, match
// subscriptions, sample, project once per distinct (field set, timestamp format) on a match (an Avro
// record from its bytes, a JSON record from its decoded form), and list the deliveries: one per
// (subscription, destination), each an event with its own id.
import type { DeliveryItem } from '../delivery/contract.js';
import type { DeadLetter } from '../delivery/dead-letter.js';
import type { OutgoingHeaderValue } from '../kafka/seam.js';
import type { TrackedRecord } from '../delivery/offset-tracker.js';
import { payloadHead, payloadTail, tailBeforeObject, type Principal } from '../events/envelope.js';
import type { TrafficEventType } from '../events/catalog.js';
import { DEFAULT_TIMESTAMP_FORMAT, formatAt, formatTimestampValue } from '../events/timestamp-format.js';
import { EVENT_HASH_DIGITS, recordDigits } from '../ids.js';
import type { AuditDecoder, AuditEvent } from '../records/audit-decoder.js';
import type { RecordDecoder } from '../records/record-decoder.js';
import type { HeaderValue } from '../records/record-types.js';
import { avroProjections, jsonProjectedTail, projectedTail } from '../projection/avro-projection.js';
import type { LeafJsonCache, Projector } from '../projection/projector.js';
import type { FullDecodeResult } from '../records/record-types.js';
import { EVENT_TIME_MAX_MS, EVENT_TIME_MIN_MS, formatMillis } from '../records/timestamps.js';
import { createLogger } from '../telemetry/logger.js';
import { SAMPLE_ALL, sampled } from '../subscriptions/sampling.js';
import type { SubscriptionSet, TrafficRoute } from '../subscriptions/subscription-set.js';
import { decodeFailures, subscriptionMatches, unownedRecords } from '../telemetry/metrics.js';
import { EventItem, type EventParts, type PayloadParts } from './event-item.js';
import { FormattedEvents } from './formatted-events.js';
import { ProjectedEvent } from './projected-event.js';
import type { TapHub } from '../tap/tap-hub.js';

export interface ConsumedMessage {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly offset: string;
  readonly timestamp: string;
  readonly headers?: Readonly<Record<string, HeaderValue>>;
}

export interface Delivery {
  readonly destinationId: string;
  readonly item: DeliveryItem;
}

export type RouteResult =
  /** `source` is the record's; every item of `deliveries` carries it. Absent when there is nothing to deliver. */
  | { readonly type: 'deliver'; readonly source?: TrackedRecord; readonly deliveries: readonly Delivery[] }
  | { readonly type: 'dead_letter'; readonly letter: DeadLetter & { readonly source: TrackedRecord } };

const log = createLogger('record-router');

/** Whether an event can carry this Kafka timestamp (ms) as its event_timestamp: the years 0000 to 9999. */
const isEventTime = (ts: number): boolean => ts >= EVENT_TIME_MIN_MS && ts <= EVENT_TIME_MAX_MS;

const NOTHING: RouteResult = Object.freeze({ type: 'deliver', deliveries: Object.freeze([]) });

/** Matches are counted in the router and added to the Prometheus counter after this many records, or on flushMetrics(). */
const METRICS_FLUSH_EVERY = 4096;

export interface RecordRouterOptions {
  readonly subscriptions: SubscriptionSet;
  readonly decoder: RecordDecoder;
  readonly auditDecoder: AuditDecoder;
  /** Raw traffic topic -> the event type it carries. */
  readonly trafficTopics: ReadonlyMap<string, TrafficEventType>;
  readonly auditTopic: string;
  /**
   * A subscription receives the records whose Kafka timestamp is at or after its created_at less this
   * allowance for the producers' clocks (SUBSCRIPTION_CLOCK_SKEW_MS, ARCHITECTURE.md "Subscription start").
   */
  readonly clockSkewMs: number;
  /** The live taps of this worker (src/tap/): offered each record while one is open. */
  readonly taps?: TapHub;
}

/** What the deliveries of one audit record in one timestamp format share. */
interface AuditShared {
  readonly parts: EventParts;
  readonly payload: PayloadParts;
}

/** The envelope as the admin API (or another service) wrote it, under this record's own event ids. */
function auditShared(event: AuditEvent, topic: string, partition: number, msg: ConsumedMessage, format = 0): AuditShared {
  const principal = event.principal as Principal | null;
  const timestamp = format === 0 ? event.event_timestamp : formatTimestampValue(event.event_timestamp, formatAt(format)) as string | number;
  return {
    parts: { eventType: event.event_type, timestamp, principal, object: () => event.object },
    payload: {
      head: payloadHead(Number(msg.timestamp)),
      recordDigits: recordDigits(topic, partition, msg.offset),
      tail: payloadTail(tailBeforeObject(event.event_type, timestamp, JSON.stringify(principal)), JSON.stringify(event.object)),
    },
  };
}

export class RecordRouter {
  /**
   * Routes whose match count (TrafficRoute.unflushedMatches) is not flushed yet. prom-client's inc() with a
   * label hashes the label object on every call; at 10,000 subscriptions a record matches about 100
   * of them and that cost dominated the hot path (bench/results/PROFILE.md).
   */
  private counted: TrafficRoute[] = [];
  private routedSinceFlush = 0;

  constructor(private readonly opts: RecordRouterOptions) {}

  /**
   * Adds the matches counted so far to edge_subscription_matches_total, and the records of nobody's to
   * edge_unowned_records_total; the worker calls it after each batch.
   */
  flushMetrics(): void {
    const routes = this.counted;
    this.counted = [];
    this.routedSinceFlush = 0;
    for (const route of routes) {
      subscriptionMatches.inc({ subscription: route.subscriptionId }, route.unflushedMatches);
      route.unflushedMatches = 0;
    }
    for (const [eventType, n] of this.opts.subscriptions.owners.takeUnowned()) unownedRecords.inc({ event_type: eventType }, n);
  }

  isSubscribedTopic(topic: string): boolean {
    return this.opts.trafficTopics.has(topic) || topic === this.opts.auditTopic;
  }

  /**
   * `reading` is the read of the partition the record came from (PartitionBatch.reading): every delivery
   * and dead letter of the record carries it in its `source`, with the record's topic, partition and
   * offset, which is all the offset tracker settles by.
   */
  route(topic: string, partition: number, msg: ConsumedMessage, reading: number): RouteResult {
    if (++this.routedSinceFlush >= METRICS_FLUSH_EVERY) this.flushMetrics();
    const eventType = this.opts.trafficTopics.get(topic);
    if (eventType === undefined && topic !== this.opts.auditTopic) return NOTHING;
    try {
      return eventType !== undefined ? this.routeTraffic(eventType, topic, partition, msg, reading) : this.routeAudit(topic, partition, msg, reading);
    } catch (err) {
      return this.failed(topic, partition, msg, reading, err);
    }
  }

  /** Every event of a record carries its Kafka timestamp as event_timestamp: one no event can carry is refused. */
  private rejectTime(topic: string, partition: number, msg: ConsumedMessage, reading: number): RouteResult {
    return this.reject(topic, partition, msg, reading, 'invalid_record_timestamp', `The record's Kafka timestamp ${msg.timestamp} ms is outside the years 0000 to 9999, which an event's event_timestamp (RFC 3339) can carry.`);
  }

  /**
   * A failure on one record (a bug) dead-letters that record: a consumer that crashed on it would read it
   * again, and crash again, and its partition would never move.
   */
  private failed(topic: string, partition: number, msg: ConsumedMessage, reading: number, err: unknown): RouteResult {
    log.error({ err, topic, partition, offset: msg.offset }, 'Routing a record failed; it was sent to the dead-letter topic.');
    return this.reject(topic, partition, msg, reading, 'routing_failed', `The service failed while routing this record: ${err instanceof Error ? err.message : String(err)}`);
  }

  private routeTraffic(eventType: TrafficEventType, topic: string, partition: number, msg: ConsumedMessage, reading: number): RouteResult {
    const decoded = this.opts.decoder.decodeFilterable(eventType, msg);
    if (!decoded.ok) return this.reject(topic, partition, msg, reading, decoded.code, decoded.message);
    // One read of a field per record while no tap is open (bench/results/tap.md).
    const taps = this.opts.taps;
    if (taps?.active === true) {
      const at = Number(msg.timestamp);
      if (!isEventTime(at)) return this.rejectTime(topic, partition, msg, reading);
      taps.offerTraffic(eventType, decoded, { topic, partition, offset: msg.offset, timestampMs: at });
    }
    const runs = this.opts.subscriptions.matcher(eventType).matchRuns(decoded.filterable);
    if (runs.length === 0) return NOTHING;
    // Read only for a record that makes events (most match nothing): parsing it cost the rare route 7%.
    const ts = Number(msg.timestamp);
    if (!isEventTime(ts)) return this.rejectTime(topic, partition, msg, reading);
    // An Avro record is projected from its bytes once validated, a JSON record the fast path accepted from
    // its text (src/projection/avro-projection.ts), or from its Avro record where that gives up; any other
    // record, or a field set without a byte projection, from the decoded record.
    const json = decoded.json;
    let avro = json === undefined ? decoded.avro : undefined;
    let starts: Int32Array | undefined;
    let full: FullDecodeResult | undefined;
    try {
      if (avro !== undefined) starts = avro.codec.leafStarts(avro.buf, avro.pos);
    } catch {
      // Refused below as the full decode refuses it, with its code and message.
    }
    if (starts === undefined && json === undefined) {
      full = decoded.full();
      if (!full.ok) return this.reject(topic, partition, msg, reading, full.code, full.message);
    }
    const codec = json?.codec ?? (starts === undefined ? undefined : avro?.codec);
    const projections = codec === undefined ? undefined : avroProjections(codec);

    const source: TrackedRecord = { topic, partition, offset: Number(msg.offset), reading };
    // Routes created later than this did not exist when the record was produced.
    const createdBy = ts + this.opts.clockSkewMs;
    const head = payloadHead(ts);
    const digits = recordDigits(topic, partition, msg.offset);
    // The envelope's JSON between the event id and the object, the same for every field set; the byte
    // projections write it themselves (projectedTail).
    let before: string | undefined;
    // Equal field sets share one projector function (projector.ts), so the projector identifies the
    // object. A record meets a handful of distinct field sets even at 10,000 subscriptions, and a scan
    // of a short array beats hashing long projection keys in a Map.
    const projectors: Projector[] = [];
    const payloads: PayloadParts[] = [];
    const parts: ProjectedEvent[] = [];
    let leafJson: LeafJsonCache | undefined;
    const deliveries: Delivery[] = [];
    // Events in a timestamp format other than rfc3339, made the first time a destination asks for one.
    let formatted: FormattedEvents | undefined;
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r] as readonly TrafficRoute[];
      for (let m = 0; m < run.length; m++) {
        const route = run[m] as TrafficRoute;
        if (route.createdAtMs > createdBy) continue;
        if (route.sampleBelow < SAMPLE_ALL && !sampled(digits, route.sampleSeed, route.sampleBelow)) continue;
        if (route.unflushedMatches++ === 0) this.counted.push(route);
        const formats = route.formats;
        // The default format's event, unless every destination of the route takes another format.
        let k = -1;
        if (formats === undefined || formats.indexOf(0) >= 0) {
          k = projectors.indexOf(route.project);
          if (k < 0) {
            k = projectors.length;
            const byteProjection = projections?.get(route.projectionKey);
            let tail: Buffer | undefined;
            if (byteProjection !== undefined && json !== undefined) {
              tail = jsonProjectedTail(eventType, ts, byteProjection, json);
              // Given up: the Avro record of the same content (the scan accepted it, so it is valid).
              if (tail === undefined && starts === undefined) {
                avro = decoded.avro;
                starts = avro?.codec.leafStarts(avro.buf, avro.pos);
              }
            }
            if (tail === undefined && byteProjection !== undefined && avro !== undefined && starts !== undefined) tail = projectedTail(eventType, ts, byteProjection, avro.buf, avro.pos, starts);
            if (tail === undefined) {
              full ??= decoded.full();
              if (!full.ok) return this.reject(topic, partition, msg, reading, full.code, full.message);
              before ??= tailBeforeObject(eventType, formatMillis(ts), 'null');
              leafJson ??= [];
              tail = payloadTail(before, route.project.serialize(full.record, leafJson));
            }
            projectors.push(route.project);
            payloads.push({ head, recordDigits: digits, tail });
            parts.push(new ProjectedEvent(eventType, ts, DEFAULT_TIMESTAMP_FORMAT, route.project, decoded));
          }
        }
        // Read only for a destination in the default format, so never at k = -1.
        const payload = payloads[k] as PayloadParts;
        const shared = parts[k] as ProjectedEvent;
        // Each (record, subscription, destination) is an event of its own, with its own id (ids.ts).
        const destinationIds = route.destinationIds;
        for (let d = 0; d < destinationIds.length; d++) {
          const format = formats === undefined ? 0 : (formats[d] as number);
          if (format === 0) {
            deliveries.push({ destinationId: destinationIds[d] as string, item: new EventItem(payload, route, d * EVENT_HASH_DIGITS, source, shared) });
            continue;
          }
          if (json !== undefined && starts === undefined) {
            // Other formats are projected from the Avro record of a JSON record's content.
            avro = decoded.avro;
            starts = avro?.codec.leafStarts(avro.buf, avro.pos);
          }
          formatted ??= new FormattedEvents(eventType, ts, head, digits, decoded, starts);
          const f = formatted.get(route.project, route.projectionKey, format);
          if (!f.ok) return this.reject(topic, partition, msg, reading, f.code, f.message);
          deliveries.push({ destinationId: destinationIds[d] as string, item: new EventItem(f.payload, route, d * EVENT_HASH_DIGITS, source, f.parts) });
        }
      }
    }
    return deliveries.length === 0 ? NOTHING : { type: 'deliver', source, deliveries };
  }

  private routeAudit(topic: string, partition: number, msg: ConsumedMessage, reading: number): RouteResult {
    const decoded = this.opts.auditDecoder.decode(msg);
    if (!decoded.ok) return this.reject(topic, partition, msg, reading, decoded.code, decoded.message);
    const ts = Number(msg.timestamp);
    if (!isEventTime(ts)) return this.rejectTime(topic, partition, msg, reading);
    const event = decoded.event;
    const deliveries: Delivery[] = [];
    let shared: AuditShared | undefined;
    const createdBy = ts + this.opts.clockSkewMs;
    // The account the event is about: the admin API's objects carry it (events of other services may not).
    const account = typeof event.object.account_id === 'string' ? event.object.account_id : undefined;
    const taps = this.opts.taps;
    if (taps?.active === true) taps.offerAudit(event, account, { topic, partition, offset: msg.offset, timestampMs: ts });
    // By timestamp format (formatIndex), made on first use; every format's deliveries carry the one record.
    const byFormat: AuditShared[] = [];
    const source: TrackedRecord = { topic, partition, offset: Number(msg.offset), reading };
    for (const route of this.opts.subscriptions.auditRoutes(event.event_type, account)) {
      if (route.createdAtMs > createdBy) continue;
      subscriptionMatches.inc({ subscription: route.subscriptionId });
      shared ??= auditShared(event, topic, partition, msg);
      route.destinationIds.forEach((destinationId, d) => {
        const format = route.formats?.[d] ?? 0;
        const { payload, parts } = format === 0 ? (shared as AuditShared) : (byFormat[format] ??= auditShared(event, topic, partition, msg, format));
        deliveries.push({ destinationId, item: new EventItem(payload, route, d * EVENT_HASH_DIGITS, source, parts) });
      });
    }
    return shared === undefined ? NOTHING : { type: 'deliver', source, deliveries };
  }

  private reject(topic: string, partition: number, msg: ConsumedMessage, reading: number, code: string, message: string): RouteResult {
    decodeFailures.inc({ topic, code });
    // No prototype, so a header named `__proto__` is kept as any other.
    const headers = Object.create(null) as Record<string, OutgoingHeaderValue>;
    // Every value of a repeated header is kept, in order; a header without a value (null) has none to keep.
    for (const [k, v] of Object.entries(msg.headers ?? {})) {
      if (typeof v === 'string' || Buffer.isBuffer(v)) headers[k] = v;
      else if (v !== undefined) {
        const values = v.filter((one) => one !== undefined && one !== null);
        if (values.length > 0) headers[k] = values;
      }
    }
    return {
      type: 'dead_letter',
      letter: {
        value: msg.value,
        key: msg.key,
        source: { topic, partition, offset: Number(msg.offset), reading },
        errorCode: code,
        errorMessage: message,
        headers,
      },
    };
  }
}
