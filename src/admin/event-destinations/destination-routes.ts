// /event_destinations: create, list, get, update, delete. Secrets are sealed before they reach the config
// log and answered as null; a target is checked before it is stored (accepted means deliverable, unless
// the request says "verify": false); answers carry the destination's status; a destination still used by
// a subscription cannot be deleted.
import type { FastifyInstance } from 'fastify';
import { accountContext, accountOf, type AccountContext } from '../../accounts/account.js';
import type { StoredDestination, StoredSubscription, StoredTarget } from '../../configlog/resources.js';
import type { ConfigProblem } from '../../delivery/destination-config.js';
import { acceptTarget } from '../../delivery/destination-target.js';
import type { TimestampFormat } from '../../events/timestamp-format.js';
import type { AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { registerResourceRoutes, resourceStore, type BaseFields, type Resource } from '../resource-routes.js';
import { DESTINATION_SCHEMAS, targetRules } from './destination-schemas.js';
import { destinationStatusView } from './destination-status.js';
import { destinationView } from './destination-view.js';

/** The delete's query: whether its kafka topic on the service's own cluster goes too. */
const DELETE_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    delete_topic: {
      type: 'boolean',
      default: false,
      description: "true: delete the destination's kafka topic on the service's own cluster with it (refused while another destination writes to it). Default false: the topic stays, with its events.",
    },
  },
} as const;

interface DestinationBody {
  description?: string;
  metadata?: string;
  format?: string;
  timestamp_format?: TimestampFormat;
  target?: unknown;
  /** false skips the target's create-time check; never stored. */
  verify?: boolean;
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
    // The status is the workers' report, not config: in answers, not in audit events.
    live: (d) => ({ status: destinationStatusView(ctx.destinations.status(d.id)) }),
    audit: 'event_destination',
  };
}

/** A target's problems as the API answers them: the first's error, every one in details.problems. */
function refusal(problems: readonly ConfigProblem[]): ApiError {
  return ApiError.all(problems.map((p) => new ApiError(p.code, p.details)));
}

