// /reserved_domains: create, list, get, update (description and metadata), delete. A name belongs to one
// account: a reservation that overlaps another account's (the same name, a wildcard covering it, or one it
// covers) is 409, and so is a second reservation of the same domain (src/admin/README.md "Reserved domains").
import type { FastifyInstance } from 'fastify';
import { accountOf, type AccountContext } from '../../accounts/account.js';
import { normalizeDomain, overlaps } from '../../accounts/domain-names.js';
import type { AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { registerResourceRoutes, type BaseFields } from '../resource-routes.js';
import { reservedDomainResource, type StoredReservedDomain } from './reserved-domain-view.js';

interface DomainBody {
  description?: string;
  metadata?: string;
  domain: string;
}

export function registerReservedDomainRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  /** The stored domain, or 409 when another reservation holds a name of it. Another account's is not named. */
  const claim = (text: string, acting: AccountContext): string => {
    const domain = normalizeDomain(text);
    if (domain === undefined) throw new ApiError('invalid_domain', { field: 'domain', value: text });
    for (const other of store.all<StoredReservedDomain>('reserved_domain')) {
      const own = accountOf(other) === acting.accountId;
      if (own ? other.domain !== domain : !overlaps(other.domain, domain)) continue;
      const by = own ? `the reservation ${other.id} of this account` : "another account's reservation";
      throw new ApiError('domain_reserved', { field: 'domain', domain, by, ...(own && { reserved_domain_id: other.id }) });
    }
    return domain;
  };
  const build = (body: DomainBody, base: BaseFields, _p: unknown, acting: AccountContext): StoredReservedDomain => ({ ...base, domain: claim(body.domain, acting) });

  registerResourceRoutes(app, ctx, reservedDomainResource(ctx), {
    create: {
      summary: "Reserve a domain (or a *. wildcard) for the key's account: its http_request_complete.v0 traffic becomes that account's.",
      description: 'The new reservation.',
      errors: [409],
      build,
    },
    list: ['List reserved domains, newest first.', 'A page of reserved domains.'],
    get: ['Get a reserved domain.', 'The reservation.'],
    update: { summary: 'Update the description or metadata of a reserved domain; its domain cannot change.', description: 'The updated reservation.', apply: (d) => d },
    remove: { summary: 'Delete a reserved domain; its traffic then belongs to no account (or to a wildcard of the account that covers it).' },
  });
}
