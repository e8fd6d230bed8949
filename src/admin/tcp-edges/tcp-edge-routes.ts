// /edges/tcp: create, list, get, update, delete. SPEC.md 6.1 has no audit kind for a TCP edge, so edge
// changes emit no audit event of their own; deleting an edge that has an IP restriction emits
// ip_restriction_deleted.v0 for the module that goes with it.
import type { FastifyInstance } from 'fastify';
import { newId } from '../../ids.js';
import { principalOf, type AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { ipRestrictionAudit } from '../ip-restriction/ip-restriction-audit.js';
import { registerReadRoutes } from '../read-routes.js';
import { BODY_ERRORS, idParams, noContent, responses } from '../schemas.js';
import { checkTextLimits } from '../text-limits.js';
import { normalizeHostport } from './hostport.js';
import { tcpEdgeCreateBody, tcpEdgeSchema, tcpEdgeUpdateBody, tcpEdgeView, type StoredTcpEdge } from './tcp-edge-view.js';

interface EdgeBody {
  description?: string;
  metadata?: string;
  hostports?: string[];
}
interface IdParams {
  id: string;
}

const tags = ['TCP edges'];

export function registerTcpEdgeRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const find = (id: string): StoredTcpEdge => {
    const e = store.get<StoredTcpEdge>('tcp_edge', id);
    if (e === undefined) throw new ApiError('not_found', { resource: 'TCP edge', id });
    return e;
  };
  /** Canonical hostports, unique in the list (400) and across edges (409). */
  const hostports = (given: readonly string[], self?: string): string[] => {
    const out = given.map((h, i) => normalizeHostport(h, `hostports[${i}]`));
    out.forEach((h, i) => {
      if (out.indexOf(h) !== i) throw new ApiError('duplicate_value', { field: `hostports[${i}]`, value: h });
    });
    for (const e of store.all<StoredTcpEdge>('tcp_edge')) {
      if (e.id === self) continue;
      const taken = out.find((h) => e.hostports.includes(h));
      if (taken !== undefined) throw new ApiError('hostport_in_use', { field: 'hostports', hostport: taken, edge_id: e.id });
    }
    return out;
  };

  app.post<{ Body: EdgeBody }>(
    '/edges/tcp',
    {
      schema: {
        tags,
        summary: 'Create a TCP edge (its IP restriction is set with PUT /edges/tcp/{id}/ip_restriction).',
        body: tcpEdgeCreateBody,
        response: responses({ 201: { description: 'The new edge.', ...tcpEdgeSchema } }, [...BODY_ERRORS, 409]),
      },
    },
    async (req, reply) => {
      const body = req.body ?? {};
      checkTextLimits(body);
      const edge = await store.exclusive(async () => {
        const e: StoredTcpEdge = {
          id: newId('tcp_edge'),
          created_at: new Date().toISOString(),
          description: body.description ?? '',
          metadata: body.metadata ?? '',
          hostports: hostports(body.hostports ?? []),
          ip_restriction: null,
        };
        await store.commit([{ kind: 'tcp_edge', id: e.id, data: e }], [], principalOf(req));
        return e;
      });
      return reply.code(201).send(tcpEdgeView(ctx, edge));
    },
  );

  registerReadRoutes(app, ctx, {
    path: '/edges/tcp',
    kind: 'tcp_edge',
    listKey: 'tcp_edges',
    tags,
    schema: tcpEdgeSchema,
    list: { summary: 'List TCP edges, newest first.', description: 'A page of TCP edges.' },
    get: { summary: 'Get a TCP edge with its IP restriction.', description: 'The edge.' },
    find,
    view: (e) => tcpEdgeView(ctx, e),
  });

  app.patch<{ Params: IdParams; Body: EdgeBody }>(
    '/edges/tcp/:id',
    {
      schema: {
        tags,
        summary: 'Update the description, metadata or hostports (replaced as a whole) of a TCP edge.',
        params: idParams,
        body: tcpEdgeUpdateBody,
        response: responses({ 200: { description: 'The updated edge.', ...tcpEdgeSchema } }, [...BODY_ERRORS, 404, 409]),
      },
    },
    async (req) => {
      const body = req.body ?? {};
      checkTextLimits(body);
      const next = await store.exclusive(async () => {
        const e = find(req.params.id);
        const updated: StoredTcpEdge = {
          ...e,
          description: body.description ?? e.description,
          metadata: body.metadata ?? e.metadata,
          hostports: body.hostports === undefined ? e.hostports : hostports(body.hostports, e.id),
        };
        await store.commit([{ kind: 'tcp_edge', id: e.id, data: updated }], [], principalOf(req));
        return updated;
      });
      return tcpEdgeView(ctx, next);
    },
  );

  app.delete<{ Params: IdParams }>(
    '/edges/tcp/:id',
    {
      schema: {
        tags,
        summary: 'Delete a TCP edge and its IP restriction.',
        params: idParams,
        response: responses({ 204: noContent }, [400, 404]),
      },
    },
    async (req, reply) => {
      await store.exclusive(async () => {
        const e = find(req.params.id);
        const audits = e.ip_restriction === null ? [] : [ipRestrictionAudit(ctx, 'deleted', e.id, e.ip_restriction)];
        await store.commit([{ kind: 'tcp_edge', id: e.id, data: null }], audits, principalOf(req));
      });
      return reply.code(204).send();
    },
  );
}
