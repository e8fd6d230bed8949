// An event destination as the API returns it. Secret fields are write-only: they are answered as null,
// whether set or not, and this object is also the `object` of its audit events (the status is added to
// answers only, by destination-routes.ts).
import { accountContext, accountOf } from '../../accounts/account.js';
import type { StoredDestination } from '../../configlog/resources.js';
import { targetView } from '../../delivery/destination-target.js';
import { DEFAULT_TIMESTAMP_FORMAT, type TimestampFormat } from '../../events/timestamp-format.js';
import { baseView, type AdminContext } from '../context.js';

export interface DestinationView {
  readonly id: string;
  readonly uri: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
  readonly format: 'json';
  readonly timestamp_format: TimestampFormat;
  readonly target: Readonly<Record<string, unknown>>;
}

export function destinationView(ctx: AdminContext, dest: StoredDestination): DestinationView {
  return {
    ...baseView(ctx, '/event_destinations', dest),
    format: 'json',
    timestamp_format: dest.timestamp_format ?? DEFAULT_TIMESTAMP_FORMAT,
    target: targetView(dest.target, { fileRoot: ctx.config.fileDestinationRoot, account: accountContext(accountOf(dest)) }),
  };
}
