// GET /<collection> and GET /<collection>/{id}: the two read routes every resource whose list takes only the page query declares alike.
import type { FastifyInstance } from 'fastify';
import type { ConfigKind } from '../configlog/format.js';
import type { AdminContext } from './context.js';
import { listPage } from './list-response.js';
import { idParams, listQuery, listSchema, responses } from './schemas.js';
import type { PageQuery } from './store.js';

export interface ReadRoutes<T extends { id: string }> {
  /** The collection, e.g. "/event_destinations"; the item route is `<path>/:id`. */
  readonly path: string;
  readonly kind: ConfigKind;
  /** The key of the items in a list response, e.g. "event_destinations". */
  readonly listKey: string;
  readonly tags: string[];
  /** The schema of one resource as the API returns it. */
  readonly schema: Record<string, unknown>;
  /** OpenAPI summary of the list route and description of its 200 response. */
  readonly list: { readonly summary: string; readonly description: string };
  /** The same for the item route. */
  readonly get: { readonly summary: string; readonly description: string };
  /** The stored resource with that id, or a thrown 404. */
  readonly find: (id: string) => T;
  /** The resource as the API returns it. */
  readonly view: (item: T) => unknown;
}

/** Registers the list route then the item route, in the place of the caller's other routes it is called at. */
export function registerReadRoutes<T extends { id: string }>(app: FastifyInstance, ctx: AdminContext, r: ReadRoutes<T>): void {
  app.get<{ Querystring: PageQuery }>(
    r.path,
    {
      schema: {
        tags: r.tags,
        summary: r.list.summary,
        querystring: listQuery,
        response: responses({ 200: listSchema(r.listKey, r.schema, r.list.description) }, [400]),
      },
    },
    async (req) => listPage(ctx, r.path, r.listKey, ctx.store.page<T>(r.kind, req.query), req.query, (item) => r.view(item)),
  );

  app.get<{ Params: { id: string } }>(
    `${r.path}/:id`,
    {
      schema: {
        tags: r.tags,
        summary: r.get.summary,
        params: idParams,
        response: responses({ 200: { description: r.get.description, ...r.schema } }, [400, 404]),
      },
    },
    async (req) => r.view(r.find(req.params.id)),
  );
}
