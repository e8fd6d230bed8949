// Reserved domains: stored shape, API view (also the object of domain_*.v0 audit events) and schemas.
import type { Owned } from '../../accounts/account.js';
import { DOMAIN_PATTERN, MAX_DOMAIN_LENGTH } from '../../accounts/domain-names.js';
import { baseView, type AdminContext } from '../context.js';
import { baseFields, resourceSchemas, type Fields } from '../resource-fields.js';
import type { Resource } from '../resource-routes.js';
import { withError } from '../schemas.js';

export interface StoredReservedDomain extends Owned {
  readonly id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
  /** Lowercase; "*.example.com" for a wildcard (src/accounts/domain-names.ts). */
  readonly domain: string;
}

export function reservedDomainView(ctx: AdminContext, d: StoredReservedDomain): Record<string, unknown> {
  return { ...baseView(ctx, '/reserved_domains', d), domain: d.domain };
}

const domainRequest = withError(
  {
    type: 'string',
    maxLength: MAX_DOMAIN_LENGTH,
    pattern: DOMAIN_PATTERN,
    examples: ['shop.example.com', '*.example.com'],
    description:
      'A host name of two labels or more, or a wildcard "*." before one, which covers every name below it (at any depth) but not the name itself. ' +
      'Stored lowercase; fixed at creation. The http_request_complete.v0 traffic of a name belongs to the account that reserved it.',
  },
  'invalid_domain',
);

/** The reserved domain's fields (resource-fields.ts): the domain is fixed at creation. */
export const RESERVED_DOMAIN_FIELDS = {
  ...baseFields('reserved_domain'),
  domain: { request: domainRequest, response: { type: 'string' }, required: true, immutable: true },
} satisfies Fields;

export const RESERVED_DOMAIN_SCHEMAS = resourceSchemas(RESERVED_DOMAIN_FIELDS);

export function reservedDomainResource(ctx: AdminContext): Resource<StoredReservedDomain> {
  return {
    path: '/reserved_domains',
    kind: 'reserved_domain',
    name: 'reserved domain',
    listKey: 'reserved_domains',
    tags: ['Reserved domains'],
    schemas: RESERVED_DOMAIN_SCHEMAS,
    view: (d) => reservedDomainView(ctx, d),
    audit: 'domain',
  };
}
