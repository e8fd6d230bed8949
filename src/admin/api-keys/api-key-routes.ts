// /api_keys: create (the only response that carries the token), list, get, update, delete.
import type { FastifyInstance } from 'fastify';
import { newId } from '../../ids.js';
import { principalOf, type AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { registerReadRoutes } from '../read-routes.js';
import { BODY_ERRORS, idParams, noContent, responses } from '../schemas.js';
import { checkTextLimits } from '../text-limits.js';
import { apiKeyCreateBody, apiKeySchema, apiKeyUpdateBody, apiKeyView, type StoredApiKey } from './api-key-view.js';
import { hashToken, newToken } from './tokens.js';

interface KeyBody {
  description?: string;
  metadata?: string;
}
interface IdParams {
  id: string;
}

const tags = ['API keys'];

export function registerApiKeyRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const find = (id: string): StoredApiKey => {
    const k = store.get<StoredApiKey>('api_key', id);
    if (k === undefined) throw new ApiError('not_found', { resource: 'API key', id });
    return k;
  };
  const audit = (action: 'created' | 'updated' | 'deleted', k: StoredApiKey) => ({
    kind: 'api_key' as const,
    action,
    key: k.id,
    // The token is never in an audit event: the view's token is null.
    object: { ...apiKeyView(ctx, k) },
  });

  app.post<{ Body: KeyBody }>(
    '/api_keys',
    {
      schema: {
        tags,
        summary: 'Create an API key; the response is the only one that carries its token.',
        body: apiKeyCreateBody,
        response: responses({ 201: { description: 'The new key, with its token.', ...apiKeySchema } }, [...BODY_ERRORS]),
      },
    },
    async (req, reply) => {
      const body = req.body ?? {};
      checkTextLimits(body);
      const token = newToken();
      const k: StoredApiKey = {
        id: newId('api_key'),
        created_at: new Date().toISOString(),
        description: body.description ?? '',
        metadata: body.metadata ?? '',
        token_sha256: hashToken(token),
      };
      await store.exclusive(() => store.commit([{ kind: 'api_key', id: k.id, data: k }], [audit('created', k)], principalOf(req)));
      return reply.code(201).send(apiKeyView(ctx, k, token));
    },
  );

  registerReadRoutes(app, ctx, {
    path: '/api_keys',
    kind: 'api_key',
    listKey: 'api_keys',
    tags,
    schema: apiKeySchema,
    list: { summary: 'List API keys, newest first.', description: 'A page of API keys (tokens are null).' },
    get: { summary: 'Get an API key (its token is null).', description: 'The key.' },
    find,
    view: (k) => apiKeyView(ctx, k),
  });

  app.patch<{ Params: IdParams; Body: KeyBody }>(
    '/api_keys/:id',
    {
      schema: {
        tags,
        summary: 'Update the description or metadata of an API key.',
        params: idParams,
        body: apiKeyUpdateBody,
        response: responses({ 200: { description: 'The updated key.', ...apiKeySchema } }, [...BODY_ERRORS, 404]),
      },
    },
    async (req) => {
      const body = req.body ?? {};
      checkTextLimits(body);
      const updated = await store.exclusive(async () => {
        const k = find(req.params.id);
        const next: StoredApiKey = { ...k, description: body.description ?? k.description, metadata: body.metadata ?? k.metadata };
        await store.commit([{ kind: 'api_key', id: k.id, data: next }], [audit('updated', next)], principalOf(req));
        return next;
      });
      return apiKeyView(ctx, updated);
    },
  );

  app.delete<{ Params: IdParams }>(
    '/api_keys/:id',
    {
      schema: {
        tags,
        summary: 'Delete an API key; its token stops working at once on every replica.',
        params: idParams,
        response: responses({ 204: noContent }, [400, 404]),
      },
    },
    async (req, reply) => {
      await store.exclusive(async () => {
        const k = find(req.params.id);
        await store.commit([{ kind: 'api_key', id: k.id, data: null }], [audit('deleted', k)], principalOf(req));
      });
      return reply.code(204).send();
    },
  );
}
