// /event_subscriptions/{id}/replays: send a subscription the matching events of a past time range
// (ARCHITECTURE.md "Replay", docs/subscription-controls.md "Replay"). The API checks the request, finds
// the range's offsets in the raw topics, readies the replay's consumer group at them and stores the
// replay in the config log; the workers read it from there, and report progress through Kafka.
import type { FastifyInstance } from 'fastify';
import { OPERATOR_ACCOUNT_ID, accountOf } from '../../accounts/account.js';
import type { StoredSubscription } from '../../configlog/resources.js';
import { isTrafficEventType } from '../../events/catalog.js';
import { newId } from '../../ids.js';
import { createLogger } from '../../telemetry/logger.js';
import type { ReplaySupport } from '../../replay/replay-support.js';
import type { StoredReplay } from '../../replay/replay-record.js';
import { accountOfRequest, principalOf, type AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { listPage } from '../list-response.js';
import { resourceStore } from '../resource-routes.js';
import { partsOf, route } from '../route.js';
import { idParams, listQuery, noContent } from '../schemas.js';
import type { PageQuery } from '../store.js';
import { checkTextLimits } from '../text-limits.js';
import { subscriptionResource } from '../event-subscriptions/subscription-routes.js';
import { REPLAY_RULES, replayCreate, replayList, replayParams, replayResponse } from './replay-schemas.js';
import { replayResource, replaysPath, statusOf } from './replay-view.js';

const log = createLogger('replays');

interface ReplayBody {
  from: string;
  to?: string;
  destination_ids?: string[];
  sources?: string[];
  description?: string;
  metadata?: string;
}

interface ReplayParams {
  id: string;
  replay_id: string;
}

const TAGS = ['Replays'];

/** Replays queued or running: those that count against ACCOUNT_MAX_REPLAYS. */
function active(ctx: AdminContext, r: StoredReplay): boolean {
  if (r.ended !== undefined) return false;
  const state = statusOf(ctx, r).state;
  return state === 'queued' || state === 'running';
}

function support(ctx: AdminContext): ReplaySupport {
  if (ctx.replays === undefined) throw new ApiError('unavailable', { reason: 'this process does not serve replays' });
  return ctx.replays;
}

export function registerReplayRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { store } = ctx;
  const subscriptions = resourceStore(ctx, subscriptionResource(ctx));
  const replays = resourceStore(ctx, replayResource(ctx));
  const list = '/event_subscriptions/:id/replays';
  const one = `${list}/:replay_id`;
  const findReplay = (req: Parameters<typeof accountOfRequest>[0], params: ReplayParams): StoredReplay => {
    const sub = subscriptions.find(accountOfRequest(req), params.id);
    const r = store.get<StoredReplay>('replay', params.replay_id);
    if (r === undefined || r.subscription_id !== sub.id) throw new ApiError('not_found', { resource: 'replay', id: params.replay_id });
    return r;
  };

  route(
    app,
    'POST',
    list,
    {
      operationId: 'createReplay',
      tags: TAGS,
      summary: "Replay a past time range to a subscription: the events its current sources match among the records stamped in [from, to), to its destinations (or those named).",
      description:
        'Paused subscriptions may be replayed: a replay is an explicit request. Event ids are those live delivery gives, so a receiver drops overlaps by event_id. The answer is at once; the replay runs in the workers, and GET shows its progress.',
      params: idParams('event_subscription', 'event subscription'),
      body: replayCreate,
      ok: [201, { description: 'The new replay, queued.', ...replayResponse }],
      errors: [404, 409, 422],
      rules: REPLAY_RULES,
      links: {
        getReplay: { operationId: 'getReplay', parameters: { id: '$request.path.id', replay_id: '$response.body#/id' } },
        cancelReplay: { operationId: 'cancelReplay', parameters: { id: '$request.path.id', replay_id: '$response.body#/id' } },
      },
    },
    async (req, reply) => {
      const { body, params } = partsOf<ReplayBody>(req);
      const acting = accountOfRequest(req);
      const sub = subscriptions.find(acting, params.id) as StoredSubscription;
      checkTextLimits(body);
      const now = Date.now();
      const fromMs = Date.parse(body.from);
      const toMs = body.to === undefined ? now : Date.parse(body.to);
      // RFC 3339 allows what a JavaScript date cannot hold (a leap second): said as the schema would say it.
      for (const [field, ms] of [['from', fromMs], ['to', toMs]] as const) {
        if (!Number.isFinite(ms)) throw new ApiError('invalid_body', { field, reason: 'is not a time this service can read (RFC 3339, without a leap second)' });
      }
      if (fromMs > now) throw new ApiError('replay_range_in_future', { field: 'from', value: body.from, now: new Date(now).toISOString() });
      if (toMs > now) throw new ApiError('replay_range_in_future', { field: 'to', value: body.to, now: new Date(now).toISOString() });
      if (toMs <= fromMs) throw new ApiError('replay_range_invalid', { from: body.from, to: body.to ?? new Date(toMs).toISOString() });
      const destinationIds = body.destination_ids ?? [...sub.destination_ids];
      destinationIds.forEach((id, i) => {
        if (!sub.destination_ids.includes(id)) throw new ApiError('replay_destination_not_subscribed', { field: `destination_ids[${i}]`, id, subscription_id: sub.id });
      });
      const traffic: string[] = sub.sources.map((s) => s.type).filter(isTrafficEventType);
      (body.sources ?? []).forEach((type, i) => {
        if (!traffic.includes(type)) throw new ApiError('replay_source_not_subscribed', { field: `sources[${i}]`, type, subscription_id: sub.id });
      });
      const types = body.sources ?? traffic;
      if (types.length === 0 || destinationIds.length === 0) throw new ApiError('replay_no_traffic_sources', { subscription_id: sub.id });
      const kafka = support(ctx);
      const account = accountOf(sub);
      const checkLimits = (): void => {
        const mine = store.all<StoredReplay>('replay').filter((r) => accountOf(r) === account);
        if (mine.filter((r) => active(ctx, r)).length >= ctx.config.replay.accountMax) throw new ApiError('replay_limit', { account_id: account, limit: ctx.config.replay.accountMax });
        if (account !== OPERATOR_ACCOUNT_ID && mine.length >= ctx.config.accountResourceLimit) {
          throw new ApiError('resource_limit', { account_id: account, resource: 'replays', limit: ctx.config.accountResourceLimit });
        }
      };
      // Checked before the range is looked up, and again with the store locked, where it holds for the write.
      checkLimits();
      let range;
      try {
        range = await kafka.range(types, fromMs, toMs);
      } catch (err) {
        log.warn({ err, subscription: sub.id }, 'The offsets of a replay range could not be found.');
        throw new ApiError('unavailable', { reason: 'the raw topics did not answer' });
      }
      if (!range.ok) throw new ApiError('replay_before_retention', { field: 'from', from: body.from, earliest_available: new Date(range.earliestAvailableMs).toISOString() });
      const replay: StoredReplay = {
        id: newId('replay'),
        account_id: account,
        subscription_id: sub.id,
        created_at: new Date(now).toISOString(),
        description: body.description ?? '',
        metadata: body.metadata ?? '',
        from: new Date(fromMs).toISOString(),
        to: new Date(toMs).toISOString(),
        destination_ids: destinationIds,
        sources: types,
        partitions: range.partitions,
      };
      await store.exclusive(async () => {
        checkLimits();
        try {
          await kafka.prepare(replay);
        } catch (err) {
          log.warn({ err, replay: replay.id }, "A replay's consumer group could not be readied.");
          throw new ApiError('unavailable', { reason: "the replay's consumer group could not be readied" });
        }
        await store.commit([{ kind: 'replay', id: replay.id, data: replay }], replays.audits('created', replay), principalOf(req));
      });
      return reply.code(201).send(replayView(replay));
    },
  );

  route(
    app,
    'GET',
    list,
    {
      operationId: 'listReplays',
      tags: TAGS,
      summary: "List a subscription's replays, newest first.",
      params: idParams('event_subscription', 'event subscription'),
      querystring: listQuery('replay', 'replay'),
      ok: [200, replayList],
      errors: [404],
    },
    async (req) => {
      const { params, query } = partsOf<unknown, { id: string }, PageQuery>(req);
      const sub = subscriptions.find(accountOfRequest(req), params.id);
      const page = store.page<StoredReplay>('replay', query, (r) => r.subscription_id === sub.id);
      return listPage(ctx, replaysPath(sub.id), 'replays', page, query, replayView);
    },
  );

  route(
    app,
    'GET',
    one,
    { operationId: 'getReplay', tags: TAGS, summary: 'Get a replay with its state and progress.', params: replayParams, ok: [200, { description: 'The replay.', ...replayResponse }], errors: [404] },
    async (req) => replayView(findReplay(req, partsOf<unknown, ReplayParams>(req).params)),
  );

  route(
    app,
    'DELETE',
    one,
    {
      operationId: 'cancelReplay',
      tags: TAGS,
      summary: 'Cancel a replay: its workers stop reading within about a second. The replay stays, cancelled; one that already ended is left as it is.',
      params: replayParams,
      ok: [204, noContent],
      errors: [404, 409],
    },
    async (req, reply) => {
      const params = partsOf<unknown, ReplayParams>(req).params;
      await store.exclusive(async () => {
        const r = findReplay(req, params);
        if (r.ended !== undefined) return;
        const s = statusOf(ctx, r);
        if (s.state === 'done' || s.state === 'failed') return;
        const ended: StoredReplay = { ...r, ended: { state: 'cancelled', at: new Date().toISOString(), records_scanned: s.records_scanned, events_delivered: s.events_delivered } };
        await store.commit([{ kind: 'replay', id: r.id, data: ended }], replays.audits('updated', ended), principalOf(req));
      });
      return reply.code(204).send();
    },
  );

  function replayView(r: StoredReplay): Record<string, unknown> {
    return replayResource(ctx).view(r);
  }

  // The end of a replay the workers finished (done, or failed) is written once, with its audit event.
  ctx.replays?.onReport((id) => {
    const r = store.get<StoredReplay>('replay', id);
    if (r === undefined || r.ended !== undefined) return;
    const s = statusOf(ctx, r);
    if (s.state !== 'done' && s.state !== 'failed') return;
    void store
      .exclusive(async () => {
        const now = store.get<StoredReplay>('replay', id);
        if (now === undefined || now.ended !== undefined) return;
        const ended: StoredReplay = {
          ...now,
          ended: { state: s.state as 'done' | 'failed', at: s.finished_at ?? new Date().toISOString(), records_scanned: s.records_scanned, events_delivered: s.events_delivered, ...(s.error !== null && { error: s.error }) },
        };
        await store.commit([{ kind: 'replay', id, data: ended }], replays.audits('updated', ended), null);
        await ctx.replays?.release(ended).catch(() => undefined);
      })
      .catch((err: unknown) => log.warn({ err, replay: id }, "A replay's end could not be written; the next report tries again."));
  });
}
