// GET /event_destinations/{id}/history and GET /event_subscriptions/{id}/history: the delivery history the
// workers report (src/delivery/history/), per destination or per subscription and destination, over a
// time range at minute or hour resolution. Only the account's own (another's is 404); periods with no
// activity reported are absent from `points`, never answered as zeros (docs/history.md).
import type { FastifyInstance } from 'fastify';
import { accountOf } from '../../accounts/account.js';
import type { StoredDestination, StoredSubscription } from '../../configlog/resources.js';
import type { Counters } from '../../delivery/history/counters.js';
import type { HistoryPoint, Resolution } from '../../delivery/history/history-store.js';
import { accountOfRequest, ref, type AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { partsOf, route } from '../route.js';
import { idParams, named, refSchema, timestampString, type Schema } from '../schemas.js';

/** What the routes read the history from (src/delivery/history/history-board.ts). */
export interface HistorySource {
  /** The length of a minute point (HISTORY_MINUTE_MS) and how long each resolution is kept. */
  readonly minuteMs: number;
  readonly minuteRetentionMs: number;
  readonly hourRetentionMs: number;
  query(destination: string, subscription: string | undefined, from: number, to: number, resolution: Resolution): HistoryPoint[];
}

/** The most periods one answer spans: a day of minutes, or two months of hours. */
export const MAX_HISTORY_PERIODS = 1_500;
/** Without `from`, the answer covers the hour before `to`. */
const DEFAULT_RANGE_MS = 3_600_000;

const RANGE_RULE = `from is before to, and the range spans at most ${MAX_HISTORY_PERIODS} periods of its resolution (a day of minutes, 62 days of hours)`;

export const historyQuery: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    from: { ...timestampString, description: 'RFC 3339: the range begins in the period holding this time. Default: an hour before `to`.' },
    to: { ...timestampString, description: 'RFC 3339: the range ends with the period holding this time (exclusive when it is a period start). Default: now.' },
    resolution: {
      type: 'string',
      enum: ['minute', 'hour'],
      description: 'The period of each point. Default: minute when the range is at most 24 hours and its minutes are still kept (for 24 hours, unless the service says otherwise), else hour.',
    },
  },
};

const latencySchema = named('HistoryLatency', {
  type: 'object',
  additionalProperties: false,
  required: ['p50', 'p99'],
  description:
    "Delivery latency of the period's delivered events, from the record's time (its Kafka timestamp) to the destination's acknowledgement, in ms: each quantile is the upper bound of its bucket in a 1-2-5 ladder from 1 ms to 5,000,000 ms, so within a factor of 2.5.",
  properties: {
    p50: { type: 'integer', minimum: 0 },
    p99: { type: 'integer', minimum: 0 },
  },
});

const failureSchema = named('HistoryFailure', {
  type: 'object',
  additionalProperties: false,
  required: ['code', 'count'],
  properties: {
    code: { type: 'string', description: "A delivery error code, as a destination status's last_error carries: e.g. DESTINATION_SERVER_ERROR, DESTINATION_UNREACHABLE, DESTINATION_TIMEOUT." },
    count: { type: 'integer', minimum: 1, description: 'Failed attempts of events with this code: an event that failed three attempts counts three.' },
  },
});

export const historyPointSchema = named('HistoryPoint', {
  type: 'object',
  additionalProperties: false,
  required: ['start', 'matched', 'delivered', 'delivered_bytes', 'failed_attempts', 'failures', 'parked', 'redriven', 'dead_lettered', 'latency_ms'],
  description: 'One period with activity. A period absent from points had none reported: a gap, not a zero.',
  properties: {
    start: { ...timestampString, description: "RFC 3339: the period's start, aligned to the resolution." },
    matched: { type: 'integer', minimum: 0, description: 'Events matched for the destination from consumed records.' },
    delivered: { type: 'integer', minimum: 0, description: 'Events the destination acknowledged.' },
    delivered_bytes: { type: 'integer', minimum: 0, description: 'Bytes of the delivered events (the envelopes as JSON).' },
    failed_attempts: { type: 'integer', minimum: 0, description: 'Failed attempts of events, all codes together.' },
    failures: { type: 'array', items: failureSchema, description: 'Failed attempts by delivery error code, most first.' },
    parked: { type: 'integer', minimum: 0, description: "Events parked in the destination's retry topic." },
    redriven: { type: 'integer', minimum: 0, description: 'Parked events handed back to the destination by its re-driver.' },
    dead_lettered: { type: 'integer', minimum: 0, description: 'Events refused for good and written to the dead-letter topic.' },
    latency_ms: { anyOf: [latencySchema, { type: 'null' }], description: 'Null when nothing was delivered in the period.' },
  },
});

const rangeProperties = {
  from: { ...timestampString, description: 'RFC 3339: the start of the first period of the range.' },
  to: { ...timestampString, description: 'RFC 3339: the end of the last period of the range (exclusive).' },
  resolution: { type: 'string', enum: ['minute', 'hour'] },
  resolution_ms: { type: 'integer', minimum: 1, description: 'The length of a period in ms: 60,000 for a minute, 3,600,000 for an hour.' },
};

export const destinationHistorySchema = named('EventDestinationHistory', {
  type: 'object',
  additionalProperties: false,
  required: ['destination', 'from', 'to', 'resolution', 'resolution_ms', 'points'],
  description: "The destination's delivery history, all its subscriptions together.",
  properties: {
    destination: refSchema('event_destination'),
    ...rangeProperties,
    points: { type: 'array', items: historyPointSchema, description: 'The periods with activity, oldest first.' },
  },
});

