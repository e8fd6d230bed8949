// TCP edges: stored shape, API view and schemas. The IP restriction module is embedded (null when absent).
import { baseView, ref, type AdminContext } from '../context.js';
import { RESOURCE_FIELDS, descriptionField, metadataField, refSchema, resourceProperties } from '../schemas.js';

export interface StoredIpRestriction {
  readonly enabled: boolean;
  /** Non-empty, no duplicates, each an existing IP policy when written. */
  readonly ip_policy_ids: readonly string[];
}

export interface StoredTcpEdge {
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
  return {
    ...baseView(ctx, '/edges/tcp', e),
    hostports: [...e.hostports],
    ip_restriction: e.ip_restriction === null ? null : ipRestrictionView(ctx, e.ip_restriction),
  };
}

export const ipRestrictionSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['enabled', 'ip_policies'],
  properties: {
    enabled: { type: 'boolean', description: 'true if the module is applied to traffic.' },
    ip_policies: { type: 'array', items: refSchema, description: 'The IP policies whose rules decide which source IPs may connect.' },
  },
} as const;

export const tcpEdgeSchema = {
  type: 'object',
  additionalProperties: false,
  required: [...RESOURCE_FIELDS, 'hostports', 'ip_restriction'],
  properties: {
    ...resourceProperties,
    hostports: { type: 'array', items: { type: 'string' } },
    ip_restriction: { ...ipRestrictionSchema, type: ['object', 'null'], description: 'The IP restriction module, or null when none is configured.' },
  },
} as const;

export const MAX_HOSTPORTS = 32;

const hostportsSchema = {
  type: 'array',
  maxItems: MAX_HOSTPORTS,
  uniqueItems: true,
  items: { type: 'string', minLength: 3, maxLength: 262, description: 'host:port, e.g. 1.tcp.example.com:20000 or [2001:db8::1]:443.' },
};

export const tcpEdgeCreateBody = {
  type: 'object',
  additionalProperties: false,
  properties: { description: descriptionField, metadata: metadataField, hostports: hostportsSchema },
} as const;

export const tcpEdgeUpdateBody = tcpEdgeCreateBody;
