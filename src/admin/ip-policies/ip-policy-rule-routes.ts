// /ip_policy_rules: create, list (optionally of one policy), get, update, delete. A rule's action and
// policy are fixed at creation; its cidr must have zero host bits and be unique within its policy.
import type { FastifyInstance } from 'fastify';
import type { AccountContext } from '../../accounts/account.js';
import type { AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { registerResourceRoutes, resourceStore, type BaseFields, type ListQuery, type Resource } from '../resource-routes.js';
import type { BeyondSchemaRule } from '../route.js';
import { idSchema } from '../schemas.js';
import { normalizeRuleCidr } from './cidr-field.js';
import { CIDR_HOST_BITS_RULE, IP_POLICY_RULE_SCHEMAS, ipPolicyResource, ipPolicyRuleView, type RuleAction, type StoredIpPolicy, type StoredIpPolicyRule } from './ip-policy-view.js';

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
    schemas: IP_POLICY_RULE_SCHEMAS,
    view: (r) => ipPolicyRuleView(ctx, r),
    audit: 'ip_policy_rule',
  };
}

const UNKNOWN_POLICY: BeyondSchemaRule = { code: 'unknown_reference', rule: "ip_policy_id names an existing IP policy of the key's account" };

export function registerIpPolicyRuleRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  /** 409 when another rule of the policy already has this cidr (both normalized, so text equality is range equality). */
  const checkUnique = (policyId: string, cidr: string, self?: string): void => {
    const other = store.all<StoredIpPolicyRule>('ip_policy_rule').find((r) => r.ip_policy_id === policyId && r.cidr === cidr && r.id !== self);
    if (other !== undefined) throw new ApiError('duplicate_cidr', { field: 'cidr', ip_policy_id: policyId, cidr, rule_id: other.id });
  };

  const policies = resourceStore(ctx, ipPolicyResource(ctx));
  const build = (body: CreateBody, base: BaseFields, cidr: string, acting: AccountContext): StoredIpPolicyRule => {
    const policy = store.get<StoredIpPolicy>('ip_policy', body.ip_policy_id);
    if (policy === undefined || !policies.visible(acting, policy)) {
      throw new ApiError('unknown_reference', { field: 'ip_policy_id', kind: 'IP policy', id: body.ip_policy_id });
    }
    checkUnique(body.ip_policy_id, cidr);
    return { ...base, cidr, action: body.action, ip_policy_id: body.ip_policy_id };
  };
  // action and ip_policy_id are not in the update schema: sending them is immutable_field (validation.ts).
  const apply = (r: StoredIpPolicyRule, _body: object, cidr: string | undefined): StoredIpPolicyRule => {
    if (cidr !== undefined) checkUnique(r.ip_policy_id, cidr, r.id);
    return { ...r, cidr: cidr ?? r.cidr };
  };
  const cidrOf = (body: { cidr?: string }): string | undefined => (body.cidr === undefined ? undefined : normalizeRuleCidr(body.cidr));
  const listQuery: ListQuery<StoredIpPolicyRule> = {
    properties: { ip_policy_id: idSchema('ip_policy', 'IP policy', 'Only the rules of this IP policy.') },
    filter: ({ ip_policy_id: policy }) => (policy === undefined ? undefined : (r) => r.ip_policy_id === policy),
  };

  registerResourceRoutes(app, ctx, ipPolicyRuleResource(ctx), {
    create: {
      summary: 'Create a rule in an IP policy.',
      description: 'The new rule.',
      errors: [409],
      rules: [CIDR_HOST_BITS_RULE, UNKNOWN_POLICY],
      prepare: (body: CreateBody) => normalizeRuleCidr(body.cidr),
      build,
    },
    list: ['List IP policy rules, newest first.', 'A page of IP policy rules.'],
    listQuery,
    get: ['Get an IP policy rule.', 'The rule.'],
    update: {
      summary: 'Update the description, metadata or cidr of a rule; action and ip_policy_id cannot change.',
      description: 'The updated rule.',
      errors: [409],
      rules: [CIDR_HOST_BITS_RULE],
      prepare: cidrOf,
      apply,
    },
    remove: { summary: 'Delete an IP policy rule.' },
  });
}
