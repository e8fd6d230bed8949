// The hot path for one consumed record: decode the filterable fields, match subscriptions, decode the
// rest only on a match, project once per distinct field set, serialize once, and list the deliveries.
import type { DeliveryItem } from '../delivery/contract.js';
import type { DeadLetter } from '../delivery/dead-letter.js';
import type { Envelope } from '../events/envelope.js';
import type { TrafficEventType } from '../events/catalog.js';
import { eventIdFor } from '../ids.js';
import type { AuditDecoder } from '../records/audit-decoder.js';
import type { RecordDecoder } from '../records/record-decoder.js';
import type { HeaderValue } from '../records/record-types.js';
import type { SubscriptionSet } from '../subscriptions/subscription-set.js';
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

export interface RecordRouterOptions {
  readonly subscriptions: SubscriptionSet;
  readonly decoder: RecordDecoder;
  readonly auditDecoder: AuditDecoder;
  /** Raw traffic topic -> the event type it carries. */
  readonly trafficTopics: ReadonlyMap<string, TrafficEventType>;
  readonly auditTopic: string;
}

export class RecordRouter {
  constructor(private readonly opts: RecordRouterOptions) {}

  isSubscribedTopic(topic: string): boolean {
    return this.opts.trafficTopics.has(topic) || topic === this.opts.auditTopic;
  }

  route(topic: string, partition: number, msg: ConsumedMessage): RouteResult {
    const eventType = this.opts.trafficTopics.get(topic);
    if (eventType !== undefined) return this.routeTraffic(eventType, topic, partition, msg);
    if (topic === this.opts.auditTopic) return this.routeAudit(topic, partition, msg);
    return NOTHING;
  }

  private routeTraffic(eventType: TrafficEventType, topic: string, partition: number, msg: ConsumedMessage): RouteResult {
    const decoded = this.opts.decoder.decodeFilterable(eventType, msg);
    if (!decoded.ok) return this.reject(topic, partition, msg, decoded.code, decoded.message);
    const subs = this.opts.subscriptions;
    const ids = subs.matcher(eventType).match(decoded.filterable);
    if (ids.length === 0) return NOTHING;
    const full = decoded.full();
    if (!full.ok) return this.reject(topic, partition, msg, full.code, full.message);

    const source = { topic, partition, offset: Number(msg.offset) };
    const eventId = eventIdFor(Number(msg.timestamp), topic, partition, msg.offset);
    const timestamp = new Date(Number(msg.timestamp)).toISOString();
    const items = new Map<string, DeliveryItem>();
    const deliveries: Delivery[] = [];
    for (const id of ids) {
      const route = subs.route(eventType, id);
      if (route === undefined) continue;
      subscriptionMatches.inc({ subscription: id });
      let item = items.get(route.projectionKey);
      if (item === undefined) {
        const envelope: Envelope = {
          event_id: eventId,
          event_type: eventType,
          event_timestamp: timestamp,
          principal: null,
          object: route.project(full.record),
        };
        item = { eventId, payload: Buffer.from(JSON.stringify(envelope)), envelope, source };
        items.set(route.projectionKey, item);
      }
      for (const destinationId of route.destinationIds) deliveries.push({ destinationId, item });
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
      for (const destinationId of route.destinationIds) deliveries.push({ destinationId, item });
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
