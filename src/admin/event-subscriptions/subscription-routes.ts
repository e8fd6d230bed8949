// /event_subscriptions: create, list, get, update, delete. Sources are validated against the event
// catalogue and compiled by the filter engine before anything is written; destinations must exist.
import type { FastifyInstance } from 'fastify';
import { accountOf, type AccountContext } from '../../accounts/account.js';
import type { StoredSource, StoredSubscription } from '../../configlog/resources.js';
import type { AdminContext } from '../context.js';
import type { ApiError } from '../errors.js';
import { registerResourceRoutes, resourceStore, type BaseFields, type Resource } from '../resource-routes.js';
import type { StoredReplay } from '../../replay/replay-record.js';
import { replayResource } from '../replays/replay-view.js';
import { checkDestinationIds } from './destination-refs.js';
import { checkAccountFilterCost, sourcesCost } from './filter-cost.js';
import { sourcesProblem, validateSources, type SourceInput } from './source-input.js';
import { SUBSCRIPTION_RULES, SUBSCRIPTION_SCHEMAS } from './subscription-schemas.js';
import { subscriptionView } from './subscription-view.js';

interface SubscriptionBody {
  description?: string;
  metadata?: string;
  sources?: SourceInput[];
  destination_ids?: string[];
  enabled?: boolean;
}

/** Event subscriptions as a resource; their sources sub-resource (source-routes.ts) shares it. */
export function subscriptionResource(ctx: AdminContext): Resource<StoredSubscription> {
  return {
    path: '/event_subscriptions',
    kind: 'event_subscription',
    name: 'event subscription',
    listKey: 'event_subscriptions',
    tags: ['Event subscriptions'],
    schemas: SUBSCRIPTION_SCHEMAS,
    view: (s) => ({ ...subscriptionView(ctx, s) }),
    audit: 'event_subscription',
    textUnit: 'characters',
  };
}

function sources(inputs: readonly SourceInput[]): StoredSource[] {
  const r = validateSources(inputs);
  if (!r.ok) throw r.error;
  return r.sources;
}

export function registerEventSubscriptionRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const build = (body: SubscriptionBody, base: BaseFields, checked: StoredSource[], acting: AccountContext): StoredSubscription => {
    const destinationIds = [...(body.destination_ids ?? [])];
    checkDestinationIds(store, destinationIds, acting);
    const built = { ...base, sources: checked, destination_ids: destinationIds, enabled: body.enabled ?? true };
    checkAccountFilterCost(ctx, accountOf(built), sourcesCost(checked));
    return built;
  };
  const apply = (s: StoredSubscription, body: SubscriptionBody, checked: StoredSource[] | undefined, acting: AccountContext): StoredSubscription => {
    const updated = {
      ...s,
      sources: checked ?? s.sources,
      destination_ids: body.destination_ids === undefined ? s.destination_ids : [...body.destination_ids],
      enabled: body.enabled ?? s.enabled !== false,
    };
    if (body.destination_ids !== undefined) checkDestinationIds(store, updated.destination_ids, acting);
    if (checked !== undefined) checkAccountFilterCost(ctx, accountOf(updated), sourcesCost(checked), s.id);
    return updated;
  };

  /** Why sources the schema refused are wrong, in the catalogue's words (the first problem), when it sees one. */
  const explain = (body: unknown, at: string): ApiError | undefined =>
    at.startsWith('/sources') ? sourcesProblem((body as SubscriptionBody | undefined)?.sources) : undefined;

  const changedSources = (body: SubscriptionBody): StoredSource[] | undefined => (body.sources === undefined ? undefined : sources(body.sources));

  registerResourceRoutes(app, ctx, subscriptionResource(ctx), {
    create: {
      summary: 'Create an event subscription.',
      description: 'The new subscription.',
      rules: SUBSCRIPTION_RULES,
      explain,
      prepare: (body: SubscriptionBody) => sources(body.sources ?? []),
      build,
      links: {
        listEventSources: { operationId: 'listEventSources', parameters: { id: '$response.body#/id' } },
        addEventSource: { operationId: 'addEventSource', parameters: { id: '$response.body#/id' } },
      },
    },
    list: ['List event subscriptions, newest first.', 'A page of event subscriptions.'],
    get: ['Get an event subscription.', 'The subscription.'],
    update: {
      summary: 'Update an event subscription; sources and destination_ids, when sent, replace the lists.',
      description: 'The updated subscription.',
      rules: SUBSCRIPTION_RULES,
      explain,
      prepare: changedSources,
      apply,
    },
    remove: {
      summary: "Delete an event subscription, and its replays (a running one stops).",
      cascade: (s) => {
        const replays = resourceStore(ctx, replayResource(ctx));
        const own = store.all<StoredReplay>('replay').filter((r) => r.subscription_id === s.id);
        return { writes: own.map((r) => ({ kind: 'replay' as const, id: r.id, data: null })), audits: own.flatMap((r) => replays.audits('deleted', r)) };
      },
    },
  });
}
