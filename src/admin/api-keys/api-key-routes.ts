// /api_keys: create (the only response that carries the token), list, get, update, delete. A key acts for
// one account: the operator account may make and manage keys of every account, another account only its own.
import type { FastifyInstance } from 'fastify';
import { OPERATOR_ACCOUNT_ID, accountOf, type AccountContext } from '../../accounts/account.js';
import type { AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { registerResourceRoutes, type BaseFields, type ListQuery, type Resource } from '../resource-routes.js';
import type { BeyondSchemaRule } from '../route.js';
import { idSchema } from '../schemas.js';
import { API_KEY_SCHEMAS, apiKeyView, type StoredApiKey } from './api-key-view.js';
import { hashToken, newToken } from './tokens.js';

interface KeyBody {
  description?: string;
  metadata?: string;
  account_id?: string;
}

const ACCOUNT_RULE: BeyondSchemaRule = {
  code: 'unknown_reference',
  rule: "account_id names an existing account, and the key's own account unless the key is the operator account's",
};

/** API keys as a resource: the operator account sees every account's, another account its own. */
export function apiKeyResource(ctx: AdminContext): Resource<StoredApiKey> {
  return {
    path: '/api_keys',
    kind: 'api_key',
    name: 'API key',
    listKey: 'api_keys',
    tags: ['API keys'],
    schemas: API_KEY_SCHEMAS,
    // The token is never in an audit event: the view's token is null.
    view: (k) => ({ ...apiKeyView(ctx, k) }),
    audit: 'api_key',
    visibleTo: (acting, k) => acting.isOperator || accountOf(k) === acting.accountId,
  };
}

export function registerApiKeyRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const exists = (account: string): boolean => account === OPERATOR_ACCOUNT_ID || store.get('account', account) !== undefined;
  const build = (body: KeyBody, base: BaseFields, token: string, acting: AccountContext): StoredApiKey => {
    const account = body.account_id ?? acting.accountId;
    // Another account is unknown to a key that is not the operator's, whether it exists or not.
    if (account !== acting.accountId && (!acting.isOperator || !exists(account))) {
      throw new ApiError('unknown_reference', { field: 'account_id', kind: 'account', id: account });
    }
    return { ...base, account_id: account, token_sha256: hashToken(token) };
  };
  const reply = (k: StoredApiKey, token: string) => apiKeyView(ctx, k, token);
  const listQuery: ListQuery<StoredApiKey> = {
    properties: { account_id: idSchema('account', 'account', 'Only the keys of this account.') },
    filter: ({ account_id: account }) => (account === undefined ? undefined : (k) => accountOf(k) === account),
  };

  registerResourceRoutes(app, ctx, apiKeyResource(ctx), {
    create: {
      summary: 'Create an API key, for the account of the key that sends it or (operator account only) for another; the response is the only one that carries its token.',
      description: 'The new key, with its token.',
      rules: [ACCOUNT_RULE],
      prepare: () => newToken(),
      build,
      reply,
    },
    list: ["List API keys, newest first: the operator account's key lists every account's keys, another key its own account's.", 'A page of API keys (tokens are null).'],
    listQuery,
    get: ['Get an API key (its token is null).', 'The key.'],
    update: { summary: 'Update the description or metadata of an API key.', description: 'The updated key.', apply: (k) => k },
    remove: { summary: 'Delete an API key; its token stops working at once on every replica.' },
  });
}
