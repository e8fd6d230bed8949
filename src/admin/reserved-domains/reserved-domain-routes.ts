// /reserved_domains: create, list, get, update (description and metadata), delete, and verify. A reservation
// starts pending with a DNS TXT challenge, and owns traffic once verified: its record found, or verified by
// hand by the operator account. A public suffix cannot be reserved. A name belongs to one account: a
// reservation that overlaps another account's verified one (the same name, a wildcard covering it, or one it
// covers) is 409, and so is a second reservation of the same domain (src/admin/README.md "Reserved domains").
import type { FastifyInstance } from 'fastify';
import type { AccountContext } from '../../accounts/account.js';
import { newChallengeValue } from '../../accounts/domain-challenge.js';
import { challengeRecordName, normalizeDomain, publicSuffixTaken } from '../../accounts/domain-names.js';
import { accountOfRequest, principalOf, type AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { objectSchema } from '../resource-fields.js';
import { registerResourceRoutes, resourceStore, type BaseFields } from '../resource-routes.js';
import { partsOf, route, type BeyondSchemaRule } from '../route.js';
import { idParams, named } from '../schemas.js';
import { checkFree, ReservationVerifier } from './reservation-verification.js';
import { domainStatus, reservedDomainResource, type StoredReservedDomain } from './reserved-domain-view.js';

interface DomainBody {
  description?: string;
  metadata?: string;
  domain: string;
}

interface VerifyBody {
  manual?: boolean;
}

const PUBLIC_SUFFIX_RULE: BeyondSchemaRule = {
  code: 'public_suffix',
  rule: 'the domain, or the base of a wildcard, is not a public suffix of the Public Suffix List (co.uk, github.io)',
};

export function registerReservedDomainRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const resource = reservedDomainResource(ctx);
  const { find } = resourceStore(ctx, resource);
  const verifier = new ReservationVerifier(ctx);

  const build = (body: DomainBody, base: BaseFields, _p: unknown, acting: AccountContext): StoredReservedDomain => {
    const domain = normalizeDomain(body.domain);
    if (domain === undefined) throw new ApiError('invalid_domain', { field: 'domain', value: body.domain });
    const suffix = publicSuffixTaken(domain);
    if (suffix !== undefined) throw new ApiError('public_suffix', { field: 'domain', domain, public_suffix: suffix });
    checkFree(ctx, domain, acting);
    return { ...base, domain, status: 'pending', challenge: newChallengeValue() };
  };

  registerResourceRoutes(app, ctx, resource, {
    create: {
      summary:
        "Reserve a domain (or a *. wildcard) for the key's account. It starts pending, with the DNS TXT record that proves control of the name in `verification`; " +
        'once verified (POST /reserved_domains/{id}/verify), its http_request_complete.v0 traffic is the account\'s.',
      description: 'The new reservation, pending.',
      errors: [409],
      rules: [PUBLIC_SUFFIX_RULE],
      build,
      links: { verifyReservedDomain: { operationId: 'verifyReservedDomain', parameters: { id: '$response.body#/id' } } },
    },
    list: ['List reserved domains, newest first.', 'A page of reserved domains.'],
    get: ['Get a reserved domain.', 'The reservation.'],
    update: { summary: 'Update the description or metadata of a reserved domain; its domain cannot change.', description: 'The updated reservation.', apply: (d) => d },
    remove: { summary: 'Delete a reserved domain; its traffic then belongs to no account (or to a wildcard of the account that covers it).' },
  });

  route(
    app,
    'POST',
    '/reserved_domains/:id/verify',
    {
      operationId: 'verifyReservedDomain',
      tags: resource.tags,
      summary: 'Verify a pending reserved domain: its TXT challenge record is looked up now.',
      description:
        'Looks up the TXT record named in `verification` at the service\'s DNS resolver; when one holds `record_value`, the reservation becomes verified and owns its traffic ' +
        '(422 domain_not_verified otherwise: publish the record, then call again). The operator account may call it on any account\'s reservation, and with `"manual": true` ' +
        'verifies it without the DNS check. A verified reservation is answered as it is. The record may be removed once verified. ' +
        'The service also looks the records of pending reservations up again every minute or so, and verifies those it finds.',
      params: idParams('reserved_domain', 'reserved domain'),
      // No body is the DNS check, as `{}` is.
      body: named('ReservedDomainVerification', {
        ...objectSchema({
          manual: { type: 'boolean', default: false, description: 'Operator account only: verify without looking up the record (the operator checked control of the name another way).' },
        }),
        type: ['object', 'null'],
      }),
      ok: [200, { description: 'The reservation, verified.', ...named('ReservedDomain', resource.schemas.response) }],
      errors: [403, 404, 409, 422],
      rules: [{ code: 'domain_not_verified', rule: 'a TXT record at the reservation\'s verification.record_name holds its record_value, unless the operator account verifies by hand' }],
    },
    async (req) => {
      const { body, params } = partsOf<VerifyBody | undefined>(req);
      const acting = accountOfRequest(req);
      const manual = body?.manual === true;
      // The operator account verifies customers' reservations; any other key only its own.
      const reachable = (): StoredReservedDomain => (acting.isOperator ? (store.get<StoredReservedDomain>('reserved_domain', params.id) ?? find(acting, params.id)) : find(acting, params.id));
      if (manual && !acting.isOperator) throw new ApiError('forbidden', { action: 'verify a reserved domain by hand' });
      const current = reachable();
      if (domainStatus(current) === 'verified') return resource.view(current);
      if (!manual) {
        const result = await verifier.lookup(current);
        if (!result.found) throw new ApiError('domain_not_verified', { domain: current.domain, record_name: challengeRecordName(current.domain), reason: result.reason });
      }
      const verified = await verifier.markVerified(reachable, manual ? 'operator' : 'dns', principalOf(req));
      return resource.view(verified);
    },
  );
}
