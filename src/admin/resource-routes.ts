// The routes of a resource kept in the config log, declared alike for every resource: create, list, get,
// update and delete. A resource module states what differs (its field table, how an item is built and
// changed, what goes with a delete); the checks, the lock, the commit with its audit event, the status
// codes, the operation ids and the links from a create to what it created are here, once. So is the
// account scope: an item belongs to the account of the key that created it, and another account's item
// is answered 404 on every route and left out of every list (src/admin/README.md "Accounts").
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { OPERATOR_ACCOUNT_ID, accountOf, type AccountContext, type Owned } from '../accounts/account.js';
import type { ConfigWrite } from '../configlog/config-log.js';
import type { ConfigKind } from '../configlog/format.js';
import type { AuditAction, AuditKind } from '../events/catalog.js';
import { newId, type IdKind } from '../ids.js';
import { accountOfRequest, principalOf, type AdminContext } from './context.js';
import { ApiError } from './errors.js';
import { listPage } from './list-response.js';
import type { ResourceSchemas } from './resource-fields.js';
import { partsOf, route, type BeyondSchemaRule, type Link, type RouteConfig, type RouteSpec } from './route.js';
import { idParams, listQuery as pageQuery, listSchema, named, noContent, pascal, type Schema } from './schemas.js';
import type { AuditRecord, PageQuery } from './store.js';
import { TEXT_BYTES_RULE, checkTextLimits, type LimitUnit } from './text-limits.js';

/** The fields every resource starts with; description and metadata default to "". */
export interface BaseFields {
  readonly id: string;
  /** The account of the key that created it. */
  readonly account_id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
}

interface TextFields {
  readonly description?: string;
  readonly metadata?: string;
}

export interface Resource<T extends Owned & { readonly id: string }> {
  /** The collection, e.g. "/api_keys"; items are at `<path>/{id}`. */
  readonly path: string;
  readonly kind: ConfigKind & IdKind;
  /** The resource in words, as 404s name it: "API key". */
  readonly name: string;
  /** Its plural in words, when it is not the name and an "s". */
  readonly plural?: string;
  /** The key of the items in a list response, e.g. "api_keys"; in PascalCase it names the list operation. */
  readonly listKey: string;
  readonly tags: readonly string[];
  /** Its request and response schemas, from its field table (resource-fields.ts). */
  readonly schemas: ResourceSchemas;
  view(item: T): Record<string, unknown>;
  /**
   * Read-only fields of API answers that are not part of the stored resource (a destination's status):
   * added after the view in every response, never in audit events.
   */
  live?(item: T): Record<string, unknown>;
  /** The kind of its audit events (`<audit>_<action>.v0`, the view as object); absent when it has none of its own. */
  readonly audit?: AuditKind;
  /** How description and metadata are counted; bytes unless said (text-limits.ts). */
  readonly textUnit?: LimitUnit;
  /** Whether the acting account may see an item; by default only its own (another's answers 404). */
  visibleTo?(acting: AccountContext, item: T): boolean;
  /** Only the operator account may use the routes: what they do, in words (route.ts `operatorOnly`). */
  readonly operatorOnly?: string;
}

export { pascal };

/** The operation ids of a resource's five routes. */
export function operationIds(r: Pick<Resource<never>, 'kind' | 'listKey'>) {
  const thing = pascal(r.kind);
  return { create: `create${thing}`, list: `list${pascal(r.listKey)}`, get: `get${thing}`, update: `update${thing}`, remove: `delete${thing}` };
}

/** What every resource item has: an id, its account, and a description and metadata an update may change. */
export type Item = Owned & Pick<BaseFields, 'id' | 'description' | 'metadata'>;

/** A route that takes a body: its texts, rules beyond its schema, error statuses beyond the usual, and checks before the lock. */
interface WriteRoute<B, P> {
  readonly summary: string;
  /** The description of the success response. */
  readonly description: string;
  readonly errors?: readonly number[];
  /** Rules the handler applies beyond the body schema (description and metadata in bytes are added). */
  readonly rules?: readonly BeyondSchemaRule[];
  readonly explain?: RouteConfig['explain'];
  /**
   * Checks run before the store is locked (so their errors come first, and a slow one holds no lock);
   * what they give is passed on. `id` is the item's on an update.
   */
  prepare?(body: B, acting: AccountContext, id: string | undefined): P | Promise<P>;
}

