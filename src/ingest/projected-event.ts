// The envelope parts a record's deliveries with one field set and timestamp format share, for writers
// that need the envelope as an object (event-item.ts): the payload bytes are written without decoding
// the record, so it is decoded, projected and its times converted only when a writer asks.
import type { TrafficEventType } from '../events/catalog.js';
import { DEFAULT_TIMESTAMP_FORMAT, formatEventTime, formatObjectTimes, type TimestampFormat } from '../events/timestamp-format.js';
import type { Projector } from '../projection/projector.js';
import type { FilterableDecoded } from '../records/record-types.js';
import { formatMillis } from '../records/timestamps.js';
import type { EventParts } from './event-item.js';

export class ProjectedEvent implements EventParts {
  readonly principal = null;
  private projected: Record<string, unknown> | undefined;

  constructor(
    readonly eventType: TrafficEventType,
    private readonly timestampMs: number,
    private readonly format: TimestampFormat,
    private readonly project: Projector,
    private readonly decoded: FilterableDecoded,
  ) {}

  get timestamp(): string | number {
    // formatMillis writes rfc3339's text (Date's toISOString) several times faster.
    return this.format === DEFAULT_TIMESTAMP_FORMAT ? formatMillis(this.timestampMs) : formatEventTime(this.timestampMs, this.format);
  }

  object(): Record<string, unknown> {
    if (this.projected === undefined) {
      const full = this.decoded.full();
      if (!full.ok) throw new Error(`A validated record failed to decode: ${full.message}`);
      this.projected = formatObjectTimes(this.eventType, this.project(full.record), this.format);
    }
    return this.projected;
  }
}
