// One record's events for destinations whose timestamp_format is not rfc3339: event_timestamp and the
// object's timestamp fields in that format (src/events/timestamp-format.ts). The router makes this only
// when such a destination matched, so destinations in the default format pay nothing for it. An Avro
// record is projected from its bytes in the format (avro-projection.ts TIMESTAMP_WRITERS); a JSON record,
// or a field set without a byte projection, from the decoded record with its times converted.
import type { TrafficEventType } from '../events/catalog.js';
import { payloadTail, tailBeforeObject } from '../events/envelope.js';
import { formatAt, formatEventTime, formatObjectTimes } from '../events/timestamp-format.js';
import { avroProjections, projectedTail } from '../projection/avro-projection.js';
import type { Projector } from '../projection/projector.js';
import type { DecodeFailure } from '../records/errors.js';
import type { FilterableDecoded } from '../records/record-types.js';
import type { EventParts, PayloadParts } from './event-item.js';
import { ProjectedEvent } from './projected-event.js';

export interface FormattedEvent {
  readonly ok: true;
  readonly payload: PayloadParts;
  readonly parts: EventParts;
}

export class FormattedEvents {
  private readonly made: { readonly project: Projector; readonly format: number; readonly event: FormattedEvent }[] = [];

  /** `starts`: the Avro record's leaf starts (AvroCodec.leafStarts), undefined when it is projected from its decoded form. */
  constructor(
    private readonly eventType: TrafficEventType,
    private readonly timestampMs: number,
    private readonly head: Buffer,
    private readonly recordDigits: Uint8Array,
    private readonly decoded: FilterableDecoded,
    private readonly starts: Int32Array | undefined,
  ) {}

  /**
   * The event of one field set (its projector and projection key) in one format (formatIndex), made once
   * per record; the full decode's failure when the record had to be decoded and could not be.
   */
  get(project: Projector, projectionKey: string, format: number): FormattedEvent | DecodeFailure {
    const found = this.made.find((m) => m.project === project && m.format === format);
    if (found !== undefined) return found.event;
    const f = formatAt(format);
    const timestamp = formatEventTime(this.timestampMs, f);
    const avro = this.decoded.avro;
    const byteProjection = avro === undefined || this.starts === undefined ? undefined : avroProjections(avro.codec, f).get(projectionKey);
    let tail: Buffer;
    if (byteProjection !== undefined && avro !== undefined && this.starts !== undefined) {
      tail = projectedTail(this.eventType, this.timestampMs, byteProjection, avro.buf, avro.pos, this.starts);
    } else {
      const full = this.decoded.full();
      if (!full.ok) return full;
      tail = payloadTail(tailBeforeObject(this.eventType, timestamp, 'null'), JSON.stringify(formatObjectTimes(this.eventType, project(full.record), f)));
    }
    const event: FormattedEvent = {
      ok: true,
      payload: { head: this.head, recordDigits: this.recordDigits, tail },
      parts: new ProjectedEvent(this.eventType, this.timestampMs, f, project, this.decoded),
    };
    this.made.push({ project, format, event });
    return event;
  }
}
