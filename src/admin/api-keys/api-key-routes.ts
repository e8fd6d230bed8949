// /api_keys: create (the only response that carries the token), list, get, update, delete.
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../context.js';
import { registerResourceRoutes, type BaseFields, type Resource } from '../resource-routes.js';
import { API_KEY_SCHEMAS, apiKeyView, type StoredApiKey } from './api-key-view.js';
import { hashToken, newToken } from './tokens.js';

export function registerApiKeyRoutes(app: FastifyInstance, ctx: AdminContext): void {
  // The token is never in an audit event: the view's token is null.
  const resource: Resource<StoredApiKey> = { path: '/api_keys', kind: 'api_key', name: 'API key', listKey: 'api_keys', tags: ['API keys'], schemas: API_KEY_SCHEMAS, view: (k) => ({ ...apiKeyView(ctx, k) }), audit: 'api_key' };
  const build = (_body: object, base: BaseFields, token: string): StoredApiKey => ({ ...base, token_sha256: hashToken(token) });
  const reply = (k: StoredApiKey, token: string) => apiKeyView(ctx, k, token);

  registerResourceRoutes(app, ctx, resource, {
    create: { summary: 'Create an API key; the response is the only one that carries its token.', description: 'The new key, with its token.', prepare: newToken, build, reply },
    list: ['List API keys, newest first.', 'A page of API keys (tokens are null).'],
    get: ['Get an API key (its token is null).', 'The key.'],
    update: { summary: 'Update the description or metadata of an API key.', description: 'The updated key.', apply: (k) => k },
    remove: { summary: 'Delete an API key; its token stops working at once on every replica.' },
  });
}
