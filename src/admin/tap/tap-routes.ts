// Live taps (ARCHITECTURE.md "Live tap"): GET /event_subscriptions/{id}/tap streams what a subscription
// matches from now on, POST /tap what a source not saved yet would match, as server-sent events. A tap
// sees what its key may see: another account's subscription is 404, and a normal account's tap only that
// account's records, as its subscriptions do.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { OPERATOR_ACCOUNT_ID, accountOf, type AccountContext } from '../../accounts/account.js';
import type { StoredDestination, StoredSource, StoredSubscription } from '../../configlog/resources.js';
import { DEFAULT_TIMESTAMP_FORMAT } from '../../events/timestamp-format.js';
import { TAP_DEFAULT_LIMIT, TAP_DEFAULT_SECONDS, TAP_MAX_LIMIT, TAP_MAX_SECONDS, type TapOpen } from '../../tap/tap-protocol.js';
import { TapSession } from '../../tap/tap-session.js';
import { accountOfRequest, principalOf, type AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { resourceStore } from '../resource-routes.js';
import { partsOf, route } from '../route.js';
import { idParams, type Schema } from '../schemas.js';
import { sourceProblem, validateSource, type SourceInput } from '../event-subscriptions/source-input.js';
import { checkAccountFilterCost, sourcesCost } from '../event-subscriptions/filter-cost.js';
import { SOURCE_RULES, sourceRequest } from '../event-subscriptions/subscription-schemas.js';
import { subscriptionResource } from '../event-subscriptions/subscription-routes.js';

/** Taps one API process streams at once; more are answered 503. */
export const MAX_OPEN_TAPS = 100;
/** Taps one account may have open on one API process, so no account takes them all. */
export const MAX_OPEN_TAPS_PER_ACCOUNT = 20;

interface TapQuery {
  readonly seconds?: number;
  readonly limit?: number;
}

const tapQuery: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    seconds: { type: 'integer', minimum: 1, maximum: TAP_MAX_SECONDS, default: TAP_DEFAULT_SECONDS, description: `The tap ends after this many seconds; at most ${TAP_MAX_SECONDS}.` },
    limit: { type: 'integer', minimum: 1, maximum: TAP_MAX_LIMIT, default: TAP_DEFAULT_LIMIT, description: `The tap ends after this many events; at most ${TAP_MAX_LIMIT}.` },
  },
};

const STREAM_TEXT =
  'A text/event-stream: each event one `data:` line holding the envelope as a destination receives it; comment lines (starting with ":") say when the tap opened, how many workers of the group listen, how many events were skipped over 100 events/s, and why it ended. It ends by itself after `seconds` or `limit` events, and at once when no worker of the group is running.';

const streamResponse: Schema = {
  description: STREAM_TEXT,
  content: { 'text/event-stream': { schema: { type: 'string' } } },
};

const TAGS = ['Live tap'];

