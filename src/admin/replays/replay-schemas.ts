// The schemas of /event_subscriptions/{id}/replays (ARCHITECTURE.md "Replay", docs/subscription-controls.md "Replay").
import { TRAFFIC_EVENT_TYPES } from '../../events/catalog.js';
import { MAX_DESTINATIONS_PER_SUBSCRIPTION } from '../event-subscriptions/limits.js';
import { objectSchema } from '../resource-fields.js';
import type { BeyondSchemaRule } from '../route.js';
import { TEXT_BYTES_RULE } from '../text-limits.js';
import { idParams, idResponse, idSchema, listSchema, named, orNull, refSchema, textField, timestampString, uriString, withError, type Schema } from '../schemas.js';
import { REPLAY_STATES } from '../../replay/replay-record.js';

const time = (description: string): Schema => ({ type: 'string', format: 'date-time', description });

export const replayCreate: Schema = named(
  'ReplayCreate',
  objectSchema(
    {
      from: time('RFC 3339: the first record time replayed (inclusive), by the records\' Kafka timestamps.'),
      to: time('RFC 3339: the end of the range (exclusive); default the time of the request. Not later than the time of the request.'),
      destination_ids: {
        type: 'array',
        maxItems: MAX_DESTINATIONS_PER_SUBSCRIPTION,
        uniqueItems: true,
        items: idSchema('event_destination', 'event destination'),
        description: "The destinations that receive the replayed events, each one of the subscription's; default all of them.",
      },
      sources: {
        type: 'array',
        uniqueItems: true,
        maxItems: TRAFFIC_EVENT_TYPES.length,
        items: { type: 'string', enum: [...TRAFFIC_EVENT_TYPES] },
        description: "The traffic event types to replay, each a type of one of the subscription's sources; default all its traffic sources. Audit sources are not replayed.",
      },
      description: textField('description', 'bytes'),
      metadata: textField('metadata', 'bytes'),
    },
    ['from'],
  ),
);

const progress = named(
  'ReplayProgress',
  objectSchema(
    {
      records_scanned: { type: 'integer', minimum: 0, description: 'Records of the range read so far (every record before each partition\'s checkpoint).' },
      records_total: { type: 'integer', minimum: 0, description: 'Records in the range: the offsets at `to` less those at `from`, over every partition.' },
      events_delivered: { type: 'integer', minimum: 0, description: 'Events delivered (acknowledged, parked or dead-lettered) so far; at least once, so a worker\'s restart may count some twice.' },
      fraction: { type: 'number', minimum: 0, maximum: 1, description: 'records_scanned / records_total; 1 for an empty range.' },
      estimated_done_at: orNull(timestampString, 'When the replay should be done at its rate so far; null before its first checkpoint and once it ended.'),
    },
    ['records_scanned', 'records_total', 'events_delivered', 'fraction', 'estimated_done_at'],
  ),
);

const replayError = named(
  'ReplayError',
  objectSchema({ code: { type: 'string' }, message: { type: 'string' } }, ['code', 'message']),
);

export const replayResponse: Schema = named(
  'Replay',
  objectSchema(
    {
      id: idResponse('replay'),
      uri: uriString,
      account_id: idResponse('account'),
      subscription: refSchema('event_subscription'),
      created_at: timestampString,
      description: { type: 'string' },
      metadata: { type: 'string' },
      state: { type: 'string', enum: [...REPLAY_STATES], description: 'queued (no worker has begun it), running, done, failed or cancelled.' },
      from: timestampString,
      to: timestampString,
      destinations: { type: 'array', items: refSchema('event_destination') },
      sources: { type: 'array', items: { type: 'string', enum: [...TRAFFIC_EVENT_TYPES] } },
      progress,
      finished_at: orNull(timestampString, 'When it ended; null while queued or running.'),
      error: orNull(replayError, 'Why it failed; null unless failed.'),
    },
    ['id', 'uri', 'account_id', 'subscription', 'created_at', 'description', 'metadata', 'state', 'from', 'to', 'destinations', 'sources', 'progress', 'finished_at', 'error'],
  ),
);

export const replayList: Schema = listSchema('replays', replayResponse, "A page of the subscription's replays, newest first.", 'ReplayList');

export const replayParams: Schema = (() => {
  const { properties } = idParams('event_subscription', 'event subscription') as { properties: Record<string, Schema> };
  return objectSchema(
    { ...properties, replay_id: withError({ type: 'string', pattern: idResponse('replay').pattern, description: "The replay's id." }, 'not_found', { resource: 'replay' }) },
    ['id', 'replay_id'],
  );
})();

export const REPLAY_RULES: readonly BeyondSchemaRule[] = [
  { code: 'replay_range_invalid', rule: 'to is later than from' },
  { code: 'replay_range_in_future', rule: 'from and to are not later than the time of the request' },
  { code: 'replay_destination_not_subscribed', rule: "each of destination_ids is a destination of the subscription" },
  { code: 'replay_source_not_subscribed', rule: "each of sources is the type of one of the subscription's traffic sources" },
  { code: 'replay_no_traffic_sources', rule: 'the subscription has a traffic source to replay (of the types sent, when sources is sent) and a destination' },
  TEXT_BYTES_RULE,
];
