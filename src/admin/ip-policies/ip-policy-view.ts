// IP policies and their rules: stored shapes, API views and schemas (the views are also the audit
// objects of ip_policy_*.v0 and ip_policy_rule_*.v0; see schemas/audit/).
import { baseView, ref, type AdminContext } from '../context.js';
import { RESOURCE_FIELDS, descriptionField, descriptionMetadataBody, idString, metadataField, refSchema, resourceProperties } from '../schemas.js';

export type RuleAction = 'allow' | 'deny';

export interface StoredIpPolicy {
  readonly id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
}

export interface StoredIpPolicyRule {
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

export const ipPolicySchema = {
  type: 'object',
  additionalProperties: false,
  required: [...RESOURCE_FIELDS],
  properties: { ...resourceProperties },
} as const;

export const ipPolicyBody = descriptionMetadataBody;

const actionSchema = { type: 'string', enum: ['allow', 'deny'], description: 'allow or deny; cannot be changed after creation.' };
const cidrSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  description: 'An IPv4 or IPv6 range with zero host bits, e.g. 10.0.0.0/8 or 2001:db8::/32.',
};

export const ipPolicyRuleSchema = {
  type: 'object',
  additionalProperties: false,
  required: [...RESOURCE_FIELDS, 'cidr', 'action', 'ip_policy'],
  properties: {
    ...resourceProperties,
    cidr: { type: 'string' },
    action: { type: 'string', enum: ['allow', 'deny'] },
    ip_policy: refSchema,
  },
} as const;

export const ipPolicyRuleCreateBody = {
  type: 'object',
  additionalProperties: false,
  required: ['cidr', 'action', 'ip_policy_id'],
  properties: { description: descriptionField, metadata: metadataField, cidr: cidrSchema, action: actionSchema, ip_policy_id: idString },
} as const;

/** action and ip_policy_id are listed so that sending them names the real problem (immutable), not "unknown". */
export const ipPolicyRuleUpdateBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    description: descriptionField,
    metadata: metadataField,
    cidr: cidrSchema,
    action: { ...actionSchema, description: 'Cannot be changed: sending it is an immutable_field error.' },
    ip_policy_id: { ...idString, description: 'Cannot be changed: sending it is an immutable_field error.' },
  },
} as const;
