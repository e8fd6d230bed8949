// The `status` of an event destination as the API answers it, and its schema: the workers' reports over
// all workers (src/delivery/status/), read-only, never part of the stored destination or its audit events.
import type { DestinationStatusSummary } from '../../delivery/status/status-aggregate.js';

import { orNull, type Schema } from '../schemas.js';

export interface DestinationStatusView {
  readonly state: DestinationStatusSummary['state'];
  readonly last_delivered_at: string | null;
  readonly last_error: { readonly code: string; readonly message: string; readonly at: string } | null;
  readonly parked_events: number;
  readonly oldest_parked_at: string | null;
  readonly stalled_since: string | null;
}

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

export function destinationStatusView(s: DestinationStatusSummary): DestinationStatusView {
  return {
    state: s.state,
    last_delivered_at: iso(s.lastDeliveredAt),
    last_error: s.lastError === undefined ? null : { code: s.lastError.code, message: s.lastError.message, at: new Date(s.lastError.at).toISOString() },
    parked_events: s.parkedEvents,
    oldest_parked_at: iso(s.oldestParkedAt),
    stalled_since: iso(s.stalledSince),
  };
}

const time = (description: string): Schema => ({ type: ['string', 'null'], format: 'date-time', description });

export const destinationStatusSchema: Schema = {
  type: 'object',
  additionalProperties: false,
  readOnly: true,
  required: ['state', 'last_delivered_at', 'last_error', 'parked_events', 'oldest_parked_at', 'stalled_since'],
  description:
    'Read-only: how deliveries to this destination go, over all workers, as they report it within a second or two of a change.',
  properties: {
    state: {
      type: 'string',
      enum: ['unknown', 'ok', 'failing', 'parked'],
      description:
        'unknown: no running worker has tried it yet (since its target last changed); ok: the last attempt delivered; failing: the last attempt, or the check at a worker\'s start, failed; parked: its deliveries are being parked in its retry topic. With several workers, the worst state among those that tried it in the last minute.',
    },
    last_delivered_at: time('When a worker last delivered to it, or null.'),
    last_error: orNull(
      {
        title: 'DestinationStatusError',
        type: 'object',
        additionalProperties: false,
        required: ['code', 'message', 'at'],
        properties: {
        code: { type: 'string', description: 'A delivery error code, e.g. DESTINATION_UNREACHABLE or DESTINATION_MISCONFIGURED.' },
        message: { type: 'string', description: "The destination's own answer where there is one; never a secret." },
        at: { type: 'string', format: 'date-time' },
        },
      },
      'The latest failure any worker saw, or null. It stays after a recovery; compare at with last_delivered_at.',
    ),
    parked_events: { type: 'integer', minimum: 0, description: 'Deliveries waiting in its retry topic to be re-driven.' },
    oldest_parked_at: time('When the oldest of them was parked, or null when none wait.'),
    stalled_since: time(
      'When a worker read the oldest event that has waited for this destination longer than the service allows (5 minutes unless the operator set another time), or null when none has. Until it is delivered, parked or dead-lettered, its partition commits nothing past it, and the events behind it wait.',
    ),
  },
};
