// IP policies and their rules: stored shapes, API views and schemas (the views are also the audit
// objects of ip_policy_*.v0 and ip_policy_rule_*.v0; see schemas/audit/).
import type { Owned } from '../../accounts/account.js';
import { baseView, ref, type AdminContext } from '../context.js';
import { CIDR, CIDR_EXCLUDED } from '../../net/ip-patterns.js';
import { baseFields, resourceSchemas, type Fields } from '../resource-fields.js';
import type { Resource } from '../resource-routes.js';
import type { BeyondSchemaRule } from '../route.js';
import { idSchema, refSchema, withError } from '../schemas.js';

export type RuleAction = 'allow' | 'deny';

export interface StoredIpPolicy extends Owned {
  readonly id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
}

export interface StoredIpPolicyRule extends Owned {
  readonly id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
  /** Normalized: host bits are zero (checked on write). */
  readonly cidr: string;
  readonly action: RuleAction;
  readonly ip_policy_id: string;
}

export function ipPolicyView(ctx: AdminContext, p: StoredIpPolicy): Record<string, unknown> {
  return baseView(ctx, '/ip_policies', p);
}

export function ipPolicyRuleView(ctx: AdminContext, r: StoredIpPolicyRule): Record<string, unknown> {
  return { ...baseView(ctx, '/ip_policy_rules', r), cidr: r.cidr, action: r.action, ip_policy: ref(ctx, '/ip_policies', r.ip_policy_id) };
}

export const IP_POLICY_SCHEMAS = resourceSchemas(baseFields('ip_policy'));

/** IP policies as a resource; rules and IP restrictions check references to them through it. */
export function ipPolicyResource(ctx: AdminContext): Resource<StoredIpPolicy> {
  return { path: '/ip_policies', kind: 'ip_policy', name: 'IP policy', plural: 'IP policies', listKey: 'ip_policies', tags: ['IP policies'], schemas: IP_POLICY_SCHEMAS, view: (p) => ipPolicyView(ctx, p), audit: 'ip_policy' };
}

const action = { type: 'string', enum: ['allow', 'deny'], description: 'allow or deny; fixed at creation.' };

/** A CIDR range as the parser reads it (src/net/ip-patterns.ts); host bits are a rule beyond the schema. */
const cidrRequest = withError(
  {
    type: 'string',
    maxLength: 64,
    pattern: CIDR,
    not: { type: 'string', pattern: CIDR_EXCLUDED },
    examples: ['10.0.0.0/8', '192.0.2.0/24', '2001:db8::/32'],
    description: 'An IPv4 or IPv6 range, e.g. 10.0.0.0/8 or 2001:db8::/32, with zero host bits (10.1.2.3/8 is refused: cidr_has_host_bits). IPv4-mapped IPv6 (::ffff:0:0/96) and zones are refused; send the IPv4 form.',
  },
  'invalid_cidr',
);

export const CIDR_HOST_BITS_RULE: BeyondSchemaRule = { code: 'cidr_has_host_bits', rule: 'cidr has zero host bits (10.0.0.0/8, not 10.1.2.3/8)' };

/** The IP policy rule's fields (resource-fields.ts): action and ip_policy_id are fixed at creation. */
export const IP_POLICY_RULE_FIELDS = {
  ...baseFields('ip_policy_rule'),
  cidr: { request: cidrRequest, response: { type: 'string', pattern: CIDR, description: 'Canonical form (RFC 5952 for IPv6).' }, required: true },
  action: { request: action, response: action, required: true, immutable: true },
  ip_policy_id: { request: idSchema('ip_policy', 'IP policy', 'The IP policy the rule belongs to; fixed at creation.'), required: true, immutable: true },
  ip_policy: { response: refSchema('ip_policy') },
} satisfies Fields;

export const IP_POLICY_RULE_SCHEMAS = resourceSchemas(IP_POLICY_RULE_FIELDS);
