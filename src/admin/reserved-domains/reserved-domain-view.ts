// Reserved domains: stored shape, API view (also the object of domain_*.v0 audit events, so they carry the
// status and its challenge) and schemas.
import type { Owned } from '../../accounts/account.js';
import { DOMAIN_PATTERN, MAX_DOMAIN_LENGTH, challengeRecordName } from '../../accounts/domain-names.js';
import { baseView, type AdminContext } from '../context.js';
import { baseFields, resourceSchemas, type Fields } from '../resource-fields.js';
import type { Resource } from '../resource-routes.js';
import { timestampString, withError } from '../schemas.js';

export interface StoredReservedDomain extends Owned {
  readonly id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
  /** Lowercase; "*.example.com" for a wildcard (src/accounts/domain-names.ts). */
  readonly domain: string;
  /** Pending until its challenge is found or the operator verifies it; absent (reserved before verification existed) is verified. */
  readonly status?: DomainStatus;
  /** The value its TXT challenge record must hold (src/accounts/domain-challenge.ts); absent on reservations made before. */
  readonly challenge?: string;
  readonly verified_at?: string;
  readonly verified_by?: 'dns' | 'operator';
}

export type DomainStatus = 'pending' | 'verified';

export function domainStatus(d: StoredReservedDomain): DomainStatus {
  return d.status ?? 'verified';
}

export function reservedDomainView(ctx: AdminContext, d: StoredReservedDomain): Record<string, unknown> {
  return {
    ...baseView(ctx, '/reserved_domains', d),
    domain: d.domain,
    status: domainStatus(d),
    verification: d.challenge === undefined ? null : { record_type: 'TXT', record_name: challengeRecordName(d.domain), record_value: d.challenge },
    verified_at: d.verified_at ?? null,
    verified_by: d.verified_by ?? null,
  };
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
  status: {
    response: {
      enum: ['pending', 'verified'],
      description: 'pending until the TXT record of `verification` is found (POST /reserved_domains/{id}/verify) or the operator account verifies it by hand; only a verified reservation owns traffic.',
    },
  },
  verification: {
    response: {
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['record_type', 'record_name', 'record_value'],
      properties: {
        record_type: { const: 'TXT' },
        record_name: { type: 'string', examples: ['_edge-events-challenge.example.com'], description: 'Where to publish it: _edge-events-challenge. and the domain (a wildcard\'s base).' },
        record_value: { type: 'string', description: 'What the TXT record must hold.' },
      },
      description: 'The DNS record that proves control of the domain; null for a reservation made before verification existed.',
    },
  },
  verified_at: { response: { ...timestampString, type: ['string', 'null'], description: 'When it became verified; null while pending.' } },
  verified_by: { response: { enum: ['dns', 'operator', null], description: 'dns: its TXT record was found; operator: the operator account verified it by hand; null while pending.' } },
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
