// /ip_policies: create, list, get, update, delete. Deleting a policy deletes its rules with it (each
// emits ip_policy_rule_deleted.v0); a policy still used by a TCP edge's IP restriction cannot be deleted.
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { registerResourceRoutes, resourceStore } from '../resource-routes.js';
import type { StoredTcpEdge } from '../tcp-edges/tcp-edge-view.js';
import { ipPolicyRuleResource } from './ip-policy-rule-routes.js';
import { ipPolicyResource, type StoredIpPolicy, type StoredIpPolicyRule } from './ip-policy-view.js';

export function registerIpPolicyRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const resource = ipPolicyResource(ctx);
  const rules = resourceStore(ctx, ipPolicyRuleResource(ctx));
  /** Refused while an edge uses the policy; its rules are deleted with it, each with its audit event. */
  const cascade = (p: StoredIpPolicy) => {
    const users = store
      .all<StoredTcpEdge>('tcp_edge')
      .filter((e) => e.ip_restriction?.ip_policy_ids.includes(p.id) === true)
      .map((e) => e.id);
    if (users.length > 0) throw new ApiError('ip_policy_in_use', { id: p.id, edges: users });
    const own = store.all<StoredIpPolicyRule>('ip_policy_rule').filter((r) => r.ip_policy_id === p.id);
    return { writes: own.map((r) => ({ kind: 'ip_policy_rule' as const, id: r.id, data: null })), audits: own.flatMap((r) => rules.audits('deleted', r)) };
  };

  registerResourceRoutes(app, ctx, resource, {
    create: {
      summary: 'Create an IP policy.',
      description: 'The new policy.',
      build: (_body: object, base): StoredIpPolicy => base,
      // A rule needs a policy: the new one's id goes into the body of a rule.
      links: { createIpPolicyRule: { operationId: 'createIpPolicyRule', description: "A rule of the new policy: its id (the response's id) as ip_policy_id." } },
    },
    list: ['List IP policies, newest first.', 'A page of IP policies.'],
    get: ['Get an IP policy.', 'The policy.'],
    update: { summary: 'Update the description or metadata of an IP policy.', description: 'The updated policy.', apply: (p) => p },
    remove: { summary: 'Delete an IP policy and its rules; refused while a TCP edge IP restriction uses it.', errors: [409], cascade },
  });
}
