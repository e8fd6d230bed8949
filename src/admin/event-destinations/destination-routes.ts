// /event_destinations: create, list, get, update, delete. Secrets are sealed before they reach the config
// log and answered as null; a destination still used by a subscription cannot be deleted.
import type { FastifyInstance } from 'fastify';
import type { StoredDestination, StoredSubscription, StoredTarget } from '../../configlog/resources.js';
import { newId } from '../../ids.js';
import { principalOf, type AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { registerReadRoutes } from '../read-routes.js';
import { BODY_ERRORS, idParams, noContent, responses } from '../schemas.js';
import type { AuditRecord } from '../store.js';
import { checkTextLimits } from '../text-limits.js';
import { destinationCreateBody, destinationSchema, destinationUpdateBody } from './destination-schemas.js';
import { destinationView } from './destination-view.js';
import { acceptTarget } from '../../delivery/destination-target.js';

interface DestinationBody {
  description?: string;
  metadata?: string;
  format?: string;
  target?: unknown;
}
interface IdParams {
  id: string;
}

const tags = ['Event destinations'];

export function registerEventDestinationRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const seal = (clear: string): string => ctx.secrets.seal(clear);
  const find = (id: string): StoredDestination => {
    const d = store.get<StoredDestination>('event_destination', id);
    if (d === undefined) throw new ApiError('not_found', { resource: 'event destination', id });
    return d;
  };
  const audit = (action: 'created' | 'updated' | 'deleted', d: StoredDestination): AuditRecord => ({
    kind: 'event_destination',
    action,
    key: d.id,
    // The view answers every secret as null, so the audit event carries none either.
    object: { ...destinationView(ctx, d) },
  });
  const target = (raw: unknown, previous?: StoredTarget): StoredTarget => {
    const r = acceptTarget(raw, { seal, previous });
    // A problem's code is an API error code and its details the error's (src/delivery/destination-config.ts).
    if (!r.ok) throw new ApiError(r.problem.code, r.problem.details);
    return r.target;
  };

  app.post<{ Body: DestinationBody }>(
    '/event_destinations',
    {
      schema: {
        tags,
        summary: 'Create an event destination.',
        body: destinationCreateBody,
        response: responses({ 201: { description: 'The new destination; secrets are null.', ...destinationSchema } }, [...BODY_ERRORS]),
      },
    },
    async (req, reply) => {
      const body = req.body;
      checkTextLimits(body);
      const d: StoredDestination = {
        id: newId('event_destination'),
        created_at: new Date().toISOString(),
        description: body.description ?? '',
        metadata: body.metadata ?? '',
        format: 'json',
        target: target(body.target),
      };
      await store.exclusive(() => store.commit([{ kind: 'event_destination', id: d.id, data: d }], [audit('created', d)], principalOf(req)));
      return reply.code(201).send(destinationView(ctx, d));
    },
  );

  registerReadRoutes(app, ctx, {
    path: '/event_destinations',
    kind: 'event_destination',
    listKey: 'event_destinations',
    tags,
    schema: destinationSchema,
    list: { summary: 'List event destinations, newest first.', description: 'A page of event destinations.' },
    get: { summary: 'Get an event destination.', description: 'The destination; secrets are null.' },
    find,
    view: (d) => destinationView(ctx, d),
  });

  app.patch<{ Params: IdParams; Body: DestinationBody }>(
    '/event_destinations/:id',
    {
      schema: {
        tags,
        summary: 'Update an event destination; a target sent replaces the whole target, keeping omitted secrets.',
        params: idParams,
        body: destinationUpdateBody,
        response: responses({ 200: { description: 'The updated destination; secrets are null.', ...destinationSchema } }, [...BODY_ERRORS, 404]),
      },
    },
    async (req) => {
      const body = req.body ?? {};
      checkTextLimits(body);
      const next = await store.exclusive(async () => {
        const d = find(req.params.id);
        const updated: StoredDestination = {
          ...d,
          description: body.description ?? d.description,
          metadata: body.metadata ?? d.metadata,
          target: body.target === undefined ? d.target : target(body.target, d.target),
        };
        await store.commit([{ kind: 'event_destination', id: d.id, data: updated }], [audit('updated', updated)], principalOf(req));
        return updated;
      });
      return destinationView(ctx, next);
    },
  );

  app.delete<{ Params: IdParams }>(
    '/event_destinations/:id',
    {
      schema: {
        tags,
        summary: 'Delete an event destination; refused while an event subscription uses it.',
        params: idParams,
        response: responses({ 204: noContent }, [400, 404, 409]),
      },
    },
    async (req, reply) => {
      await store.exclusive(async () => {
        const d = find(req.params.id);
        const users = store
          .all<StoredSubscription>('event_subscription')
          .filter((s) => s.destination_ids.includes(d.id))
          .map((s) => s.id);
        if (users.length > 0) throw new ApiError('event_destination_in_use', { id: d.id, subscriptions: users });
        await store.commit([{ kind: 'event_destination', id: d.id, data: null }], [audit('deleted', d)], principalOf(req));
      });
      return reply.code(204).send();
    },
  );
}