export interface ResourceRoutes<T extends Item, C extends TextFields, U extends TextFields, PC, PU> {
  readonly create: WriteRoute<C, PC> & {
    /**
     * The new item, with the store locked (store.ts), so what it checks still holds when it is written.
     * `base` holds the acting account's id; references the body makes must be to that account's items.
     */
    build(body: C, base: BaseFields, prepared: PC, acting: AccountContext): T;
    /** The 201 body, when it is more than the view. */
    reply?(item: T, prepared: PC): unknown;
    /** Links from the 201 response beyond those to get, update and delete the new item. */
    readonly links?: Readonly<Record<string, Link>>;
  };
  /** The list route's summary and its response's description. */
  readonly list: readonly [summary: string, description: string];
  /** Parameters of the list beyond the page ones, with the filter they make. */
  readonly listQuery?: ListQuery<T>;
  /** The item route's summary and its response's description. */
  readonly get: readonly [summary: string, description: string];
  /** Absent for a resource that cannot be changed once made. */
  readonly update?: WriteRoute<U, PU> & {
    /** The changed item (description and metadata already applied), with the store locked. */
    apply(item: T, body: U, prepared: PU, acting: AccountContext): T;
  };
  readonly remove: {
    readonly summary: string;
    readonly description?: string;
    readonly errors?: readonly number[];
    /** The delete's query parameters (an object schema), handed to cascade(). */
    readonly querystring?: Schema;
    readonly rules?: readonly BeyondSchemaRule[];
    /**
     * Checks and the writes and audit events that go with the delete, committed with the item's own (store
     * locked). One too large for a transaction commits the rest first with `commit`, and returns the last part.
     */
    cascade?(item: T, acting: AccountContext, commit: Commit, query: Record<string, unknown>): Cascade | Promise<Cascade>;
  };
}

/** What goes with a delete: config writes and audit events. */
export interface Cascade {
  readonly writes: readonly ConfigWrite[];
  readonly audits: readonly AuditRecord[];
}

/** Commits writes with their audit events as the acting key (AdminStore.commit). */
export type Commit = (writes: readonly ConfigWrite[], audits: readonly AuditRecord[]) => Promise<void>;

/** A list filter from the query, beyond the page parameters. */
export interface ListQuery<T> {
  readonly properties: Schema;
  filter(query: Record<string, unknown>): ((item: T) => boolean) | undefined;
}

/** Items of the acting account alone, unless the resource says otherwise. */
const ownItem = (acting: AccountContext, item: Owned): boolean => accountOf(item) === acting.accountId;

/** The stored item with that id the acting account may see, or a 404, and the audit records of its changes. */
export function resourceStore<T extends Item>(ctx: AdminContext, r: Resource<T>) {
  const visible = r.visibleTo ?? ownItem;
  return {
    visible,
    find(acting: AccountContext, id: string): T {
      const item = ctx.store.get<T>(r.kind, id);
      // Another account's item is not found either, so ids cannot be probed across accounts.
      if (item === undefined || !visible(acting, item)) throw new ApiError('not_found', { resource: r.name, id });
      return item;
    },
    audits(action: AuditAction, item: T): AuditRecord[] {
      return r.audit === undefined ? [] : [{ kind: r.audit, action, key: item.id, object: { ...r.view(item) } }];
    },
  };
}

/** The link parameter that carries the id a create answered with. */
const CREATED_ID = { id: '$response.body#/id' };

