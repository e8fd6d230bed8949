// The delivered event envelope (ARCHITECTURE.md "Delivered envelope"): the one shape every destination receives.
import { newId } from '../ids.js';

export interface Principal {
  readonly type: 'api_key';
  readonly id: string;
  readonly uri: string;
}

export interface Envelope {
  readonly event_id: string;
  readonly event_type: string;
  /** RFC 3339. */
  readonly event_timestamp: string;
  readonly principal: Principal | null;
  /** Traffic: only the selected fields, nested by dotted path. Audit: the resource as the API returns it. */
  readonly object: Record<string, unknown>;
}

export function makeEnvelope(
  eventType: string,
  object: Record<string, unknown>,
  opts: { timestamp?: Date; principal?: Principal | null; eventId?: string } = {},
): Envelope {
  return {
    event_id: opts.eventId ?? newId('event'),
    event_type: eventType,
    event_timestamp: (opts.timestamp ?? new Date()).toISOString(),
    principal: opts.principal ?? null,
    object,
  };
}