export const subscriptionHistorySchema = named('EventSubscriptionHistory', {
  type: 'object',
  additionalProperties: false,
  required: ['subscription', 'from', 'to', 'resolution', 'resolution_ms', 'destinations'],
  description: "The subscription's delivery history, one series per destination it delivers to.",
  properties: {
    subscription: refSchema('event_subscription'),
    ...rangeProperties,
    destinations: {
      type: 'array',
      items: named('EventSubscriptionDestinationHistory', {
        type: 'object',
        additionalProperties: false,
        required: ['destination', 'points'],
        properties: {
          destination: refSchema('event_destination'),
          points: { type: 'array', items: historyPointSchema, description: 'The periods with activity, oldest first.' },
        },
      }),
    },
  },
});

interface HistoryQueryParams {
  from?: string;
  to?: string;
  resolution?: Resolution;
}

interface Range {
  readonly from: number;
  readonly to: number;
  readonly resolution: Resolution;
  readonly lengthMs: number;
}

/** The range a query asks for, aligned to its resolution, or a 400 naming what is wrong. */
export function historyRange(q: HistoryQueryParams, source: Pick<HistorySource, 'minuteMs' | 'minuteRetentionMs'>, now: number): Range {
  const to = q.to === undefined ? now : Date.parse(q.to);
  const from = q.from === undefined ? to - DEFAULT_RANGE_MS : Date.parse(q.from);
  if (!(from < to)) throw new ApiError('invalid_history_range', { field: 'from', reason: 'from must be before to' });
  const fine = to - from <= 86_400_000 && from >= now - source.minuteRetentionMs;
  const resolution = q.resolution ?? (fine ? 'minute' : 'hour');
  const lengthMs = resolution === 'minute' ? source.minuteMs : source.minuteMs * 60;
  const start = Math.floor(from / lengthMs) * lengthMs;
  const end = Math.ceil(to / lengthMs) * lengthMs;
  const periods = (end - start) / lengthMs;
  if (periods > MAX_HISTORY_PERIODS) {
    throw new ApiError('invalid_history_range', { field: q.resolution === undefined ? 'from' : 'resolution', reason: `the range spans ${periods} ${resolution}s; the limit is ${MAX_HISTORY_PERIODS} (ask for a shorter range, or resolution=hour)` });
  }
  return { from: start, to: end, resolution, lengthMs };
}

function pointView(p: HistoryPoint): Record<string, unknown> {
  const c: Counters = p.counters;
  const p50 = c.quantile(0.5);
  const p99 = c.quantile(0.99);
  return {
    start: new Date(p.start).toISOString(),
    matched: c.matched,
    delivered: c.delivered,
    delivered_bytes: c.deliveredBytes,
    failed_attempts: c.failedAttempts,
    failures: [...c.failures].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([code, count]) => ({ code, count })),
    parked: c.parked,
    redriven: c.redriven,
    dead_lettered: c.deadLettered,
    latency_ms: p50 === undefined || p99 === undefined ? null : { p50, p99 },
  };
}

function rangeView(r: Range): Record<string, unknown> {
  return { from: new Date(r.from).toISOString(), to: new Date(r.to).toISOString(), resolution: r.resolution, resolution_ms: r.lengthMs };
}

export function registerHistoryRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const source = (): HistorySource => {
    if (ctx.history === undefined) throw new ApiError('unavailable', { reason: 'the delivery history is not read in this process' });
    return ctx.history;
  };
  const rangeRule = [{ code: 'invalid_history_range' as const, rule: RANGE_RULE }];
  route(
    app,
    'GET',
    '/event_destinations/:id/history',
    {
      operationId: 'getEventDestinationHistory',
      tags: ['Event destinations'],
      summary: "The destination's delivery history: events matched, delivered (and bytes), failed attempts by code, parked, re-driven and dead-lettered, and latency, per minute or hour.",
      params: idParams('event_destination', 'event destination'),
      querystring: historyQuery,
      ok: [200, destinationHistorySchema],
      errors: [404],
      rules: rangeRule,
    },
    async (req) => {
      const { id } = partsOf(req).params;
      const d = ctx.store.get<StoredDestination>('event_destination', id);
      // Another account's destination is not found either (src/admin/README.md "Accounts").
      if (d === undefined || accountOf(d) !== accountOfRequest(req).accountId) throw new ApiError('not_found', { resource: 'event destination', id });
      const history = source();
      const r = historyRange(req.query as HistoryQueryParams, history, Date.now());
      return {
        destination: ref(ctx, '/event_destinations', d.id),
        ...rangeView(r),
        points: history.query(d.id, undefined, r.from, r.to, r.resolution).map(pointView),
      };
    },
  );
  route(
    app,
    'GET',
    '/event_subscriptions/:id/history',
    {
      operationId: 'getEventSubscriptionHistory',
      tags: ['Event subscriptions'],
      summary: "The subscription's delivery history, one series per destination: events matched, delivered (and bytes), failed attempts by code, parked, re-driven and dead-lettered, and latency, per minute or hour.",
      params: idParams('event_subscription', 'event subscription'),
      querystring: historyQuery,
      ok: [200, subscriptionHistorySchema],
      errors: [404],
      rules: rangeRule,
    },
    async (req) => {
      const { id } = partsOf(req).params;
      const s = ctx.store.get<StoredSubscription>('event_subscription', id);
      if (s === undefined || accountOf(s) !== accountOfRequest(req).accountId) throw new ApiError('not_found', { resource: 'event subscription', id });
      const history = source();
      const r = historyRange(req.query as HistoryQueryParams, history, Date.now());
      return {
        subscription: ref(ctx, '/event_subscriptions', s.id),
        ...rangeView(r),
        destinations: s.destination_ids.map((dest) => ({
          destination: ref(ctx, '/event_destinations', dest),
          points: history.query(dest, s.id, r.from, r.to, r.resolution).map(pointView),
        })),
      };
    },
  );
}
