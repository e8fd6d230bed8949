// /ip_policy_rules: create, list (optionally of one policy), get, update, delete. A rule's action and
// policy are fixed at creation; its cidr must have zero host bits and be unique within its policy.
import type { FastifyInstance } from 'fastify';
import { newId } from '../../ids.js';
import { principalOf, type AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { listPage } from '../list-response.js';
import { BODY_ERRORS, idParams, idString, listQuery, listSchema, noContent, responses } from '../schemas.js';
import type { AuditRecord, PageQuery } from '../store.js';
import { checkTextLimits } from '../text-limits.js';
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
type UpdateBody = Partial<CreateBody>;
interface IdParams {
  id: string;
}
type RuleQuery = PageQuery & { ip_policy_id?: string };

const tags = ['IP policy rules'];

const ruleListQuery = {
  ...listQuery,
  properties: { ...(listQuery.properties as object), ip_policy_id: { ...idString, description: 'Only the rules of this IP policy.' } },
};

export function registerIpPolicyRuleRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const find = (id: string): StoredIpPolicyRule => {
    const r = store.get<StoredIpPolicyRule>('ip_policy_rule', id);
    if (r === undefined) throw new ApiError('not_found', { resource: 'IP policy rule', id });
    return r;
  };
  const audit = (action: 'created' | 'updated' | 'deleted', r: StoredIpPolicyRule): AuditRecord => ({
    kind: 'ip_policy_rule',
    action,
    key: r.id,
    object: ipPolicyRuleView(ctx, r),
  });
  /** 409 when another rule of the policy already has this cidr (both normalized, so text equality is range equality). */
  const checkUnique = (policyId: string, cidr: string, self?: string): void => {
    const other = store.all<StoredIpPolicyRule>('ip_policy_rule').find((r) => r.ip_policy_id === policyId && r.cidr === cidr && r.id !== self);
    if (other !== undefined) throw new ApiError('duplicate_cidr', { field: 'cidr', ip_policy_id: policyId, cidr, rule_id: other.id });
  };

  app.post<{ Body: CreateBody }>(
    '/ip_policy_rules',
    {
      schema: {
        tags,
        summary: 'Create a rule in an IP policy.',
        body: ipPolicyRuleCreateBody,
        response: responses({ 201: { description: 'The new rule.', ...ipPolicyRuleSchema } }, [...BODY_ERRORS, 409]),
      },
    },
    async (req, reply) => {
      const body = req.body;
      checkTextLimits(body);
      const cidr = normalizeRuleCidr(body.cidr);
      const rule = await store.exclusive(async () => {
        if (store.get<StoredIpPolicy>('ip_policy', body.ip_policy_id) === undefined) {
          throw new ApiError('unknown_reference', { field: 'ip_policy_id', kind: 'IP policy', id: body.ip_policy_id });
        }
        checkUnique(body.ip_policy_id, cidr);
        const r: StoredIpPolicyRule = {
          id: newId('ip_policy_rule'),
          created_at: new Date().toISOString(),
          description: body.description ?? '',
          metadata: body.metadata ?? '',
          cidr,
          action: body.action,
          ip_policy_id: body.ip_policy_id,
        };
        await store.commit([{ kind: 'ip_policy_rule', id: r.id, data: r }], [audit('created', r)], principalOf(req));
        return r;
      });
      return reply.code(201).send(ipPolicyRuleView(ctx, rule));
    },
  );

  app.get<{ Querystring: RuleQuery }>(
    '/ip_policy_rules',
    {
      schema: {
        tags,
        summary: 'List IP policy rules, newest first.',
        querystring: ruleListQuery,
        response: responses({ 200: listSchema('ip_policy_rules', ipPolicyRuleSchema, 'A page of IP policy rules.') }, [400]),
      },
    },
    async (req) => {
      const policy = req.query.ip_policy_id;
      const page = store.page<StoredIpPolicyRule>('ip_policy_rule', req.query, policy === undefined ? undefined : (r) => r.ip_policy_id === policy);
      return listPage(ctx, '/ip_policy_rules', 'ip_policy_rules', page, req.query, (r) => ipPolicyRuleView(ctx, r));
    },
  );

  app.get<{ Params: IdParams }>(
    '/ip_policy_rules/:id',
    {
      schema: {
        tags,
        summary: 'Get an IP policy rule.',
        params: idParams,
        response: responses({ 200: { description: 'The rule.', ...ipPolicyRuleSchema } }, [400, 404]),
      },
    },
    async (req) => ipPolicyRuleView(ctx, find(req.params.id)),
  );

  app.patch<{ Params: IdParams; Body: UpdateBody }>(
    '/ip_policy_rules/:id',
    {
      schema: {
        tags,
        summary: 'Update the description, metadata or cidr of a rule; action and ip_policy_id cannot change.',
        params: idParams,
        body: ipPolicyRuleUpdateBody,
        response: responses({ 200: { description: 'The updated rule.', ...ipPolicyRuleSchema } }, [...BODY_ERRORS, 404, 409]),
      },
    },
    async (req) => {
      const body = req.body ?? {};
      checkTextLimits(body);
      const cidr = body.cidr === undefined ? undefined : normalizeRuleCidr(body.cidr);
      const next = await store.exclusive(async () => {
        const r = find(req.params.id);
        // Refused even when equal to the current value: an update never carries these fields.
        if (body.action !== undefined) throw new ApiError('immutable_field', { field: 'action', resource: 'rule' });
        if (body.ip_policy_id !== undefined) throw new ApiError('immutable_field', { field: 'ip_policy_id', resource: 'rule' });
        if (cidr !== undefined) checkUnique(r.ip_policy_id, cidr, r.id);
        const updated: StoredIpPolicyRule = {
          ...r,
          description: body.description ?? r.description,
          metadata: body.metadata ?? r.metadata,
          cidr: cidr ?? r.cidr,
        };
        await store.commit([{ kind: 'ip_policy_rule', id: r.id, data: updated }], [audit('updated', updated)], principalOf(req));
        return updated;
      });
      return ipPolicyRuleView(ctx, next);
    },
  );

  app.delete<{ Params: IdParams }>(
    '/ip_policy_rules/:id',
    {
      schema: {
        tags,
        summary: 'Delete an IP policy rule.',
        params: idParams,
        response: responses({ 204: noContent }, [400, 404]),
      },
    },
    async (req, reply) => {
      await store.exclusive(async () => {
        const r = find(req.params.id);
        await store.commit([{ kind: 'ip_policy_rule', id: r.id, data: null }], [audit('deleted', r)], principalOf(req));
      });
      return reply.code(204).send();
    },
  );
}
