// The TCP edge IP restriction module (ARCHITECTURE.md "The IP restriction module"): PUT (full replace), GET and DELETE at
// /edges/tcp/{id}/ip_restriction, and GET .../decision?ip= which applies the module to one address.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isId } from '../../ids.js';
import { parseIP } from '../../net/ip.js';
import { principalOf, ref, type AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import type { StoredIpPolicy, StoredIpPolicyRule } from '../ip-policies/ip-policy-view.js';
import { partsOf, resourceStore, route } from '../resource-routes.js';
import { idParams, idString, noContent } from '../schemas.js';
import type { AuditRecord } from '../store.js';
import { tcpEdgeResource } from '../tcp-edges/tcp-edge-routes.js';
import { ipRestrictionSchema, ipRestrictionView, type StoredIpRestriction, type StoredTcpEdge } from '../tcp-edges/tcp-edge-view.js';
import { decide, rulesOfPolicies, type DecisionModule } from './decision.js';
import { ipRestrictionAudit } from './ip-restriction-audit.js';

/** 50 policies is far beyond any real module and keeps decisions cheap. */
export const MAX_IP_POLICY_IDS = 50;

interface PutBody {
  enabled?: boolean;
  ip_policy_ids: string[];
}

const tags = ['TCP edge IP restriction'];

const putBody = {
  type: 'object',
  additionalProperties: false,
  required: ['ip_policy_ids'],
  properties: {
    enabled: { type: 'boolean', description: 'Whether the module is applied to traffic. Default true when omitted.' },
    ip_policy_ids: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_IP_POLICY_IDS,
      items: idString,
      description: 'The IP policies whose rules decide access: existing ids, no repeats. Replaces the previous list.',
    },
  },
};

const matchedRuleSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'uri', 'cidr', 'action', 'ip_policy_id'],
  properties: { id: idString, uri: { type: 'string', format: 'uri' }, cidr: { type: 'string' }, action: { type: 'string', enum: ['allow', 'deny'] }, ip_policy_id: idString },
};

const decisionSchema = {
  description: 'The decision for the address.',
  type: 'object',
  additionalProperties: false,
  required: ['decision', 'reason', 'matched_rules'],
  properties: {
    decision: { type: 'string', enum: ['allow', 'block'] },
    reason: { type: 'string', enum: ['no_ip_restriction', 'module_disabled', 'denied_by_rule', 'allowed_by_rule', 'no_matching_rule'] },
    matched_rules: { type: 'array', items: matchedRuleSchema },
  },
};

const decisionQuery = {
  type: 'object',
  additionalProperties: false,
  required: ['ip'],
  properties: { ip: { type: 'string', minLength: 1, maxLength: 64, description: 'An IPv4 or IPv6 address.' } },
};

export function registerIpRestrictionRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const findEdge = resourceStore(ctx, tcpEdgeResource(ctx)).find;
  const findModule = (id: string): StoredIpRestriction => {
    const m = findEdge(id).ip_restriction;
    if (m === null) throw new ApiError('not_found', { resource: 'IP restriction on TCP edge', id });
    return m;
  };
  /** Malformed ids are 400, unknown ids are 400 (ARCHITECTURE.md); repeats are refused rather than merged. */
  const checkPolicyIds = (ids: readonly string[]): void => {
    ids.forEach((id, i) => {
      if (!isId('ip_policy', id)) throw new ApiError('invalid_id', { field: `ip_policy_ids[${i}]`, kind: 'IP policy', value: id });
      if (ids.indexOf(id) !== i) throw new ApiError('duplicate_value', { field: `ip_policy_ids[${i}]`, value: id });
    });
    ids.forEach((id, i) => {
      if (store.get<StoredIpPolicy>('ip_policy', id) === undefined) {
        throw new ApiError('unknown_reference', { field: `ip_policy_ids[${i}]`, kind: 'IP policy', id });
      }
    });
  };
  const path = '/edges/tcp/:id/ip_restriction';
  const module = { description: 'The module record.', ...ipRestrictionSchema };
  /** Writes the edge with its new module (or none) and the module's audit event. */
  const save = (req: FastifyRequest, edge: StoredTcpEdge, next: StoredIpRestriction | null, audit: AuditRecord): Promise<void> =>
    store.commit([{ kind: 'tcp_edge', id: edge.id, data: { ...edge, ip_restriction: next } }], [audit], principalOf(req));

  const summary = 'Replace TCP Edge IP Restriction Module: the body replaces the whole module; enabled defaults to true.';
  route(app, 'PUT', path, { tags, summary, params: idParams, body: putBody, ok: [200, module], errors: [404] }, async (req) => {
    const { body, params } = partsOf<PutBody>(req);
    const next = await store.exclusive(async () => {
      const edge = findEdge(params.id);
      checkPolicyIds(body.ip_policy_ids);
      // A PUT that omits enabled makes the module enabled (ARCHITECTURE.md "The IP restriction module").
      const m: StoredIpRestriction = { enabled: body.enabled ?? true, ip_policy_ids: [...body.ip_policy_ids] };
      await save(req, edge, m, ipRestrictionAudit(ctx, edge.ip_restriction === null ? 'created' : 'updated', edge.id, m));
      return m;
    });
    return ipRestrictionView(ctx, next);
  });

  route(app, 'GET', path, { tags, summary: 'Get TCP Edge IP Restriction Module.', params: idParams, ok: [200, module], errors: [400, 404] }, async (req) =>
    ipRestrictionView(ctx, findModule(partsOf(req).params.id)),
  );

  route(app, 'DELETE', path, { tags, summary: 'Delete TCP Edge IP Restriction Module.', params: idParams, ok: [204, noContent], errors: [400, 404] }, async (req, reply) => {
    await store.exclusive(async () => {
      const edge = findEdge(partsOf(req).params.id);
      await save(req, edge, null, ipRestrictionAudit(ctx, 'deleted', edge.id, findModule(edge.id)));
    });
    return reply.code(204).send();
  });

  const decision = { tags, summary: 'Whether the edge would let a source IP connect, with the rules that matched.', params: idParams, querystring: decisionQuery };
  route(app, 'GET', `${path}/decision`, { ...decision, ok: [200, decisionSchema], errors: [400, 404] }, async (req) => {
    const { params, query } = partsOf<unknown, { id: string }, { ip: string }>(req);
    const ip = parseIP(query.ip);
    if (ip === undefined) throw new ApiError('invalid_ip', { field: 'ip', value: query.ip });
    const edge = findEdge(params.id);
    let m: DecisionModule | null = null;
    if (edge.ip_restriction !== null) {
      const rules = rulesOfPolicies(edge.ip_restriction.ip_policy_ids, store.all<StoredIpPolicyRule>('ip_policy_rule'));
      m = { enabled: edge.ip_restriction.enabled, rules };
    }
    const d = decide(ip, m);
    return {
      decision: d.decision,
      reason: d.reason,
      matched_rules: d.matched_rules.map((r) => ({ ...ref(ctx, '/ip_policy_rules', r.id), cidr: r.cidr, action: r.action, ip_policy_id: r.ip_policy_id })),
    };
  });
}
