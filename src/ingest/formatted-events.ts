// One record's events for destinations whose timestamp_format is not rfc3339: event_timestamp and the
// object's timestamp fields in that format (src/events/timestamp-format.ts). The router makes this only
// when such a destination matched, so destinations in the default format pay nothing for it.
import type { TrafficEventType } from '../events/catalog.js';
import { payloadTail, tailBeforeObject } from '../events/envelope.js';
import { formatAt, formatEventTime, formatObjectTimes } from '../events/timestamp-format.js';
import type { Projector } from '../projection/projector.js';
import type { DecodedRecord } from '../records/record-types.js';
import type { EventParts, PayloadParts } from './event-item.js';

export interface FormattedEvent {
  readonly payload: PayloadParts;
  readonly parts: EventParts;
}

export class FormattedEvents {
  private readonly made: { readonly project: Projector; readonly format: number; readonly event: FormattedEvent }[] = [];

  constructor(
    private readonly eventType: TrafficEventType,
    private readonly timestampMs: number,
    private readonly head: Buffer,
    private readonly recordDigits: Uint8Array,
    private readonly record: DecodedRecord,
  ) {}

  /** The event of one field set (its projector) in one format (formatIndex), made once per record. */
  get(project: Projector, format: number): FormattedEvent {
    const found = this.made.find((m) => m.project === project && m.format === format);
    if (found !== undefined) return found.event;
    const f = formatAt(format);
    const timestamp = formatEventTime(this.timestampMs, f);
    const object = formatObjectTimes(this.eventType, project(this.record), f);
    const event: FormattedEvent = {
      payload: { head: this.head, recordDigits: this.recordDigits, tail: payloadTail(tailBeforeObject(this.eventType, timestamp, 'null'), JSON.stringify(object)) },
      parts: { eventType: this.eventType, timestamp, principal: null, object: () => object },
    };
    this.made.push({ project, format, event });
    return event;
  }
}
