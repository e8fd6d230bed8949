// The schemas of /event_subscriptions and its sources, from the event catalogue: a source is one of the
// catalogue's event types, a traffic type with fields of that type, an audit type with neither fields nor
// filter. What the schema cannot state (a filter compiles; types are unique) is in the rules below and
// checked in source-input.ts.
import { EVENT_VARIABLE } from '../../cel/filter-env.js';
import { MAX_EVALUATION_COST } from '../../cel/limits.js';
import { AUDIT_EVENT_TYPES, EVENT_TYPES, TRAFFIC_EVENT_TYPES, TRAFFIC_FIELDS, exampleFilter } from '../../events/catalog.js';
import { baseFields, objectSchema, resourceSchemas, type Fields } from '../resource-fields.js';
import type { BeyondSchemaRule } from '../route.js';
import { idParams, idSchema, named, pascal, refSchema, uriString, withError, type Schema } from '../schemas.js';
import { MIN_SAMPLE_RATE } from '../../subscriptions/sampling.js';
import { MAX_DESTINATIONS_PER_SUBSCRIPTION, MAX_SOURCES_PER_SUBSCRIPTION, MAX_SUBSCRIPTION_FILTER_LENGTH } from './limits.js';

const TRAFFIC_FIELD_NAMES = [...new Set(TRAFFIC_EVENT_TYPES.flatMap((t) => TRAFFIC_FIELDS[t].map((f) => f.name)))];

const filter = (description: string): Schema => ({ type: ['string', 'null'], maxLength: MAX_SUBSCRIPTION_FILTER_LENGTH, description, examples: [exampleFilter(EVENT_VARIABLE)] });
/** A traffic source's sample_rate (src/subscriptions/sampling.ts): below 2^-32 no match would ever be kept. */
export const sampleRate = (description: string): Schema => ({ type: 'number', minimum: MIN_SAMPLE_RATE, maximum: 1, description, examples: [0.25] });
const SAMPLE_TEXT =
  'The share of matches delivered, 2^-32 (2.3283064365386963e-10) <= r <= 1 (default 1). Which ones is decided by a hash of the record (topic, partition, offset) and the subscription id, so a record read again gets the same choice and subscriptions choose independently; the share delivered follows a binomial law around r.';

const FILTER_TEXT = `A CEL expression over ${EVENT_VARIABLE} that may read only the type's filterable fields, e.g. ${exampleFilter(EVENT_VARIABLE)}; at most ${MAX_SUBSCRIPTION_FILTER_LENGTH} characters. Omit, or send "" or null, for no filter.`;

/** A source of one traffic type: at least one of its fields, and maybe a filter. */
function trafficSource(type: (typeof TRAFFIC_EVENT_TYPES)[number]): Schema {
  const names = TRAFFIC_FIELDS[type].map((f) => f.name);
  return objectSchema(
    {
      type: { type: 'string', enum: [type] },
      fields: {
        type: 'array',
        minItems: 1,
        uniqueItems: true,
        items: { type: 'string', enum: names },
        description: `Fields of ${type} to deliver, each once.`,
        examples: [names.filter((n) => n.startsWith('conn.')).slice(0, 3)],
      },
      filter: filter(FILTER_TEXT),
      sample_rate: sampleRate(SAMPLE_TEXT),
    },
    ['type', 'fields'],
    // http_request_complete.v0 -> HttpRequestCompleteSource
    { title: sourceName(type) },
  );
}

const sourceName = (type: string): string => `${pascal(type.replace(/\.v\d+$/, ''))}Source`;
const AUDIT_SOURCE = 'AuditSource';

/** A source of an audit type: it takes neither fields nor a filter (empty values are taken, so a GET's source can be sent back). */
const auditSource = objectSchema(
  {
    type: { type: 'string', enum: [...AUDIT_EVENT_TYPES] },
    // items typed although none may be sent: generators type every array by its items.
    fields: { type: ['array', 'null'], maxItems: 0, items: { type: 'string' }, description: 'Omit, or send [] or null.' },
    filter: { type: ['string', 'null'], maxLength: 0, description: 'Omit, or send "" or null.' },
    sample_rate: { type: ['number', 'null'], minimum: 1, maximum: 1, description: 'Omit, or send 1 or null: an audit source delivers every event.' },
  },
  ['type'],
  { title: AUDIT_SOURCE },
);

/**
 * A source as a subscription or POST .../sources sends it: one of the catalogue's event types, told apart
 * by `type` (the discriminator: a generated client picks the variant from it).
 */
export const sourceRequest: Schema = named('EventSourceCreate', {
  type: 'object',
  description: `One event type to receive: a traffic type (${TRAFFIC_EVENT_TYPES.join(', ')}) lists the fields to deliver and may have a filter; an audit type takes neither.`,
  oneOf: [...TRAFFIC_EVENT_TYPES.map(trafficSource), auditSource],
  discriminator: {
    propertyName: 'type',
    mapping: Object.fromEntries([
      ...TRAFFIC_EVENT_TYPES.map((t) => [t, `#/components/schemas/${sourceName(t)}`]),
      ...AUDIT_EVENT_TYPES.map((t) => [t, `#/components/schemas/${AUDIT_SOURCE}`]),
    ]),
  },
});

