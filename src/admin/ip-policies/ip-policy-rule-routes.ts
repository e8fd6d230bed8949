// /ip_policy_rules: create, list (optionally of one policy), get, update, delete. A rule's action and
// policy are fixed at creation; its cidr must have zero host bits and be unique within its policy.
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { registerResourceRoutes, type BaseFields, type ListQuery, type Resource } from '../resource-routes.js';
import { idString } from '../schemas.js';
import { normalizeRuleCidr } from './cidr-field.js';
import {
  ipPolicyRuleCreateBody,
  ipPolicyRuleSchema,
  ipPolicyRuleUpdateBody,
  ipPolicyRuleView,
  type RuleAction,
  type StoredIpPolicy,
  type StoredIpPolicyRule,
} from './ip-policy-view.js';

interface CreateBody {
  description?: string;
  metadata?: string;
  cidr: string;
  action: RuleAction;
  ip_policy_id: string;
}

export function ipPolicyRuleResource(ctx: AdminContext): Resource<StoredIpPolicyRule> {
  return {
    path: '/ip_policy_rules',
    kind: 'ip_policy_rule',
    name: 'IP policy rule',
    listKey: 'ip_policy_rules',
    tags: ['IP policy rules'],
    schema: ipPolicyRuleSchema,
    view: (r) => ipPolicyRuleView(ctx, r),
    audit: 'ip_policy_rule',
  };
}

export function registerIpPolicyRuleRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  /** 409 when another rule of the policy already has this cidr (both normalized, so text equality is range equality). */
  const checkUnique = (policyId: string, cidr: string, self?: string): void => {
    const other = store.all<StoredIpPolicyRule>('ip_policy_rule').find((r) => r.ip_policy_id === policyId && r.cidr === cidr && r.id !== self);
    if (other !== undefined) throw new ApiError('duplicate_cidr', { field: 'cidr', ip_policy_id: policyId, cidr, rule_id: other.id });
  };

  const build = (body: CreateBody, base: BaseFields, cidr: string): StoredIpPolicyRule => {
    if (store.get<StoredIpPolicy>('ip_policy', body.ip_policy_id) === undefined) {
      throw new ApiError('unknown_reference', { field: 'ip_policy_id', kind: 'IP policy', id: body.ip_policy_id });
    }
    checkUnique(body.ip_policy_id, cidr);
    return { ...base, cidr, action: body.action, ip_policy_id: body.ip_policy_id };
  };
  const apply = (r: StoredIpPolicyRule, body: Partial<CreateBody>, cidr: string | undefined): StoredIpPolicyRule => {
    // Refused even when equal to the current value: an update never carries these fields.
    if (body.action !== undefined) throw new ApiError('immutable_field', { field: 'action', resource: 'rule' });
    if (body.ip_policy_id !== undefined) throw new ApiError('immutable_field', { field: 'ip_policy_id', resource: 'rule' });
    if (cidr !== undefined) checkUnique(r.ip_policy_id, cidr, r.id);
    return { ...r, cidr: cidr ?? r.cidr };
  };
  const cidrOf = (body: Partial<CreateBody>): string | undefined => (body.cidr === undefined ? undefined : normalizeRuleCidr(body.cidr));
  const listQuery: ListQuery<StoredIpPolicyRule> = {
    properties: { ip_policy_id: { ...idString, description: 'Only the rules of this IP policy.' } },
    filter: ({ ip_policy_id: policy }) => (policy === undefined ? undefined : (r) => r.ip_policy_id === policy),
  };

  registerResourceRoutes(app, ctx, ipPolicyRuleResource(ctx), {
    create: { summary: 'Create a rule in an IP policy.', description: 'The new rule.', body: ipPolicyRuleCreateBody, errors: [409], prepare: (body: CreateBody) => normalizeRuleCidr(body.cidr), build },
    list: ['List IP policy rules, newest first.', 'A page of IP policy rules.'],
    listQuery,
    get: ['Get an IP policy rule.', 'The rule.'],
    update: {
      summary: 'Update the description, metadata or cidr of a rule; action and ip_policy_id cannot change.',
      description: 'The updated rule.',
      body: ipPolicyRuleUpdateBody,
      errors: [409],
      prepare: cidrOf,
      apply,
    },
    remove: { summary: 'Delete an IP policy rule.' },
  });
}