export function registerTapRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const subscriptions = resourceStore(ctx, subscriptionResource(ctx));

  route(
    app,
    'GET',
    '/event_subscriptions/:id/tap',
    {
      operationId: 'tapEventSubscription',
      tags: TAGS,
      summary: 'Stream the events a subscription matches from now on, as its first destination receives them, paused or not.',
      params: idParams('event_subscription', 'event subscription'),
      querystring: tapQuery,
      ok: [200, streamResponse],
      // 409 filter_cost_limit: the tap's filters would pass the account's work per record.
      errors: [404, 409],
    },
    async (req, reply) => {
      const sub = subscriptions.find(accountOfRequest(req), partsOf(req).params.id) as StoredSubscription;
      const destination = sub.destination_ids[0];
      const format = destination === undefined ? undefined : ctx.store.get<StoredDestination>('event_destination', destination)?.timestamp_format;
      await stream(ctx, req, reply, {
        owner: ownerOf(accountOf(sub)),
        sources: sub.sources,
        ids: { subscription: sub.id, destination: destination ?? '' },
        timestamp_format: format ?? DEFAULT_TIMESTAMP_FORMAT,
        sample_seed_id: sub.id,
      });
    },
  );

  route(
    app,
    'POST',
    '/tap',
    {
      operationId: 'tapEventSource',
      tags: TAGS,
      summary: 'Stream the events one source (type, fields, filter) would match from now on, without saving it; the source is checked as at create.',
      querystring: tapQuery,
      body: sourceRequest,
      ok: [200, streamResponse],
      errors: [409],
      rules: SOURCE_RULES,
      explain: (body) => sourceProblem(body),
    },
    async (req, reply) => {
      const acting: AccountContext = accountOfRequest(req);
      const checked = validateSource(partsOf<SourceInput>(req).body);
      if (!checked.ok) throw checked.error;
      const sources: StoredSource[] = [checked.source];
      await stream(ctx, req, reply, {
        owner: ownerOf(acting.accountId),
        sources,
        // Event ids of the tap alone: no destination receives these events.
        ids: { subscription: '', destination: '' },
        timestamp_format: DEFAULT_TIMESTAMP_FORMAT,
      });
    },
  );
}

/** The owner a tap is limited to: none for the operator's account, whose subscriptions see every record. */
function ownerOf(account: string): string | null {
  return account === OPERATOR_ACCOUNT_ID ? null : account;
}

type TapBody = Omit<TapOpen, 'v' | 'op' | 'tap' | 'expires_at' | 'limit' | 'ids'> & { readonly ids: TapOpen['ids'] };

async function stream(ctx: AdminContext, req: FastifyRequest, reply: FastifyReply, body: TapBody): Promise<void> {
  const taps = ctx.taps;
  if (taps === undefined) throw new ApiError('unavailable', { reason: 'live taps are not served by this process' });
  if (taps.open >= MAX_OPEN_TAPS) throw new ApiError('unavailable', { reason: `${MAX_OPEN_TAPS} live taps are open on this process` });
  const openedBy = accountOfRequest(req).accountId;
  if (taps.openBy(openedBy) >= MAX_OPEN_TAPS_PER_ACCOUNT) {
    throw new ApiError('unavailable', { reason: `this account has ${MAX_OPEN_TAPS_PER_ACCOUNT} live taps open on this process; close one first` });
  }
  // A tap's filters are evaluated on every record of its owner, as a subscription's are: they count in the account's filter work.
  const cost = sourcesCost(body.sources);
  checkAccountFilterCost(ctx, openedBy, cost);
  const query = partsOf<unknown, unknown, TapQuery>(req).query;
  const seconds = query.seconds ?? TAP_DEFAULT_SECONDS;
  const limit = query.limit ?? TAP_DEFAULT_LIMIT;
  const tap = `tap_${randomBytes(10).toString('hex')}`;
  const request: TapOpen = {
    v: 1,
    op: 'open',
    tap,
    ...body,
    ids: { subscription: body.ids.subscription === '' ? tap : body.ids.subscription, destination: body.ids.destination },
    expires_at: Date.now() + seconds * 1000,
    limit,
  };
  // A tap streams only while what let it open is there: the key it was opened with, and its subscription.
  const keyId = principalOf(req).id;
  const subscription = body.ids.subscription;
  const revoked = (): string | undefined => {
    if (ctx.store.get('api_key', keyId) === undefined) return 'its API key was deleted';
    if (subscription !== '' && ctx.store.get('event_subscription', subscription) === undefined) return 'its subscription was deleted';
    return undefined;
  };
  const session = new TapSession(reply.raw, { tap, limit, seconds, onEnd: () => taps.closeTap(tap), revoked });
  // Opened before the answer starts, so a failure is still an error answer.
  let members: string[] | undefined;
  try {
    members = await taps.openTap(request, session, openedBy, cost);
  } catch {
    throw new ApiError('unavailable', { reason: 'the tap could not be opened on the broker' });
  }
  reply.hijack();
  session.begin();
  session.waitFor(members);
}
