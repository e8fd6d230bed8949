// The hot path for one consumed record: decode the filterable fields, match subscriptions, decode the
// rest only on a match, project once per distinct field set, serialize once, and list the deliveries:
// one per (destination, payload), however many subscriptions lead there.
import type { DeliveryItem, SourceRef } from '../delivery/contract.js';
import type { DeadLetter } from '../delivery/dead-letter.js';
import type { Envelope } from '../events/envelope.js';
import type { TrafficEventType } from '../events/catalog.js';
import { eventIdFor } from '../ids.js';
import type { AuditDecoder } from '../records/audit-decoder.js';
import type { RecordDecoder } from '../records/record-decoder.js';
import type { HeaderValue } from '../records/record-types.js';
import type { LeafJsonCache, Projector } from '../projection/projector.js';
import type { DecodedRecord } from '../records/record-types.js';
import type { SubscriptionSet, TrafficRoute } from '../subscriptions/subscription-set.js';
import { decodeFailures, subscriptionMatches } from '../telemetry/metrics.js';

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
  | { readonly type: 'deliver'; readonly deliveries: readonly Delivery[] }
  | { readonly type: 'dead_letter'; readonly letter: DeadLetter };

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
}

/**
 * A traffic delivery: the payload is written at once; the envelope object only when a writer reads it
 * (a kafka key path, a log timestamp). Most writers send the payload bytes and never do.
 */
class TrafficItem implements DeliveryItem {
  private built: Envelope | undefined;
  /** The destinations (their TrafficRoute.destinationNumbers) this item is already listed for: the first, then the rest. */
  private firstListed = -1;
  private moreListed: number[] | undefined;

  constructor(
    readonly eventId: string,
    readonly payload: Buffer,
    readonly source: SourceRef,
    private readonly eventType: TrafficEventType,
    private readonly timestamp: string,
    private readonly project: Projector,
    private readonly record: DecodedRecord,
  ) {}

  /**
   * True the first time a destination asks for this item: two subscriptions of the same field set
   * that share a destination would send it the same bytes under the same event id twice.
   */
  listFor(destination: number): boolean {
    if (this.firstListed < 0) {
      this.firstListed = destination;
      return true;
    }
    if (this.firstListed === destination) return false;
    const more = (this.moreListed ??= []);
    for (let i = 0; i < more.length; i++) if (more[i] === destination) return false;
    more.push(destination);
    return true;
  }

  get envelope(): Envelope {
    this.built ??= { event_id: this.eventId, event_type: this.eventType, event_timestamp: this.timestamp, principal: null, object: this.project(this.record) };
    return this.built;
  }
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

  /** Adds the matches counted so far to edge_subscription_matches_total; the worker calls it after each batch. */
  flushMetrics(): void {
    const routes = this.counted;
    this.counted = [];
    this.routedSinceFlush = 0;
    for (const route of routes) {
      subscriptionMatches.inc({ subscription: route.subscriptionId }, route.unflushedMatches);
      route.unflushedMatches = 0;
    }
  }

  isSubscribedTopic(topic: string): boolean {
    return this.opts.trafficTopics.has(topic) || topic === this.opts.auditTopic;
  }

  route(topic: string, partition: number, msg: ConsumedMessage): RouteResult {
    if (++this.routedSinceFlush >= METRICS_FLUSH_EVERY) this.flushMetrics();
    const eventType = this.opts.trafficTopics.get(topic);
    if (eventType !== undefined) return this.routeTraffic(eventType, topic, partition, msg);
    if (topic === this.opts.auditTopic) return this.routeAudit(topic, partition, msg);
    return NOTHING;
  }

