// Checks a subscription's destination_ids against the cap and the live view: each well-formed, unique,
// and naming an event destination of the subscription's own account (another account's is unknown).
import { accountOf, type AccountContext } from '../../accounts/account.js';
import type { StoredDestination } from '../../configlog/resources.js';
import { isId } from '../../ids.js';
import { ApiError } from '../errors.js';
import type { AdminStore } from '../store.js';
import { MAX_DESTINATIONS_PER_SUBSCRIPTION } from './limits.js';

export function checkDestinationIds(store: AdminStore, ids: readonly string[], acting: AccountContext): void {
  if (ids.length > MAX_DESTINATIONS_PER_SUBSCRIPTION) {
    throw new ApiError('too_many_items', { field: 'destination_ids', limit: MAX_DESTINATIONS_PER_SUBSCRIPTION, actual: ids.length });
  }
  const seen = new Set<string>();
  for (const [i, id] of ids.entries()) {
    const field = `destination_ids[${i}]`;
    if (!isId('event_destination', id)) throw new ApiError('invalid_id', { field, kind: 'event destination', value: id });
    if (seen.has(id)) throw new ApiError('duplicate_value', { field, value: id });
    seen.add(id);
    const d = store.get<StoredDestination>('event_destination', id);
    if (d === undefined || accountOf(d) !== acting.accountId) {
      throw new ApiError('unknown_reference', { field, kind: 'event destination', id });
    }
  }
}
