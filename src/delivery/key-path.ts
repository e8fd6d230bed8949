// Message keys from envelope fields: a destination may key its records by a dotted path into the
// envelope (KEY_PATH_EXAMPLE); the default key is the event id.
import { EXAMPLE_FIELDS } from '../events/catalog.js';
import type { DeliveryItem } from './contract.js';

export const KEY_PATH_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** A key path to show in docs and error messages: a field of the envelope's object. */
export const KEY_PATH_EXAMPLE = `object.${EXAMPLE_FIELDS.key}`;

export type KeyOf = (item: DeliveryItem) => string;

const byEventId: KeyOf = (item) => item.eventId;

/**
 * Compiles a key path once. A missing or null value falls back to the event id, so every record has a
 * key; non-string values are keyed by their JSON text.
 */
/** True when the path keys records by the event id (the default). */
export function isEventIdKey(path: string | undefined): path is undefined | '' | 'event_id' {
  return path === undefined || path === '' || path === 'event_id';
}

export function compileKeyPath(path: string | undefined): KeyOf {
  if (isEventIdKey(path)) return byEventId;
  const parts = path.split('.');
  return (item) => {
    // Items re-read from a topic carry only the payload; parsing it is the rare path.
    let value: unknown = item.envelope ?? JSON.parse(item.payload.toString('utf8'));
    for (const part of parts) {
      if (value === null || typeof value !== 'object') return item.eventId;
      value = (value as Record<string, unknown>)[part];
    }
    if (value === undefined || value === null) return item.eventId;
    return typeof value === 'string' ? value : JSON.stringify(value);
  };
}