/** Registers create, list, get, update and delete, in that order (the order of the OpenAPI document). */
export function registerResourceRoutes<T extends Item, C extends TextFields, U extends TextFields, PC, PU>(
  app: FastifyInstance,
  ctx: AdminContext,
  r: Resource<T>,
  routes: ResourceRoutes<T, C, U, PC, PU>,
): void {
  const { store } = ctx;
  const { find, audits, visible } = resourceStore(ctx, r);
  const { create, list, listQuery: extra, get, update, remove } = routes;
  const { operatorOnly } = r;
  const { tags } = r;
  const ids = operationIds(r);
  // Named after the resource in the OpenAPI document: EventDestination, EventDestinationCreate, ...
  const thing = pascal(r.kind);
  const schemas = {
    ...r.schemas,
    create: named(`${thing}Create`, r.schemas.create),
    update: named(`${thing}Update`, r.schemas.update),
    response: named(thing, r.schemas.response),
  };
  const item = `${r.path}/:id`;
  const params = idParams(r.kind, r.name);
  const textRules = r.textUnit === 'characters' ? [] : [TEXT_BYTES_RULE];
  // A write of an account's resource is refused (409 account_deleted) once the account is deleted; the operator's never is (accounts are its).
  const ownedWrite = operatorOnly === undefined ? [409] : [];
  const answer = (t: T): Record<string, unknown> => (r.live === undefined ? r.view(t) : { ...r.view(t), ...r.live(t) });
  // An account other than the operator's holds at most config.accountResourceLimit items of each kind
  // (SECURITY.md "Who may do what"): every worker loads every account's items.
  const checkAccountLimit = (t: T): void => {
    const account = accountOf(t);
    const limit = ctx.config.accountResourceLimit;
    if (account === OPERATOR_ACCOUNT_ID || store.countOf(r.kind, account) < limit) return;
    throw new ApiError('resource_limit', { account_id: account, resource: r.plural ?? `${r.name}s`, limit });
  };
  const write = (req: FastifyRequest, t: T, action: AuditAction): Promise<void> =>
    store.commit([{ kind: r.kind, id: t.id, data: t }], audits(action, t), principalOf(req));

  const created: Record<string, Link> = {
    [`get${pascal(r.kind)}`]: { operationId: ids.get, parameters: CREATED_ID },
    ...(update !== undefined && { [`update${pascal(r.kind)}`]: { operationId: ids.update, parameters: CREATED_ID } }),
    [`delete${pascal(r.kind)}`]: { operationId: ids.remove, parameters: CREATED_ID },
    ...create.links,
  };
  const createSpec: RouteSpec = {
    operationId: ids.create,
    tags,
    summary: create.summary,
    body: schemas.create,
    ok: [201, { description: create.description, ...schemas.response }],
    errors: [...(create.errors ?? []), ...ownedWrite],
    rules: [...textRules, ...(create.rules ?? [])],
    explain: create.explain,
    links: created,
    operatorOnly,
  };
  route(app, 'POST', r.path, createSpec, async (req, reply) => {
    const body = (req.body ?? {}) as C;
    const acting = accountOfRequest(req);
    checkTextLimits(body, r.textUnit);
    const prepared = (await create.prepare?.(body, acting, undefined)) as PC;
    const t = await store.exclusive(async () => {
      const base = { id: newId(r.kind), account_id: acting.accountId, created_at: new Date().toISOString(), description: body.description ?? '', metadata: body.metadata ?? '' };
      const built = create.build(body, base, prepared, acting);
      checkAccountLimit(built);
      await write(req, built, 'created');
      return built;
    });
    return reply.code(201).send(create.reply?.(t, prepared) ?? answer(t));
  });

  const page = pageQuery(r.kind, r.name);
  const query = extra === undefined ? page : { ...page, properties: { ...(page.properties as Schema), ...extra.properties } };
  const listSpec: RouteSpec = { operationId: ids.list, tags, summary: list[0], querystring: query, ok: [200, listSchema(r.listKey, schemas.response, list[1], `${thing}List`)], errors: [400], operatorOnly };
  route(app, 'GET', r.path, listSpec, async (req) => {
    const q = req.query as PageQuery & Record<string, unknown>;
    const acting = accountOfRequest(req);
    const narrower = extra?.filter(q);
    const shown = (t: T): boolean => visible(acting, t) && (narrower === undefined || narrower(t));
    return listPage(ctx, r.path, r.listKey, store.page<T>(r.kind, q, shown), q, answer);
  });

  route(app, 'GET', item, { operationId: ids.get, tags, summary: get[0], params, ok: [200, { description: get[1], ...schemas.response }], errors: [404], operatorOnly }, async (req) =>
    answer(find(accountOfRequest(req), partsOf(req).params.id)),
  );

  if (update !== undefined) {
    const updateSpec: RouteSpec = {
      operationId: ids.update,
      tags,
      summary: update.summary,
      ...(schemas.immutable.length > 0 && { description: `${schemas.immutable.join(' and ')} cannot change: an update that sends ${schemas.immutable.length > 1 ? 'them' : 'it'} is refused with immutable_field.` }),
      params,
      body: schemas.update,
      ok: [200, { description: update.description, ...schemas.response }],
      errors: [404, ...(update.errors ?? []), ...ownedWrite],
      rules: [...textRules, ...(update.rules ?? [])],
      immutable: { fields: schemas.immutable, resource: r.name },
      explain: update.explain,
      operatorOnly,
    };
    route(app, 'PATCH', item, updateSpec, async (req) => {
      const body = (req.body ?? {}) as U;
      const acting = accountOfRequest(req);
      checkTextLimits(body, r.textUnit);
      const prepared = (await update.prepare?.(body, acting, partsOf(req).params.id)) as PU;
      const next = await store.exclusive(async () => {
        const current = find(acting, partsOf(req).params.id);
        // An item written before accounts existed gets its owner written down with its first change.
        const changed = { ...current, account_id: accountOf(current), description: body.description ?? current.description, metadata: body.metadata ?? current.metadata };
        const t = update.apply(changed, body, prepared, acting);
        await write(req, t, 'updated');
        return t;
      });
      return answer(next);
    });
  }

  const removeSpec: RouteSpec = {
    operationId: ids.remove,
    tags,
    summary: remove.summary,
    ...(remove.description !== undefined && { description: remove.description }),
    params,
    ...(remove.querystring !== undefined && { querystring: remove.querystring }),
    ok: [204, noContent],
    errors: [404, ...(remove.errors ?? [])],
    ...(remove.rules !== undefined && { rules: remove.rules }),
    operatorOnly,
  };
  route(app, 'DELETE', item, removeSpec, async (req, reply) => {
    const acting = accountOfRequest(req);
    await store.exclusive(async () => {
      const t = find(acting, partsOf(req).params.id);
      const commit: Commit = (writes, records) => store.commit(writes, records, principalOf(req));
      const extra = (await remove.cascade?.(t, acting, commit, (req.query ?? {}) as Record<string, unknown>)) ?? { writes: [], audits: [] };
      await commit([...extra.writes, { kind: r.kind, id: t.id, data: null }], [...extra.audits, ...audits('deleted', t)]);
    });
    return reply.code(204).send();
  });
}
