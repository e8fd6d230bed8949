// /ip_policies: create, list, get, update, delete. Deleting a policy deletes its rules with it (each
// emits ip_policy_rule_deleted.v0); a policy still used by a TCP edge's IP restriction cannot be deleted.
import type { FastifyInstance } from 'fastify';
import { newId } from '../../ids.js';
import type { ConfigWrite } from '../../configlog/config-log.js';
import { principalOf, type AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { registerReadRoutes } from '../read-routes.js';
import { BODY_ERRORS, idParams, noContent, responses } from '../schemas.js';
import type { AuditRecord } from '../store.js';
import type { StoredTcpEdge } from '../tcp-edges/tcp-edge-view.js';
import { checkTextLimits } from '../text-limits.js';
import {
  ipPolicyBody,
  ipPolicyRuleView,
  ipPolicySchema,
  ipPolicyView,
  type StoredIpPolicy,
  type StoredIpPolicyRule,
} from './ip-policy-view.js';

interface PolicyBody {
  description?: string;
  metadata?: string;
}
interface IdParams {
  id: string;
}

const tags = ['IP policies'];

export function registerIpPolicyRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const find = (id: string): StoredIpPolicy => {
    const p = store.get<StoredIpPolicy>('ip_policy', id);
    if (p === undefined) throw new ApiError('not_found', { resource: 'IP policy', id });
    return p;
  };
  const audit = (action: 'created' | 'updated' | 'deleted', p: StoredIpPolicy): AuditRecord => ({
    kind: 'ip_policy',
    action,
    key: p.id,
    object: ipPolicyView(ctx, p),
  });

  app.post<{ Body: PolicyBody }>(
    '/ip_policies',
    {
      schema: {
        tags,
        summary: 'Create an IP policy.',
        body: ipPolicyBody,
        response: responses({ 201: { description: 'The new policy.', ...ipPolicySchema } }, [...BODY_ERRORS]),
      },
    },
    async (req, reply) => {
      const body = req.body ?? {};
      checkTextLimits(body);
      const p: StoredIpPolicy = {
        id: newId('ip_policy'),
        created_at: new Date().toISOString(),
        description: body.description ?? '',
        metadata: body.metadata ?? '',
      };
      await store.exclusive(() => store.commit([{ kind: 'ip_policy', id: p.id, data: p }], [audit('created', p)], principalOf(req)));
      return reply.code(201).send(ipPolicyView(ctx, p));
    },
  );

  registerReadRoutes(app, ctx, {
    path: '/ip_policies',
    kind: 'ip_policy',
    listKey: 'ip_policies',
    tags,
    schema: ipPolicySchema,
    list: { summary: 'List IP policies, newest first.', description: 'A page of IP policies.' },
    get: { summary: 'Get an IP policy.', description: 'The policy.' },
    find,
    view: (p) => ipPolicyView(ctx, p),
  });

  app.patch<{ Params: IdParams; Body: PolicyBody }>(
    '/ip_policies/:id',
    {
      schema: {
        tags,
        summary: 'Update the description or metadata of an IP policy.',
        params: idParams,
        body: ipPolicyBody,
        response: responses({ 200: { description: 'The updated policy.', ...ipPolicySchema } }, [...BODY_ERRORS, 404]),
      },
    },
    async (req) => {
      const body = req.body ?? {};
      checkTextLimits(body);
      const next = await store.exclusive(async () => {
        const p = find(req.params.id);
        const updated: StoredIpPolicy = { ...p, description: body.description ?? p.description, metadata: body.metadata ?? p.metadata };
        await store.commit([{ kind: 'ip_policy', id: p.id, data: updated }], [audit('updated', updated)], principalOf(req));
        return updated;
      });
      return ipPolicyView(ctx, next);
    },
  );

  app.delete<{ Params: IdParams }>(
    '/ip_policies/:id',
    {
      schema: {
        tags,
        summary: 'Delete an IP policy and its rules; refused while a TCP edge IP restriction uses it.',
        params: idParams,
        response: responses({ 204: noContent }, [400, 404, 409]),
      },
    },
    async (req, reply) => {
      await store.exclusive(async () => {
        const p = find(req.params.id);
        const users = store
          .all<StoredTcpEdge>('tcp_edge')
          .filter((e) => e.ip_restriction?.ip_policy_ids.includes(p.id) === true)
          .map((e) => e.id);
        if (users.length > 0) throw new ApiError('ip_policy_in_use', { id: p.id, edges: users });
        const rules = store.all<StoredIpPolicyRule>('ip_policy_rule').filter((r) => r.ip_policy_id === p.id);
        const writes: ConfigWrite[] = [
          ...rules.map((r) => ({ kind: 'ip_policy_rule' as const, id: r.id, data: null })),
          { kind: 'ip_policy', id: p.id, data: null },
        ];
        const audits: AuditRecord[] = [
          ...rules.map((r): AuditRecord => ({ kind: 'ip_policy_rule', action: 'deleted', key: r.id, object: ipPolicyRuleView(ctx, r) })),
          audit('deleted', p),
        ];
        await store.commit(writes, audits, principalOf(req));
      });
      return reply.code(204).send();
    },
  );
}
