// The API key resource: its stored shape (a token hash, never the token), its API view and schemas.
import { accountOf, type Owned } from '../../accounts/account.js';
import type { AdminContext } from '../context.js';
import { baseFields, resourceSchemas, type Fields } from '../resource-fields.js';
import { idSchema } from '../schemas.js';
import { TOKEN_PATTERN } from './tokens.js';

export interface StoredApiKey extends Owned {
  readonly id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
  /** Hex SHA-256 of the token; see tokens.ts. */
  readonly token_sha256: string;
}

/** The api_key payload of docs/events.md, with the account the key acts for. */
export interface ApiKeyView {
  readonly id: string;
  readonly uri: string;
  readonly account_id: string;
  readonly description: string;
  readonly metadata: string;
  readonly created_at: string;
  /** Only in the creation response; null at all other times. */
  readonly token: string | null;
}

export function apiKeyView(ctx: AdminContext, k: StoredApiKey, token: string | null = null): ApiKeyView {
  return {
    id: k.id,
    uri: ctx.uri(`/api_keys/${k.id}`),
    account_id: accountOf(k),
    description: k.description,
    metadata: k.metadata,
    created_at: k.created_at,
    token,
  };
}

const { id, uri, account_id, created_at, description, metadata } = baseFields('api_key');

/** The API key's fields, in the order responses list them (resource-fields.ts). */
export const API_KEY_FIELDS = {
  id,
  uri,
  account_id: {
    ...account_id,
    request: idSchema('account', 'account', "The account the key acts for; fixed at creation. Default: the creating key's own. Only the operator account may name another."),
    immutable: true,
  },
  description,
  metadata,
  created_at,
  token: { response: { type: ['string', 'null'], pattern: TOKEN_PATTERN, description: 'The bearer token: only in the creation response, null afterwards.' } },
} satisfies Fields;

export const API_KEY_SCHEMAS = resourceSchemas(API_KEY_FIELDS);
