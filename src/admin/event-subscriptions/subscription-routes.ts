// /event_subscriptions: create, list, get, update, delete. Sources are validated against the event
// catalogue and compiled by the filter engine before anything is written; destinations must exist.
import type { FastifyInstance } from 'fastify';
import type { StoredSubscription } from '../../configlog/resources.js';
import { newId } from '../../ids.js';
import { principalOf, type AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { registerReadRoutes } from '../read-routes.js';
import { BODY_ERRORS, idParams, noContent, responses } from '../schemas.js';
import type { AuditRecord } from '../store.js';
import { checkTextLimits } from '../text-limits.js';
import { checkDestinationIds } from './destination-refs.js';
import { validateSources, type SourceInput } from './source-input.js';
import { subscriptionCreateBody, subscriptionSchema, subscriptionUpdateBody } from './subscription-schemas.js';
import { subscriptionView } from './subscription-view.js';

interface SubscriptionBody {
  description?: string;
  metadata?: string;
  sources?: SourceInput[];
  destination_ids?: string[];
}
interface IdParams {
  id: string;
}

export const subscriptionTags = ['Event subscriptions'];

/** The subscription with that id, or a 404. */
export function findSubscription(ctx: AdminContext, id: string): StoredSubscription {
  const s = ctx.store.get<StoredSubscription>('event_subscription', id);
  if (s === undefined) throw new ApiError('not_found', { resource: 'event subscription', id });
  return s;
}

/** The audit record of a subscription change; its object is the subscription as the API returns it. */
export function subscriptionAudit(ctx: AdminContext, action: 'created' | 'updated' | 'deleted', s: StoredSubscription): AuditRecord {
  return { kind: 'event_subscription', action, key: s.id, object: { ...subscriptionView(ctx, s) } };
}

function sources(inputs: readonly SourceInput[]): StoredSubscription['sources'] {
  const r = validateSources(inputs);
  if (!r.ok) throw r.error;
  return r.sources;
}

export function registerEventSubscriptionRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const tags = subscriptionTags;

  app.post<{ Body: SubscriptionBody }>(
    '/event_subscriptions',
    {
      schema: {
        tags,
        summary: 'Create an event subscription.',
        body: subscriptionCreateBody,
        response: responses({ 201: { description: 'The new subscription.', ...subscriptionSchema } }, [...BODY_ERRORS]),
      },
    },
    async (req, reply) => {
      const body = req.body ?? {};
      checkTextLimits(body, 'characters');
      const s: StoredSubscription = {
        id: newId('event_subscription'),
        created_at: new Date().toISOString(),
        description: body.description ?? '',
        metadata: body.metadata ?? '',
        sources: sources(body.sources ?? []),
        destination_ids: [...(body.destination_ids ?? [])],
      };
      await store.exclusive(async () => {
        checkDestinationIds(store, s.destination_ids);
        await store.commit([{ kind: 'event_subscription', id: s.id, data: s }], [subscriptionAudit(ctx, 'created', s)], principalOf(req));
      });
      return reply.code(201).send(subscriptionView(ctx, s));
    },
  );

  registerReadRoutes(app, ctx, {
    path: '/event_subscriptions',
    kind: 'event_subscription',
    listKey: 'event_subscriptions',
    tags,
    schema: subscriptionSchema,
    list: { summary: 'List event subscriptions, newest first.', description: 'A page of event subscriptions.' },
    get: { summary: 'Get an event subscription.', description: 'The subscription.' },
    find: (id) => findSubscription(ctx, id),
    view: (s) => subscriptionView(ctx, s),
  });

  app.patch<{ Params: IdParams; Body: SubscriptionBody }>(
    '/event_subscriptions/:id',
    {
      schema: {
        tags,
        summary: 'Update an event subscription; sources and destination_ids, when sent, replace the lists.',
        params: idParams,
        body: subscriptionUpdateBody,
        response: responses({ 200: { description: 'The updated subscription.', ...subscriptionSchema } }, [...BODY_ERRORS, 404]),
      },
    },
    async (req) => {
      const body = req.body ?? {};
      checkTextLimits(body, 'characters');
      const newSources = body.sources === undefined ? undefined : sources(body.sources);
      const next = await store.exclusive(async () => {
        const s = findSubscription(ctx, req.params.id);
        const updated: StoredSubscription = {
          ...s,
          description: body.description ?? s.description,
          metadata: body.metadata ?? s.metadata,
          sources: newSources ?? s.sources,
          destination_ids: body.destination_ids === undefined ? s.destination_ids : [...body.destination_ids],
        };
        if (body.destination_ids !== undefined) checkDestinationIds(store, updated.destination_ids);
        await store.commit([{ kind: 'event_subscription', id: s.id, data: updated }], [subscriptionAudit(ctx, 'updated', updated)], principalOf(req));
        return updated;
      });
      return subscriptionView(ctx, next);
    },
  );

  app.delete<{ Params: IdParams }>(
    '/event_subscriptions/:id',
    {
      schema: {
        tags,
        summary: 'Delete an event subscription.',
        params: idParams,
        response: responses({ 204: noContent }, [400, 404]),
      },
    },
    async (req, reply) => {
      await store.exclusive(async () => {
        const s = findSubscription(ctx, req.params.id);
        await store.commit([{ kind: 'event_subscription', id: s.id, data: null }], [subscriptionAudit(ctx, 'deleted', s)], principalOf(req));
      });
      return reply.code(204).send();
    },
  );
}