export function registerEventDestinationRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const seal = (clear: string): string => ctx.secrets.seal(clear);
  const open = (sealed: string): string | undefined => ctx.secrets.open(sealed);
  /** The stored target of a destination of `account`; the kind checks it with that account's rules. */
  const target = (raw: unknown, account: AccountContext, previous?: StoredTarget): StoredTarget => {
    const r = acceptTarget(raw, { seal, open, previous, account, egress: ctx.destinations.egress });
    // A problem's code is an API error code and its details the error's (src/delivery/destination-config.ts).
    if (!r.ok) throw refusal(r.problems);
    return r.target;
  };
  /** The accepted target, checked against the destination itself unless the request skips it (422 when it fails). */
  const checked = async (body: DestinationBody, account: AccountContext, previous?: StoredTarget): Promise<StoredTarget> => {
    const t = target(body.target, account, previous);
    // The guard (where a target may point) runs whatever "verify" says; the check only unless it is false.
    const problem = await ctx.destinations.verify(t, account, body.verify !== false);
    if (problem !== undefined) throw new ApiError(problem.code, problem.details);
    return t;
  };
  const resource = destinationResource(ctx);
  const { find } = resourceStore(ctx, resource);

  /** Why a target the schema refused is wrong, in its kind's own words (its first problem), when its kind sees one. */
  const explain = (body: unknown, at: string, account: AccountContext): ApiError | undefined => {
    const raw = (body as DestinationBody | undefined)?.target;
    if (raw === undefined || !at.startsWith('/target')) return undefined;
    const r = acceptTarget(raw, { seal: () => '', account, egress: ctx.destinations.egress });
    return r.ok ? undefined : refusal(r.problems);
  };

  const build = (body: DestinationBody, base: BaseFields, t: StoredTarget): StoredDestination => ({
    ...base,
    format: 'json',
    ...(body.timestamp_format !== undefined && { timestamp_format: body.timestamp_format }),
    target: t,
  });
  // Checked before the lock against the stored target of then; accepted again under the lock, so secrets
  // kept from the stored target are the current ones.
  const prepareUpdate = async (body: DestinationBody, acting: AccountContext, id: string | undefined): Promise<void> => {
    if (body.target !== undefined) await checked(body, acting, find(acting, id ?? '').target);
  };
  const apply = (d: StoredDestination, body: DestinationBody, _p: unknown, acting: AccountContext): StoredDestination => ({
    ...d,
    ...(body.timestamp_format !== undefined && { timestamp_format: body.timestamp_format }),
    target: body.target === undefined ? d.target : target(body.target, acting, d.target),
  });
  /**
   * A destination a subscription still uses cannot be deleted: the subscription would lose its events. With
   * delete_topic, its topic on the service's cluster goes first (removable-target.ts), unless another
   * destination writes to it; a topic the cluster would not delete leaves the destination as it was.
   */
  const cascade = async (d: StoredDestination, acting: AccountContext, _commit: unknown, query: { delete_topic?: boolean }) => {
    const users = store
      .all<StoredSubscription>('event_subscription')
      .filter((s) => s.destination_ids.includes(d.id))
      .map((s) => s.id);
    if (users.length > 0) throw new ApiError('event_destination_in_use', { id: d.id, subscriptions: users });
    if (query.delete_topic === true) {
      const removable = ctx.destinations.removable(d.target, acting);
      if (removable === undefined) throw new ApiError('invalid_parameter', { location: 'query', field: 'delete_topic', reason: "applies only to a kafka destination on the service's own cluster (a target without brokers)" });
      const sharing = store.all<StoredDestination>('event_destination').filter((o) => o.id !== d.id && ctx.destinations.removable(o.target, accountContext(accountOf(o)))?.key === removable.key);
      if (sharing.length > 0) {
        const own = sharing.filter((o) => accountOf(o) === acting.accountId).map((o) => o.id);
        // Another account's destination is not named (SECURITY.md "Who may do what").
        const by = own.length === sharing.length ? `this account's destination(s) ${own.join(', ')}` : 'a destination of another account';
        throw new ApiError('topic_in_use', { field: 'delete_topic', topic: removable.name, by, ...(own.length === sharing.length && { destination_ids: own }) });
      }
      await removable.remove().catch((err: unknown) => {
        const why = err instanceof Error ? err.message : String(err);
        throw new ApiError('unavailable', { reason: `${removable.name} could not be deleted (${why}), so the destination was not deleted either` });
      });
    }
    return { writes: [], audits: [] };
  };

  registerResourceRoutes(app, ctx, resource, {
    create: {
      summary: 'Create an event destination; its target is checked first unless "verify" is false.',
      description: 'The new destination; secrets are null.',
      rules: targetRules('create'),
      explain,
      errors: [409, 422],
      prepare: (body: DestinationBody, acting: AccountContext) => checked(body, acting),
      build,
      links: {
        createEventSubscription: { operationId: 'createEventSubscription', description: "A subscription delivering to the new destination: its id (the response's id) in destination_ids." },
        sendTestEvent: { operationId: 'sendTestEvent', parameters: { id: '$response.body#/id' } },
      },
    },
    list: ['List event destinations, newest first.', 'A page of event destinations.'],
    get: ['Get an event destination.', 'The destination with its status; secrets are null.'],
    update: {
      summary: 'Update an event destination; a target sent replaces the whole target, keeping omitted secrets, and is checked first unless "verify" is false.',
      description: 'The updated destination; secrets are null.',
      rules: targetRules('update'),
      explain,
      errors: [409, 422],
      prepare: prepareUpdate,
      apply,
    },
    remove: {
      summary: 'Delete an event destination; refused while an event subscription uses it. Its kafka topic stays, unless delete_topic is true.',
      description:
        "A kafka destination's topic on the service's own cluster outlives the destination and keeps counting against the account's partitions there (a limit the operator sets), " +
        'unless the delete sends delete_topic=true: the topic is deleted first, then the destination (409 topic_in_use while another destination writes to it). Parked events of the destination are dead-lettered either way.',
      querystring: DELETE_QUERY,
      rules: [
        { code: 'invalid_parameter', rule: "delete_topic=true applies to a kafka destination on the service's own cluster (a target without brokers)" },
      ],
      errors: [409],
      cascade,
    },
  });
}
