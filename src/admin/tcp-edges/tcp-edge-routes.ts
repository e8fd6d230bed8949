// /edges/tcp: create, list, get, update, delete. The event catalogue has no audit kind for a TCP edge
// (docs/events.md), so edge changes emit no audit event of their own; deleting an edge that has an IP
// restriction emits ip_restriction_deleted.v0 for the module that goes with it.
import type { FastifyInstance } from 'fastify';
import { accountOf, type AccountContext } from '../../accounts/account.js';
import { isAddressHost } from '../../accounts/domain-names.js';
import { TrafficOwners } from '../../accounts/traffic-owners.js';
import type { AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { ipRestrictionAudit } from '../ip-restriction/ip-restriction-audit.js';
import type { StoredReservedDomain } from '../reserved-domains/reserved-domain-view.js';
import { registerResourceRoutes, type BaseFields, type Resource } from '../resource-routes.js';
import type { BeyondSchemaRule } from '../route.js';
import { normalizeHostport } from './hostport.js';
import { TCP_EDGE_SCHEMAS, tcpEdgeView, type StoredTcpEdge } from './tcp-edge-view.js';

interface EdgeBody {
  description?: string;
  metadata?: string;
  hostports?: string[];
}

/** uniqueItems compares the text; "A.com:80" and "a.com:80" differ as text but are one hostport. */
const SAME_HOSTPORT: BeyondSchemaRule = { code: 'duplicate_value', rule: 'hostports are unique in canonical form (lowercase names, canonical IP addresses)' };

export function tcpEdgeResource(ctx: AdminContext): Resource<StoredTcpEdge> {
  return { path: '/edges/tcp', kind: 'tcp_edge', name: 'TCP edge', listKey: 'tcp_edges', tags: ['TCP edges'], schemas: TCP_EDGE_SCHEMAS, view: (e) => tcpEdgeView(ctx, e) };
}

/** The host name of a canonical hostport, or undefined for an IP address. */
function hostName(hostport: string): string | undefined {
  const host = hostport.slice(0, hostport.lastIndexOf(':'));
  return isAddressHost(host) ? undefined : host;
}

export function registerTcpEdgeRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  /**
   * Canonical hostports, unique in the list (400) and across edges (409): a hostport's traffic belongs to
   * its edge's account, so it is one edge's, whatever its account. A host name that another account has
   * reserved and verified is that account's to list (409), and another account's edge that listed it
   * before the verification holds nothing of it (SECURITY.md "Traffic ownership"). Another account's edge
   * or reservation is not named.
   */
  const hostports = (given: readonly string[], acting: AccountContext, self?: string): string[] => {
    const out = given.map((h, i) => normalizeHostport(h, `hostports[${i}]`));
    out.forEach((h, i) => {
      if (out.indexOf(h) !== i) throw new ApiError('duplicate_value', { field: `hostports[${i}]`, value: h });
    });
    // Who holds each name, by the matcher's own rules (exact, else the longest wildcard, the older of two).
    const names = new TrafficOwners();
    for (const d of store.all<StoredReservedDomain>('reserved_domain')) names.putDomain(d);
    const holders = out.map((h) => {
      const name = hostName(h);
      return name === undefined ? undefined : names.ownerOfName(name);
    });
    holders.forEach((holder, i) => {
      if (holder !== undefined && holder !== acting.accountId) throw new ApiError('hostport_name_reserved', { field: `hostports[${i}]`, hostport: out[i] as string });
    });
    for (const e of store.all<StoredTcpEdge>('tcp_edge')) {
      if (e.id === self) continue;
      const own = accountOf(e) === acting.accountId;
      // Another account's claim on a name this account holds counts for nothing.
      const taken = out.find((h, i) => e.hostports.includes(h) && (own || holders[i] === undefined));
      if (taken === undefined) continue;
      throw new ApiError('hostport_in_use', { field: 'hostports', hostport: taken, by: own ? `this account's TCP edge ${e.id}` : 'a TCP edge of another account', ...(own && { edge_id: e.id }) });
    }
    return out;
  };

  const build = (body: EdgeBody, base: BaseFields, _p: unknown, acting: AccountContext): StoredTcpEdge => ({ ...base, hostports: hostports(body.hostports ?? [], acting), ip_restriction: null });
  const apply = (e: StoredTcpEdge, body: EdgeBody, _p: unknown, acting: AccountContext): StoredTcpEdge => ({
    ...e,
    hostports: body.hostports === undefined ? e.hostports : hostports(body.hostports, acting, e.id),
  });
  // The edge's module goes with it, and says so in its own audit event.
  const cascade = (e: StoredTcpEdge) => ({ writes: [], audits: e.ip_restriction === null ? [] : [ipRestrictionAudit(ctx, 'deleted', e, e.ip_restriction)] });

  registerResourceRoutes(app, ctx, tcpEdgeResource(ctx), {
    create: {
      summary: 'Create a TCP edge (its IP restriction is set with PUT /edges/tcp/{id}/ip_restriction).',
      description: 'The new edge.',
      errors: [409],
      rules: [SAME_HOSTPORT],
      build,
      links: {
        putIpRestriction: { operationId: 'putIpRestriction', parameters: { id: '$response.body#/id' } },
        getIpRestrictionDecision: { operationId: 'getIpRestrictionDecision', parameters: { id: '$response.body#/id' } },
      },
    },
    list: ['List TCP edges, newest first.', 'A page of TCP edges.'],
    get: ['Get a TCP edge with its IP restriction.', 'The edge.'],
    update: {
      summary: 'Update the description, metadata or hostports (replaced as a whole) of a TCP edge.',
      description: 'The updated edge.',
      errors: [409],
      rules: [SAME_HOSTPORT],
      apply,
    },
    remove: { summary: 'Delete a TCP edge and its IP restriction.', cascade },
  });
}
