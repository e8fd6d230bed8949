// A delivery of one event to one destination: its own event id over the parts every delivery of the
// same record and object shares. Its payload bytes are written once, where they are needed.
import type { DeliveryItem, SourceRef } from '../delivery/contract.js';
import { EVENT_ID_LENGTH, PAYLOAD_ID_AT, buildPayload, payloadLength, writePayload, type Envelope, type Principal } from '../events/envelope.js';

const NO_TAIL = Buffer.alloc(0);
const ID_SCRATCH = Buffer.alloc(PAYLOAD_ID_AT + EVENT_ID_LENGTH);

/** What the deliveries of one record with one object share. */
export interface EventParts {
  readonly eventType: string;
  /** RFC 3339, or as the destination's timestamp_format writes it. */
  readonly timestamp: string | number;
  readonly principal: Principal | null;
  /** The envelope's object; built on the first call where that costs work (a projection). */
  object(): Record<string, unknown>;
}

/**
 * The subscription a delivery was matched for and its id digits, 16 per destination (ids.ts): the
 * router's route (TrafficRoute, AuditRoute), held by reference, so an item costs no field more for it.
 */
export interface MatchedRoute {
  readonly subscriptionId: string;
  readonly idDigits: Uint8Array;
}

/** The bytes every payload of one record and object is made of (envelope.ts, buildPayload). */
export interface PayloadParts {
  readonly head: Buffer;
  readonly recordDigits: Uint8Array;
  readonly tail: Buffer;
}

/**
 * The payload is the record's head, this delivery's 16 id digits (the record's XOR its subscription and
 * destination's) and the shared tail. At 10,000 subscriptions a record makes about 90 deliveries of
 * about 560 bytes: building each payload when the record is routed made the route two to three times
 * slower, most of it in garbage collections the allocated bytes set off (bench/results/PROFILE.md). So
 * the bytes are written only when read: straight into an http or file writer's request body
 * (writePayload), or as a buffer of their own for the writers that send one per event (payload, kept).
 * The event id and the envelope object are likewise made only when a writer reads them.
 */
export class EventItem implements DeliveryItem {
  readonly size: number;
  private bytes: Buffer | undefined;
  private id: string | undefined;
  private built: Envelope | undefined;

  constructor(
    private readonly payloadParts: PayloadParts,
    private readonly route: MatchedRoute,
    private readonly pairAt: number,
    readonly source: SourceRef,
    private readonly parts: EventParts,
  ) {
    this.size = payloadLength(payloadParts.tail);
  }

  get payload(): Buffer {
    const p = this.payloadParts;
    this.bytes ??= buildPayload(p.head, p.recordDigits, this.route.idDigits, this.pairAt, p.tail);
    return this.bytes;
  }

  writePayload(target: Buffer, at: number): number {
    if (this.bytes !== undefined) return this.bytes.copy(target, at);
    const p = this.payloadParts;
    return writePayload(target, at, p.head, p.recordDigits, this.route.idDigits, this.pairAt, p.tail);
  }

  get subscriptionId(): string {
    return this.route.subscriptionId;
  }

  get eventId(): string {
    if (this.id === undefined) {
      // The payload up to the end of the id, written without the tail.
      const p = this.payloadParts;
      writePayload(ID_SCRATCH, 0, p.head, p.recordDigits, this.route.idDigits, this.pairAt, NO_TAIL);
      this.id = ID_SCRATCH.toString('latin1', PAYLOAD_ID_AT, PAYLOAD_ID_AT + EVENT_ID_LENGTH);
    }
    return this.id;
  }

  get envelope(): Envelope {
    const p = this.parts;
    this.built ??= { event_id: this.eventId, event_type: p.eventType, event_timestamp: p.timestamp, principal: p.principal, object: p.object() };
    return this.built;
  }
}
