// /event_subscriptions/{id}/sources and /event_subscriptions/{id}/sources/{type}: one subscription's sources,
// keyed by their event type. Every change rewrites the subscription and emits event_subscription_updated.v0.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { accountOf } from '../../accounts/account.js';
import type { StoredSource, StoredSubscription } from '../../configlog/resources.js';
import { accountOfRequest, principalOf, type AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { resourceStore } from '../resource-routes.js';
import { partsOf, route, type Link, type RouteSpec } from '../route.js';
import { idParams, noContent } from '../schemas.js';
import { checkAccountFilterCost, sourcesCost } from './filter-cost.js';
import { MAX_SOURCES_PER_SUBSCRIPTION } from './limits.js';
import { sourceProblem, validateSource, type SourceInput } from './source-input.js';
import { SOURCE_RULES, SOURCE_UPDATE_RULES, sourceListSchema, sourceParams, sourceRequest, sourceResponse, sourceUpdateBody } from './subscription-schemas.js';
import { subscriptionResource } from './subscription-routes.js';
import { sourceView, sourcesPath } from './subscription-view.js';

interface SourceParams {
  id: string;
  type: string;
}
interface SourceUpdate {
  fields?: string[] | null;
  filter?: string | null;
  sample_rate?: number | null;
}

/** From a source just added: read, change or remove it. */
const SOURCE_LINKS: Readonly<Record<string, Link>> = Object.fromEntries(
  ['getEventSource', 'updateEventSource', 'deleteEventSource'].map((op) => [op, { operationId: op, parameters: { id: '$request.path.id', type: '$response.body#/type' } }]),
);


function checked(input: SourceInput): StoredSource {
  const r = validateSource(input);
  if (!r.ok) throw r.error;
  return r.source;
}

export function registerEventSourceRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const subscriptions = subscriptionResource(ctx);
  const { find, audits } = resourceStore(ctx, subscriptions);
  const { tags } = subscriptions;
  const findSource = (s: StoredSubscription, type: string): StoredSource => {
    const source = s.sources.find((x) => x.type === type);
    if (source === undefined) throw new ApiError('source_not_found', { subscription_id: s.id, type });
    return source;
  };
  /** Writes the subscription with its new sources and the audit event, alone among this replica's writers. */
  const rewrite = (req: FastifyRequest, id: string, change: (s: StoredSubscription) => StoredSource[]): Promise<StoredSubscription> =>
    store.exclusive(async () => {
      const s = find(accountOfRequest(req), id);
      const updated: StoredSubscription = { ...s, sources: change(s) };
      checkAccountFilterCost(ctx, accountOf(s), sourcesCost(updated.sources), s.id);
      await store.commit([{ kind: 'event_subscription', id: updated.id, data: updated }], audits('updated', updated), principalOf(req));
      return updated;
    });
  const list = '/event_subscriptions/:id/sources';
  const one = `${list}/:type`;

  const params = idParams('event_subscription', 'event subscription');
  route(app, 'GET', list, { operationId: 'listEventSources', tags, summary: "List a subscription's sources.", params, ok: [200, sourceListSchema], errors: [404] }, async (req) => {
    const s = find(accountOfRequest(req), partsOf(req).params.id);
    return { sources: s.sources.map((x) => sourceView(ctx, s.id, x)), uri: ctx.uri(sourcesPath(s.id)), next_page_uri: null };
  });

  const add: RouteSpec = {
    operationId: 'addEventSource',
    tags,
    summary: 'Add a source to a subscription; its type must not be there yet.',
    params,
    body: sourceRequest,
    ok: [201, { description: 'The new source.', ...sourceResponse }],
    errors: [404, 409],
    rules: [...SOURCE_RULES, { code: 'too_many_items', rule: `a subscription has at most ${MAX_SOURCES_PER_SUBSCRIPTION} sources` }],
    explain: sourceProblem,
    links: SOURCE_LINKS,
  };
  route(app, 'POST', list, add, async (req, reply) => {
    const { body, params } = partsOf<SourceInput>(req);
    const source = checked(body);
    const s = await rewrite(req, params.id, (sub) => {
      if (sub.sources.some((x) => x.type === source.type)) throw new ApiError('source_exists', { subscription_id: sub.id, type: source.type });
      if (sub.sources.length >= MAX_SOURCES_PER_SUBSCRIPTION) {
        throw new ApiError('too_many_items', { field: 'sources', limit: MAX_SOURCES_PER_SUBSCRIPTION, actual: sub.sources.length + 1 });
      }
      return [...sub.sources, source];
    });
    return reply.code(201).send(sourceView(ctx, s.id, source));
  });

  const get: RouteSpec = { operationId: 'getEventSource', tags, summary: 'Get the source of one event type.', params: sourceParams, ok: [200, { description: 'The source.', ...sourceResponse }], errors: [404] };
  route(app, 'GET', one, get, async (req) => {
    const { params } = partsOf<unknown, SourceParams>(req);
    const s = find(accountOfRequest(req), params.id);
    return sourceView(ctx, s.id, findSource(s, params.type));
  });

  const update: RouteSpec = {
    operationId: 'updateEventSource',
    tags,
    summary: 'Update the fields, filter or sample rate of a source; its type cannot change.',
    description: 'The type is the path\'s: a body that sends one is refused with immutable_field.',
    params: sourceParams,
    body: sourceUpdateBody,
    ok: [200, { description: 'The updated source.', ...sourceResponse }],
    errors: [404, 409],
    rules: SOURCE_UPDATE_RULES,
    immutable: { fields: ['type'], resource: 'source' },
  };
  route(app, 'PATCH', one, update, async (req) => {
    const { params, body = {} } = partsOf<SourceUpdate | undefined, SourceParams>(req);
    const { type } = params;
    let result: StoredSource | undefined;
    const s = await rewrite(req, params.id, (sub) => {
      const old = findSource(sub, type);
      result = checked({ type, fields: body.fields === undefined ? old.fields : body.fields, filter: body.filter === undefined ? old.filter : body.filter, sample_rate: body.sample_rate === undefined ? old.sample_rate : body.sample_rate });
      return sub.sources.map((x) => (x.type === type ? (result as StoredSource) : x));
    });
    return sourceView(ctx, s.id, result as StoredSource);
  });

  const remove: RouteSpec = { operationId: 'deleteEventSource', tags, summary: 'Remove the source of one event type from a subscription.', params: sourceParams, ok: [204, noContent], errors: [404, 409] };
  route(app, 'DELETE', one, remove, async (req, reply) => {
    const { type, id } = partsOf<unknown, SourceParams>(req).params;
    await rewrite(req, id, (sub) => {
      findSource(sub, type);
      return sub.sources.filter((x) => x.type !== type);
    });
    return reply.code(204).send();
  });
}
