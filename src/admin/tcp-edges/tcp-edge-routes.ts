// /edges/tcp: create, list, get, update, delete. The event catalogue has no audit kind for a TCP edge
// (docs/events.md), so edge changes emit no audit event of their own; deleting an edge that has an IP
// restriction emits ip_restriction_deleted.v0 for the module that goes with it.
import type { FastifyInstance } from 'fastify';
import { accountOf, type AccountContext } from '../../accounts/account.js';
import { isAddressHost } from '../../accounts/domain-names.js';
import type { AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { ipRestrictionAudit } from '../ip-restriction/ip-restriction-audit.js';
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

/** Why the acting account may not list a hostport (TrafficOwners.mayList false), completing "… not this account's to list: …". */
function notListable(reservedBy: string | undefined, acting: AccountContext, name: string | undefined): string {
  if (reservedBy !== undefined) return 'it is a TCP address another account reserved';
  const how = name === undefined ? 'reserve a TCP address (POST /reserved_addrs) and list it' : 'reserve a TCP address (POST /reserved_addrs), or verify a reserved domain covering the name';
  return acting.isOperator ? 'another account holds it' : `it is neither a TCP address this account reserved nor a name under one of its verified reserved domains; ${how}`;
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
   * its edge's account, so it is one edge's, whatever its account. Each must be the acting account's to
   * list (TrafficOwners.mayList): a TCP address it reserved, or a name under its verified reserved domains;
   * the operator account's, any hostport no other account reserved or holds. A host name that another
   * account has reserved and verified is 409 hostport_name_reserved, anything else not the account's 409
   * hostport_not_reserved; another account's edge that listed a hostport it may not list holds nothing of
   * it (SECURITY.md "Traffic ownership"). Another account's edge or reservation is not named.
   */
  const hostports = (given: readonly string[], acting: AccountContext, self?: string): string[] => {
    const out = given.map((h, i) => normalizeHostport(h, `hostports[${i}]`));
    out.forEach((h, i) => {
      if (out.indexOf(h) !== i) throw new ApiError('duplicate_value', { field: `hostports[${i}]`, value: h });
    });
    // Who holds each name and address, by the matcher's own rules (exact, else the longest wildcard, the older of two).
    const owners = store.owners();
    out.forEach((h, i) => {
      const field = `hostports[${i}]`;
      const name = hostName(h);
      const holder = name === undefined ? undefined : owners.ownerOfName(name);
      if (holder !== undefined && holder !== acting.accountId) throw new ApiError('hostport_name_reserved', { field, hostport: h });
      if (owners.mayList(acting.accountId, h)) return;
      throw new ApiError('hostport_not_reserved', { field, hostport: h, reason: notListable(owners.reservedBy(h), acting, name) });
    });
    for (const e of store.all<StoredTcpEdge>('tcp_edge')) {
      if (e.id === self) continue;
      const own = accountOf(e) === acting.accountId;
      // Another account's claim on a hostport it may not list counts for nothing.
      const taken = out.find((h) => e.hostports.includes(h) && (own || owners.mayList(accountOf(e), h)));
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
