// An event subscription as the API returns it (its payload in docs/events.md): absolute uris, sources with their own uri,
// destinations as refs. The same object is the `object` of its audit events.
import { accountOf } from '../../accounts/account.js';
import type { StoredSource, StoredSubscription } from '../../configlog/resources.js';
import { ref, type AdminContext } from '../context.js';

export interface SourceView {
  readonly type: string;
  /** Traffic types: the selected fields. Audit types: always empty. */
  readonly fields: readonly string[];
  /** The CEL filter, or "" when the source has none (always "" for audit types). */
  readonly filter: string;
  /** The share of matches delivered; 1 when every match is (always for audit types). */
  readonly sample_rate: number;
  readonly uri: string;
}

export interface SubscriptionView {
  readonly id: string;
  readonly uri: string;
  readonly account_id: string;
  readonly created_at: string;
  readonly metadata: string;
  readonly description: string;
  readonly sources: readonly SourceView[];
  readonly destinations: readonly { readonly id: string; readonly uri: string }[];
  /** False while paused. */
  readonly enabled: boolean;
}

export const subscriptionPath = (id: string): string => `/event_subscriptions/${id}`;
export const sourcesPath = (id: string): string => `${subscriptionPath(id)}/sources`;
export const sourcePath = (id: string, type: string): string => `${sourcesPath(id)}/${encodeURIComponent(type)}`;

export function sourceView(ctx: AdminContext, subscriptionId: string, source: StoredSource): SourceView {
  return {
    type: source.type,
    fields: [...(source.fields ?? [])],
    filter: source.filter ?? '',
    sample_rate: source.sample_rate ?? 1,
    uri: ctx.uri(sourcePath(subscriptionId, source.type)),
  };
}

export function subscriptionView(ctx: AdminContext, sub: StoredSubscription): SubscriptionView {
  return {
    id: sub.id,
    uri: ctx.uri(subscriptionPath(sub.id)),
    account_id: accountOf(sub),
    created_at: sub.created_at,
    metadata: sub.metadata,
    description: sub.description,
    sources: sub.sources.map((s) => sourceView(ctx, sub.id, s)),
    destinations: sub.destination_ids.map((id) => ref(ctx, '/event_destinations', id)),
    enabled: sub.enabled !== false,
  };
}
