// /event_destinations: create, list, get, update, delete. Secrets are sealed before they reach the config
// log and answered as null; a destination still used by a subscription cannot be deleted.
import type { FastifyInstance } from 'fastify';
import type { AccountContext } from '../../accounts/account.js';
import type { StoredDestination, StoredSubscription, StoredTarget } from '../../configlog/resources.js';
import { acceptTarget } from '../../delivery/destination-target.js';
import type { AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { registerResourceRoutes, type BaseFields, type Resource } from '../resource-routes.js';
import { DESTINATION_SCHEMAS, targetRules } from './destination-schemas.js';
import { destinationView } from './destination-view.js';

interface DestinationBody {
  description?: string;
  metadata?: string;
  format?: string;
  target?: unknown;
}

/** Event destinations as a resource. The view answers every secret as null, so the audit event carries none either. */
export function destinationResource(ctx: AdminContext): Resource<StoredDestination> {
  return {
    path: '/event_destinations',
    kind: 'event_destination',
    name: 'event destination',
    listKey: 'event_destinations',
    tags: ['Event destinations'],
    schemas: DESTINATION_SCHEMAS,
    view: (d) => ({ ...destinationView(ctx, d) }),
    audit: 'event_destination',
  };
}

export function registerEventDestinationRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const seal = (clear: string): string => ctx.secrets.seal(clear);
  /** The stored target of a destination of `account`; the kind checks it with that account's rules. */
  const target = (raw: unknown, account: AccountContext, previous?: StoredTarget): StoredTarget => {
    const r = acceptTarget(raw, { seal, previous, account });
    // A problem's code is an API error code and its details the error's (src/delivery/destination-config.ts).
    if (!r.ok) throw new ApiError(r.problem.code, r.problem.details);
    return r.target;
  };
  const resource = destinationResource(ctx);

  /** Why a target the schema refused is wrong, in its kind's own words (its first problem), when its kind sees one. */
  const explain = (body: unknown, at: string, account: AccountContext): ApiError | undefined => {
    const raw = (body as DestinationBody | undefined)?.target;
    if (raw === undefined || !at.startsWith('/target')) return undefined;
    const r = acceptTarget(raw, { seal: () => '', account });
    return r.ok ? undefined : new ApiError(r.problem.code, r.problem.details);
  };

  const build = (_body: DestinationBody, base: BaseFields, t: StoredTarget): StoredDestination => ({ ...base, format: 'json', target: t });
  const apply = (d: StoredDestination, body: DestinationBody, _p: unknown, acting: AccountContext): StoredDestination => ({
    ...d,
    target: body.target === undefined ? d.target : target(body.target, acting, d.target),
  });
  /** A destination a subscription still uses cannot be deleted: the subscription would lose its events. */
  const cascade = (d: StoredDestination) => {
    const users = store
      .all<StoredSubscription>('event_subscription')
      .filter((s) => s.destination_ids.includes(d.id))
      .map((s) => s.id);
    if (users.length > 0) throw new ApiError('event_destination_in_use', { id: d.id, subscriptions: users });
    return { writes: [], audits: [] };
  };

  registerResourceRoutes(app, ctx, resource, {
    create: {
      summary: 'Create an event destination.',
      description: 'The new destination; secrets are null.',
      rules: targetRules('create'),
      explain,
      prepare: (body: DestinationBody, acting: AccountContext) => target(body.target, acting),
      build,
      links: {
        createEventSubscription: { operationId: 'createEventSubscription', requestBody: { destination_ids: ['$response.body#/id'] } },
        sendTestEvent: { operationId: 'sendTestEvent', parameters: { id: '$response.body#/id' } },
      },
    },
    list: ['List event destinations, newest first.', 'A page of event destinations.'],
    get: ['Get an event destination.', 'The destination; secrets are null.'],
    update: {
      summary: 'Update an event destination; a target sent replaces the whole target, keeping omitted secrets.',
      description: 'The updated destination; secrets are null.',
      rules: targetRules('update'),
      explain,
      apply,
    },
    remove: { summary: 'Delete an event destination; refused while an event subscription uses it.', errors: [409], cascade },
  });
}