  private routeTraffic(eventType: TrafficEventType, topic: string, partition: number, msg: ConsumedMessage): RouteResult {
    const decoded = this.opts.decoder.decodeFilterable(eventType, msg);
    if (!decoded.ok) return this.reject(topic, partition, msg, decoded.code, decoded.message);
    const runs = this.opts.subscriptions.matcher(eventType).matchRuns(decoded.filterable);
    if (runs.length === 0) return NOTHING;
    const full = decoded.full();
    if (!full.ok) return this.reject(topic, partition, msg, full.code, full.message);

    const source = { topic, partition, offset: Number(msg.offset) };
    const eventId = eventIdFor(Number(msg.timestamp), topic, partition, msg.offset);
    const timestamp = new Date(Number(msg.timestamp)).toISOString();
    // The envelope's JSON up to its object, the same for every field set: JSON.stringify(envelope) with
    // the key order of Envelope, written once a record instead of once per distinct projection.
    const head = `{"event_id":${JSON.stringify(eventId)},"event_type":${JSON.stringify(eventType)},"event_timestamp":"${timestamp}","principal":null,"object":`;
    // Equal field sets share one projector function (projector.ts), so the projector identifies the
    // payload. A record meets a handful of distinct field sets even at 10,000 subscriptions, and a scan
    // of a short array beats hashing long projection keys in a Map.
    const projectors: Projector[] = [];
    const items: TrafficItem[] = [];
    const leafJson: LeafJsonCache = [];
    const deliveries: Delivery[] = [];
    for (let r = 0; r < runs.length; r++) {
      const run = runs[r] as readonly TrafficRoute[];
      for (let m = 0; m < run.length; m++) {
        const route = run[m] as TrafficRoute;
        if (route.unflushedMatches++ === 0) this.counted.push(route);
        const k = projectors.indexOf(route.project);
        let item = k < 0 ? undefined : items[k];
        if (item === undefined) {
          const payload = Buffer.from(`${head}${route.project.serialize(full.record, leafJson)}}`);
          item = new TrafficItem(eventId, payload, source, eventType, timestamp, route.project, full.record);
          projectors.push(route.project);
          items.push(item);
        }
        const destinationIds = route.destinationIds;
        const numbers = route.destinationNumbers;
        for (let d = 0; d < destinationIds.length; d++) {
          if (item.listFor(numbers[d] as number)) deliveries.push({ destinationId: destinationIds[d] as string, item });
        }
      }
    }
    return { type: 'deliver', deliveries };
  }

  private routeAudit(topic: string, partition: number, msg: ConsumedMessage): RouteResult {
    const decoded = this.opts.auditDecoder.decode(msg);
    if (!decoded.ok) return this.reject(topic, partition, msg, decoded.code, decoded.message);
    const envelope = decoded.event as unknown as Envelope;
    let item: DeliveryItem | undefined;
    const deliveries: Delivery[] = [];
    for (const route of this.opts.subscriptions.auditRoutes(envelope.event_type)) {
      subscriptionMatches.inc({ subscription: route.subscriptionId });
      // The admin API's envelope is delivered as written: the same event id and bytes everywhere.
      item ??= { eventId: envelope.event_id, payload: msg.value as Buffer, envelope, source: { topic, partition, offset: Number(msg.offset) } };
      for (const destinationId of route.destinationIds) {
        // One copy per destination, however many of its subscriptions take this audit event type.
        if (!deliveries.some((d) => d.destinationId === destinationId)) deliveries.push({ destinationId, item });
      }
    }
    return { type: 'deliver', deliveries };
  }

  private reject(topic: string, partition: number, msg: ConsumedMessage, code: string, message: string): RouteResult {
    decodeFailures.inc({ topic, code });
    const headers: Record<string, string | Buffer> = {};
    for (const [k, v] of Object.entries(msg.headers ?? {})) {
      if (typeof v === 'string' || Buffer.isBuffer(v)) headers[k] = v;
    }
    return {
      type: 'dead_letter',
      letter: {
        value: msg.value,
        key: msg.key,
        source: { topic, partition, offset: Number(msg.offset) },
        errorCode: code,
        errorMessage: message,
        headers,
      },
    };
  }
}