/** PATCH .../sources/{type}: the type is in the path and cannot change, so only fields and filter. */
export const sourceUpdateBody: Schema = named('EventSourceUpdate', objectSchema({
  fields: {
    type: ['array', 'null'],
    uniqueItems: true,
    items: { type: 'string', enum: TRAFFIC_FIELD_NAMES },
    description: "Replaces the fields; omit to keep them. A traffic source needs at least one field of its type; an audit source takes none.",
  },
  filter: filter(`Replaces the filter; omit to keep it, send "" or null to remove it. ${FILTER_TEXT} An audit source takes none.`),
  sample_rate: sampleRate(`Replaces the sample rate; omit to keep it. ${SAMPLE_TEXT} An audit source takes none.`),
}));

const FILTER_COMPILES: BeyondSchemaRule = { code: 'invalid_filter', rule: `filter compiles: CEL over ${EVENT_VARIABLE}, reading only filterable fields of the source's type, within the filter engine's size limits` };
const FILTER_UNITS: BeyondSchemaRule = {
  code: 'field_too_long',
  rule: `filter is at most ${MAX_SUBSCRIPTION_FILTER_LENGTH} UTF-16 code units (maxLength counts characters; one beyond U+FFFF counts two)`,
};

const FILTER_COST: BeyondSchemaRule = {
  code: 'filter_too_costly',
  rule: `filter does at most ${MAX_EVALUATION_COST} units of work on a record, about one a character it reads or writes`,
};

/** The rules a source is checked by beyond the schema. */
export const SOURCE_RULES: readonly BeyondSchemaRule[] = [FILTER_COMPILES, FILTER_UNITS, FILTER_COST];

/** PATCH .../sources/{type}: what depends on the type in the path. */
export const SOURCE_UPDATE_RULES: readonly BeyondSchemaRule[] = [
  ...SOURCE_RULES,
  { code: 'unknown_event_field', rule: "each of fields is a field of the source's type" },
  { code: 'source_fields_required', rule: 'a traffic source keeps at least one field' },
  { code: 'audit_source_field', rule: 'an audit source takes no fields, filter or sample_rate' },
];

export const SUBSCRIPTION_RULES: readonly BeyondSchemaRule[] = [
  ...SOURCE_RULES,
  { code: 'duplicate_source_type', rule: 'each event type is the type of one source at most' },
  { code: 'unknown_reference', rule: "each of destination_ids names an existing event destination of the key's account" },
];

export const sourceResponse: Schema = named('EventSource', objectSchema(
  {
    type: { type: 'string', enum: [...EVENT_TYPES] },
    fields: { type: 'array', items: { type: 'string' }, description: 'Empty for audit types.' },
    filter: { type: 'string', description: '"" when the source has no filter (always for audit types).' },
    sample_rate: { type: 'number', description: 'The share of matches delivered; 1 when every match is (always for audit types).' },
    uri: uriString,
  },
  ['type', 'fields', 'filter', 'sample_rate', 'uri'],
));

export const SUBSCRIPTION_FIELDS = (() => {
  const { id, uri, account_id, created_at, metadata, description } = baseFields('event_subscription', 'characters');
  return {
    id,
    uri,
    account_id,
    created_at,
    metadata,
    description,
    sources: {
      request: {
        type: 'array',
        maxItems: MAX_SOURCES_PER_SUBSCRIPTION,
        items: sourceRequest,
        description: `The event types to receive, each type at most once; at most ${MAX_SOURCES_PER_SUBSCRIPTION} sources. An update replaces them all. Default [].`,
      },
      response: { type: 'array', items: sourceResponse },
    },
    destination_ids: {
      request: {
        type: 'array',
        maxItems: MAX_DESTINATIONS_PER_SUBSCRIPTION,
        uniqueItems: true,
        items: idSchema('event_destination', 'event destination'),
        description: `The event destinations that receive the events, each once; at most ${MAX_DESTINATIONS_PER_SUBSCRIPTION}. An update replaces them all. Default [].`,
      },
    },
    destinations: { response: { type: 'array', items: refSchema('event_destination') } },
    enabled: {
      request: {
        type: 'boolean',
        description:
          'false pauses the subscription: within a second every worker stops delivering its matches, and records that arrive while it is paused are never delivered, not even after it is resumed. Default true.',
      },
      response: { type: 'boolean' },
    },
  } satisfies Fields;
})();

export const SUBSCRIPTION_SCHEMAS = resourceSchemas(SUBSCRIPTION_FIELDS);

/** GET .../sources: the list shape of every list route, always one page (a subscription has few sources). */
export const sourceListSchema: Schema = {
  description: 'Every source of the subscription.',
  title: 'EventSourceList',
  ...objectSchema(
    {
      sources: { type: 'array', items: sourceResponse },
      uri: uriString,
      next_page_uri: { type: ['string', 'null'], format: 'uri', description: 'Always null: the sources fit on one page.' },
    },
    ['sources', 'uri', 'next_page_uri'],
  ),
};

/** `{id}` and `{type}` of .../sources/{type}: a type the subscription has no source of is 404 source_not_found. */
export const sourceParams: Schema = (() => {
  const { properties } = idParams('event_subscription', 'event subscription') as { properties: Record<string, Schema> };
  return objectSchema(
    { ...properties, type: withError({ type: 'string', enum: [...EVENT_TYPES], description: 'An event type.' }, 'source_not_found') },
    ['id', 'type'],
  );
})();
