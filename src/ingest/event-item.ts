// A delivery of one event to one destination: its own payload (and so its own event id) over the parts
// every delivery of the same record and object shares.
import type { DeliveryItem, SourceRef } from '../delivery/contract.js';
import { eventIdOfPayload, type Envelope, type Principal } from '../events/envelope.js';

/** What the deliveries of one record with one object share. */
export interface EventParts {
  readonly eventType: string;
  /** RFC 3339. */
  readonly timestamp: string;
  readonly principal: Principal | null;
  /** The envelope's object; built on the first call where that costs work (a projection). */
  object(): Record<string, unknown>;
}

/**
 * The payload is written when the delivery is made; the event id and the envelope object only when a
 * writer reads them (a kafka key, a log timestamp). Most writers send the payload bytes and never do.
 */
export class EventItem implements DeliveryItem {
  private id: string | undefined;
  private built: Envelope | undefined;

  constructor(
    readonly payload: Buffer,
    readonly source: SourceRef,
    private readonly parts: EventParts,
  ) {}

  get eventId(): string {
    this.id ??= eventIdOfPayload(this.payload);
    return this.id;
  }

  get envelope(): Envelope {
    const p = this.parts;
    this.built ??= { event_id: this.eventId, event_type: p.eventType, event_timestamp: p.timestamp, principal: p.principal, object: p.object() };
    return this.built;
  }
}
