// A replay as the API returns it: its stored request, and its state and progress from the workers'
// checkpoints (src/replay/replay-record.ts replayStatus). The same object is the `object` of its audit events.
import { accountOf } from '../../accounts/account.js';
import { replayStatus, type ReplayStatus, type StoredReplay } from '../../replay/replay-record.js';
import { ref, type AdminContext } from '../context.js';
import type { Resource } from '../resource-routes.js';
import { subscriptionPath } from '../event-subscriptions/subscription-view.js';
import { replayCreate, replayResponse } from './replay-schemas.js';

export const replaysPath = (subscriptionId: string): string => `${subscriptionPath(subscriptionId)}/replays`;
export const replayPath = (r: Pick<StoredReplay, 'id' | 'subscription_id'>): string => `${replaysPath(r.subscription_id)}/${r.id}`;

const NO_REPORTS = new Map();

export function statusOf(ctx: AdminContext, r: StoredReplay): ReplayStatus {
  return ctx.replays?.status(r) ?? replayStatus(r, NO_REPORTS);
}

export function replayView(ctx: AdminContext, r: StoredReplay): Record<string, unknown> {
  const s = statusOf(ctx, r);
  return {
    id: r.id,
    uri: ctx.uri(replayPath(r)),
    account_id: accountOf(r),
    subscription: ref(ctx, '/event_subscriptions', r.subscription_id),
    created_at: r.created_at,
    description: r.description,
    metadata: r.metadata,
    state: s.state,
    from: r.from,
    to: r.to,
    destinations: r.destination_ids.map((id) => ref(ctx, '/event_destinations', id)),
    sources: [...r.sources],
    progress: { records_scanned: s.records_scanned, records_total: s.records_total, events_delivered: s.events_delivered, fraction: s.fraction, estimated_done_at: s.estimated_done_at },
    finished_at: s.finished_at,
    error: s.error,
  };
}

/** Replays as a resource of the config log: what account deletion and audit events need of them. */
export function replayResource(ctx: AdminContext): Resource<StoredReplay> {
  return {
    path: '/replays',
    kind: 'replay',
    name: 'replay',
    listKey: 'replays',
    tags: ['Replays'],
    schemas: { create: replayCreate, update: { type: 'object' }, response: replayResponse, immutable: [] },
    view: (r) => replayView(ctx, r),
    audit: 'replay',
  };
}
