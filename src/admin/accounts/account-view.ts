// Accounts: the stored shape, the API view and schemas. An account owns itself: it has no account_id.
import { OPERATOR_ACCOUNT_ID } from '../../accounts/account.js';
import type { AdminContext } from '../context.js';
import { baseFields, resourceSchemas, type Fields } from '../resource-fields.js';
import type { Resource } from '../resource-routes.js';

export interface StoredAccount {
  readonly id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
}

export function accountView(ctx: AdminContext, a: StoredAccount): Record<string, unknown> {
  return { id: a.id, uri: ctx.uri(`/accounts/${a.id}`), created_at: a.created_at, description: a.description, metadata: a.metadata, operator: a.id === OPERATOR_ACCOUNT_ID };
}

const { id, uri, created_at, description, metadata } = baseFields('account');

/** The account's fields (resource-fields.ts). */
export const ACCOUNT_FIELDS = {
  id,
  uri,
  created_at,
  description,
  metadata,
  operator: { response: { type: 'boolean', description: 'True for the operator account, made at the first start; it manages accounts and cannot be deleted.' } },
} satisfies Fields;

export const ACCOUNT_SCHEMAS = resourceSchemas(ACCOUNT_FIELDS);

/** Accounts as a resource: only the operator account's keys reach their routes, and they see every account. */
export function accountResource(ctx: AdminContext): Resource<StoredAccount> {
  return {
    path: '/accounts',
    kind: 'account',
    name: 'account',
    listKey: 'accounts',
    tags: ['Accounts'],
    schemas: ACCOUNT_SCHEMAS,
    view: (a) => accountView(ctx, a),
    visibleTo: () => true,
    operatorOnly: 'manage accounts',
  };
}
