// TCP edges: stored shape, API view and schemas. The IP restriction module is embedded (null when absent).
import { accountOf, type Owned } from '../../accounts/account.js';
import { baseView, ref, type AdminContext } from '../context.js';
import { baseFields, resourceSchemas, type Fields } from '../resource-fields.js';
import { named, orNull, refSchema } from '../schemas.js';
import { HOSTPORT_SCHEMA } from './hostport.js';

export interface StoredIpRestriction {
  readonly enabled: boolean;
  /** Non-empty, no duplicates, each an existing IP policy when written. */
  readonly ip_policy_ids: readonly string[];
}

export interface StoredTcpEdge extends Owned {
  readonly id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
  readonly hostports: readonly string[];
  readonly ip_restriction: StoredIpRestriction | null;
}

/** The module record, ip_policies as an array of Ref (ARCHITECTURE.md "The IP restriction module"). */
export function ipRestrictionView(ctx: AdminContext, m: StoredIpRestriction): { enabled: boolean; ip_policies: { id: string; uri: string }[] } {
  return { enabled: m.enabled, ip_policies: m.ip_policy_ids.map((id) => ref(ctx, '/ip_policies', id)) };
}

export function tcpEdgeView(ctx: AdminContext, e: StoredTcpEdge): Record<string, unknown> {
  const owners = ctx.store.owners();
  return {
    ...baseView(ctx, '/edges/tcp', e),
    hostports: [...e.hostports],
    unowned_hostports: e.hostports.filter((h) => !owners.mayList(accountOf(e), h)),
    ip_restriction: e.ip_restriction === null ? null : ipRestrictionView(ctx, e.ip_restriction),
  };
}

export const ipRestrictionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['enabled', 'ip_policies'],
  properties: {
    enabled: { type: 'boolean', description: 'true if the module is applied to traffic.' },
    ip_policies: { type: 'array', items: refSchema('ip_policy'), description: 'The IP policies whose rules decide which source IPs may connect.' },
  },
} as const;

export const MAX_HOSTPORTS = 32;

/** The TCP edge's fields (resource-fields.ts); its IP restriction is set at /edges/tcp/{id}/ip_restriction. */
export const TCP_EDGE_FIELDS = {
  ...baseFields('tcp_edge'),
  hostports: {
    request: {
      type: 'array',
      maxItems: MAX_HOSTPORTS,
      uniqueItems: true,
      items: HOSTPORT_SCHEMA,
      description: `At most ${MAX_HOSTPORTS}, each used by no other edge; an update replaces the list. Default [].`,
    },
    response: { type: 'array', items: { type: 'string' } },
  },
  unowned_hostports: {
    response: {
      type: 'array',
      items: { type: 'string' },
      description:
        "The hostports of this edge that own no traffic because its account may not list them: neither a TCP address it reserved nor a name under one of its verified reserved domains " +
        "(listed before reservations were required, or a domain's reservation deleted since). Their tcp_connection_closed.v0 records are nobody's; an update of hostports must leave them out. Empty for an edge of the operator account but for another account's addresses and names.",
    },
  },
  ip_restriction: { response: orNull(named('IpRestriction', ipRestrictionSchema), 'The IP restriction module, or null when none is configured.') },
} satisfies Fields;

export const TCP_EDGE_SCHEMAS = resourceSchemas(TCP_EDGE_FIELDS);
