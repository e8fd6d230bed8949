// The TCP edge IP restriction module (ARCHITECTURE.md "The IP restriction module"): PUT (full replace), GET and DELETE at
// /edges/tcp/{id}/ip_restriction, and GET .../decision?ip= which applies the module to one address.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseIP } from '../../net/ip.js';
import { IP_ADDRESS, IP_ADDRESS_EXCLUDED } from '../../net/ip-patterns.js';
import { accountOf, type AccountContext } from '../../accounts/account.js';
import { accountOfRequest, principalOf, ref, type AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { ipPolicyResource, type StoredIpPolicy, type StoredIpPolicyRule } from '../ip-policies/ip-policy-view.js';
import { resourceStore } from '../resource-routes.js';
import { partsOf, route, type BeyondSchemaRule, type Link } from '../route.js';
import { idParams, idResponse, idSchema, named, noContent, uriString, withError } from '../schemas.js';
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
  title: 'IpRestrictionReplace',
  type: 'object',
  additionalProperties: false,
  required: ['ip_policy_ids'],
  properties: {
    enabled: { type: 'boolean', description: 'Whether the module is applied to traffic. Default true when omitted.' },
    ip_policy_ids: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_IP_POLICY_IDS,
      uniqueItems: true,
      items: idSchema('ip_policy', 'IP policy'),
      description: `The IP policies whose rules decide access: 1 to ${MAX_IP_POLICY_IDS} existing ids, no repeats. Replaces the previous list.`,
    },
  },
};

const matchedRuleSchema = {
  title: 'MatchedIpPolicyRule',
  type: 'object',
  additionalProperties: false,
  required: ['id', 'uri', 'cidr', 'action', 'ip_policy_id'],
  properties: { id: idResponse('ip_policy_rule'), uri: uriString, cidr: { type: 'string' }, action: { type: 'string', enum: ['allow', 'deny'] }, ip_policy_id: idResponse('ip_policy') },
};

const decisionSchema = {
  title: 'IpRestrictionDecision',
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
  properties: {
    ip: withError(
      {
        type: 'string',
        maxLength: 64,
        pattern: IP_ADDRESS,
        not: { type: 'string', pattern: IP_ADDRESS_EXCLUDED },
        examples: ['203.0.113.7', '2001:db8::1'],
        description: 'An IPv4 or IPv6 address, e.g. 203.0.113.7 or 2001:db8::1. IPv4-mapped IPv6 (::ffff:a.b.c.d) and zones are refused; send the IPv4 form.',
      },
      'invalid_ip',
    ),
  },
};

const UNKNOWN_POLICIES: BeyondSchemaRule = { code: 'unknown_reference', rule: 'each of ip_policy_ids names an existing IP policy' };
const EDGE_ID: Readonly<Record<string, string>> = { id: '$request.path.id' };
/** From a module just set: read it, delete it, ask it for a decision. */
const MODULE_LINKS: Readonly<Record<string, Link>> = {
  getIpRestriction: { operationId: 'getIpRestriction', parameters: EDGE_ID },
  deleteIpRestriction: { operationId: 'deleteIpRestriction', parameters: EDGE_ID },
  getIpRestrictionDecision: { operationId: 'getIpRestrictionDecision', parameters: EDGE_ID },
};

export function registerIpRestrictionRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const findEdge = resourceStore(ctx, tcpEdgeResource(ctx)).find;
  const policies = resourceStore(ctx, ipPolicyResource(ctx));
  const findModule = (edge: StoredTcpEdge): StoredIpRestriction => {
    const m = edge.ip_restriction;
    if (m === null) throw new ApiError('not_found', { resource: 'IP restriction on TCP edge', id: edge.id });
    return m;
  };
  /** Unknown ids, and another account's, are 400 (ARCHITECTURE.md); malformed and repeated ones the schema refuses. */
  const checkPolicyIds = (acting: AccountContext, ids: readonly string[]): void => {
    ids.forEach((id, i) => {
      const p = store.get<StoredIpPolicy>('ip_policy', id);
      if (p === undefined || !policies.visible(acting, p)) {
        throw new ApiError('unknown_reference', { field: `ip_policy_ids[${i}]`, kind: 'IP policy', id });
      }
    });
  };
  const path = '/edges/tcp/:id/ip_restriction';
  const module = { description: 'The module record.', ...named('IpRestriction', ipRestrictionSchema) };
  /** Writes the edge with its new module (or none) and the module's audit event. */
  const save = (req: FastifyRequest, edge: StoredTcpEdge, next: StoredIpRestriction | null, audit: AuditRecord): Promise<void> =>
    store.commit([{ kind: 'tcp_edge', id: edge.id, data: { ...edge, account_id: accountOf(edge), ip_restriction: next } }], [audit], principalOf(req));

  const summary = 'Replace TCP Edge IP Restriction Module: the body replaces the whole module; enabled defaults to true.';
  const params = idParams('tcp_edge', 'TCP edge');
  const put = { operationId: 'putIpRestriction', tags, summary, params, body: putBody, ok: [200, module], errors: [404, 409], rules: [UNKNOWN_POLICIES], links: MODULE_LINKS } as const;
  route(app, 'PUT', path, put, async (req) => {
    const { body, params } = partsOf<PutBody>(req);
    const acting = accountOfRequest(req);
    const next = await store.exclusive(async () => {
      const edge = findEdge(acting, params.id);
      checkPolicyIds(acting, body.ip_policy_ids);
      // A PUT that omits enabled makes the module enabled (ARCHITECTURE.md "The IP restriction module").
      const m: StoredIpRestriction = { enabled: body.enabled ?? true, ip_policy_ids: [...body.ip_policy_ids] };
      await save(req, edge, m, ipRestrictionAudit(ctx, edge.ip_restriction === null ? 'created' : 'updated', edge, m));
      return m;
    });
    return ipRestrictionView(ctx, next);
  });

  route(app, 'GET', path, { operationId: 'getIpRestriction', tags, summary: 'Get TCP Edge IP Restriction Module.', params, ok: [200, module], errors: [404] }, async (req) =>
    ipRestrictionView(ctx, findModule(findEdge(accountOfRequest(req), partsOf(req).params.id))),
  );

  const remove = { operationId: 'deleteIpRestriction', tags, summary: 'Delete TCP Edge IP Restriction Module.', params, ok: [204, noContent], errors: [404, 409] } as const;
  route(app, 'DELETE', path, remove, async (req, reply) => {
    await store.exclusive(async () => {
      const edge = findEdge(accountOfRequest(req), partsOf(req).params.id);
      await save(req, edge, null, ipRestrictionAudit(ctx, 'deleted', edge, findModule(edge)));
    });
    return reply.code(204).send();
  });

  const decision = { operationId: 'getIpRestrictionDecision', tags, summary: 'Whether the edge would let a source IP connect, with the rules that matched.', params, querystring: decisionQuery };
  route(app, 'GET', `${path}/decision`, { ...decision, ok: [200, decisionSchema], errors: [400, 404] }, async (req) => {
    const { params, query } = partsOf<unknown, { id: string }, { ip: string }>(req);
    const ip = parseIP(query.ip);
    if (ip === undefined) throw new ApiError('invalid_ip', { field: 'ip', value: query.ip });
    const edge = findEdge(accountOfRequest(req), params.id);
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
