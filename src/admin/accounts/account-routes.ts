// /accounts: create, list, get and delete, for the operator account's keys only (403 for others).
// Deleting an account deletes everything it owns, each resource with its own *_deleted.v0 audit event,
// and its keys stop working; the operator account cannot be deleted.
import type { FastifyInstance } from 'fastify';
import { OPERATOR_ACCOUNT_ID } from '../../accounts/account.js';
import { createLogger } from '../../telemetry/logger.js';
import type { AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { registerResourceRoutes, type BaseFields, type Commit } from '../resource-routes.js';
import { accountResource, type StoredAccount } from './account-view.js';
import { inChunks, removalsOf } from './owned-resources.js';

const log = createLogger('admin-accounts');

export function registerAccountRoutes(app: FastifyInstance, ctx: AdminContext): void {
  // An account owns itself, so it is stored without an account_id.
  const build = (_body: object, { id, created_at, description, metadata }: BaseFields): StoredAccount => ({ id, created_at, description, metadata });

  /**
   * Everything the account owns goes with it, in one transaction when it fits and otherwise in several:
   * each part commits whole (resources with their audit events), the account last, so a delete cut short
   * leaves the account and what is left of it, and deleting it again finishes the work.
   */
  const cascade = async (a: StoredAccount, _acting: unknown, commit: Commit) => {
    if (a.id === OPERATOR_ACCOUNT_ID) throw new ApiError('operator_account', { id: a.id });
    const chunks = inChunks(removalsOf(ctx, a.id));
    const last = chunks.pop() ?? [];
    for (const chunk of chunks) await commit(chunk.map((r) => r.write), chunk.flatMap((r) => r.audits));
    log.info({ account: a.id, resources: chunks.reduce((n, c) => n + c.length, last.length) }, 'An account is being deleted with every resource it owns.');
    return { writes: last.map((r) => r.write), audits: last.flatMap((r) => r.audits) };
  };

  registerResourceRoutes(app, ctx, accountResource(ctx), {
    create: {
      summary: 'Create an account (operator account only); give it a key with POST /api_keys and its account_id.',
      description: 'The new account.',
      build,
      links: { createApiKey: { operationId: 'createApiKey', description: "A key of the new account: its id (the response's id) as account_id." } },
    },
    list: ['List accounts, newest first (operator account only).', 'A page of accounts.'],
    get: ['Get an account (operator account only).', 'The account.'],
    remove: {
      summary: 'Delete an account and everything it owns: its API keys, subscriptions, destinations, TCP edges, IP policies and reserved domains (operator account only).',
      errors: [409],
      cascade,
    },
  });
}
