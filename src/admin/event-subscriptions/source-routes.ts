// /event_subscriptions/{id}/sources and /event_subscriptions/{id}/sources/{type}: one subscription's sources,
// keyed by their event type. Every change rewrites the subscription and emits event_subscription_updated.v0.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { StoredSource, StoredSubscription } from '../../configlog/resources.js';
import { principalOf, type AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { BODY_ERRORS, idParams, noContent, responses } from '../schemas.js';
import { MAX_SOURCES_PER_SUBSCRIPTION } from './limits.js';
import { validateSource, type SourceInput } from './source-input.js';
import { sourceBody, sourceListSchema, sourceParams, sourceSchema, sourceUpdateBody } from './subscription-schemas.js';
import { findSubscription, subscriptionAudit, subscriptionTags as tags } from './subscription-routes.js';
import { sourceView, sourcesPath } from './subscription-view.js';

interface IdParams {
  id: string;
}
interface SourceParams {
  id: string;
  type: string;
}
interface SourceUpdate {
  type?: string;
  fields?: string[] | null;
  filter?: string | null;
}

function checked(input: SourceInput): StoredSource {
  const r = validateSource(input);
  if (!r.ok) throw r.error;
  return r.source;
}

export function registerEventSourceRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const findSource = (s: StoredSubscription, type: string): StoredSource => {
    const source = s.sources.find((x) => x.type === type);
    if (source === undefined) throw new ApiError('source_not_found', { subscription_id: s.id, type });
    return source;
  };
  /** Writes the subscription with its new sources and the audit event, alone among this replica's writers. */
  const rewrite = (req: FastifyRequest, id: string, change: (s: StoredSubscription) => StoredSource[]): Promise<StoredSubscription> =>
    store.exclusive(async () => {
      const s = findSubscription(ctx, id);
      const updated: StoredSubscription = { ...s, sources: change(s) };
      await store.commit([{ kind: 'event_subscription', id: s.id, data: updated }], [subscriptionAudit(ctx, 'updated', updated)], principalOf(req));
      return updated;
    });

  app.get<{ Params: IdParams }>(
    '/event_subscriptions/:id/sources',
    {
      schema: {
        tags,
        summary: "List a subscription's sources.",
        params: idParams,
        response: responses({ 200: sourceListSchema }, [400, 404]),
      },
    },
    async (req) => {
      const s = findSubscription(ctx, req.params.id);
      return { sources: s.sources.map((x) => sourceView(ctx, s.id, x)), uri: ctx.uri(sourcesPath(s.id)), next_page_uri: null };
    },
  );

  app.post<{ Params: IdParams; Body: SourceInput }>(
    '/event_subscriptions/:id/sources',
    {
      schema: {
        tags,
        summary: 'Add a source to a subscription; its type must not be there yet.',
        params: idParams,
        body: sourceBody,
        response: responses({ 201: { description: 'The new source.', ...sourceSchema } }, [...BODY_ERRORS, 404, 409]),
      },
    },
    async (req, reply) => {
      const source = checked(req.body);
      const s = await rewrite(req, req.params.id, (sub) => {
        if (sub.sources.some((x) => x.type === source.type)) throw new ApiError('source_exists', { subscription_id: sub.id, type: source.type });
        if (sub.sources.length >= MAX_SOURCES_PER_SUBSCRIPTION) {
          throw new ApiError('too_many_items', { field: 'sources', limit: MAX_SOURCES_PER_SUBSCRIPTION, actual: sub.sources.length + 1 });
        }
        return [...sub.sources, source];
      });
      return reply.code(201).send(sourceView(ctx, s.id, source));
    },
  );

  app.get<{ Params: SourceParams }>(
    '/event_subscriptions/:id/sources/:type',
    {
      schema: {
        tags,
        summary: 'Get the source of one event type.',
        params: sourceParams,
        response: responses({ 200: { description: 'The source.', ...sourceSchema } }, [400, 404]),
      },
    },
    async (req) => {
      const s = findSubscription(ctx, req.params.id);
      return sourceView(ctx, s.id, findSource(s, req.params.type));
    },
  );

  app.patch<{ Params: SourceParams; Body: SourceUpdate }>(
    '/event_subscriptions/:id/sources/:type',
    {
      schema: {
        tags,
        summary: 'Update the fields or filter of a source; its type cannot change.',
        params: sourceParams,
        body: sourceUpdateBody,
        response: responses({ 200: { description: 'The updated source.', ...sourceSchema } }, [...BODY_ERRORS, 404]),
      },
    },
    async (req) => {
      const body = req.body ?? {};
      const { type } = req.params;
      if (body.type !== undefined && body.type !== type) throw new ApiError('immutable_field', { field: 'type', resource: 'source' });
      let result: StoredSource | undefined;
      const s = await rewrite(req, req.params.id, (sub) => {
        const old = findSource(sub, type);
        result = checked({
          type,
          fields: body.fields === undefined ? old.fields : body.fields,
          filter: body.filter === undefined ? old.filter : body.filter,
        });
        return sub.sources.map((x) => (x.type === type ? (result as StoredSource) : x));
      });
      return sourceView(ctx, s.id, result as StoredSource);
    },
  );

  app.delete<{ Params: SourceParams }>(
    '/event_subscriptions/:id/sources/:type',
    {
      schema: {
        tags,
        summary: 'Remove the source of one event type from a subscription.',
        params: sourceParams,
        response: responses({ 204: noContent }, [400, 404]),
      },
    },
    async (req, reply) => {
      const { type } = req.params;
      await rewrite(req, req.params.id, (sub) => {
        findSource(sub, type);
        return sub.sources.filter((x) => x.type !== type);
      });
      return reply.code(204).send();
    },
  );
}
