// JSON schemas of /event_subscriptions and its sources: request bodies (the event catalogue and the filter
// engine check sources in source-input.ts) and responses (the event_subscription payload of docs/events.md).
import { EVENT_VARIABLE } from '../../cel/filter-env.js';
import { EVENT_TYPES, exampleFilter } from '../../events/catalog.js';
import { DESCRIPTION_LIMIT, METADATA_LIMIT, idString, refSchema, timestampString, uriString } from '../schemas.js';
import { MAX_DESTINATIONS_PER_SUBSCRIPTION, MAX_SOURCES_PER_SUBSCRIPTION, MAX_SUBSCRIPTION_FILTER_LENGTH } from './limits.js';

type Schema = Record<string, unknown>;

/** On event subscriptions the limits count characters, not bytes. */
const description: Schema = {
  type: 'string',
  maxLength: DESCRIPTION_LIMIT,
  description: `Human-readable description. Optional, at most ${DESCRIPTION_LIMIT} characters.`,
};
const metadata: Schema = {
  type: 'string',
  maxLength: METADATA_LIMIT,
  description: `Machine-readable data of your choice. Optional, at most ${METADATA_LIMIT} characters.`,
};

const typeField: Schema = {
  type: 'string',
  minLength: 1,
  maxLength: 100,
  description: `An event type (docs/events.md lists them), e.g. ${EVENT_TYPES.slice(0, 3).join(', ')}.`,
};
const fieldsField: Schema = {
  type: ['array', 'null'],
  items: { type: 'string', maxLength: 100 },
  description: 'Traffic types: the fields to deliver (at least one, each a field of the type). Audit types: omit, or send [].',
};
const filterField: Schema = {
  type: ['string', 'null'],
  description: `Traffic types: a CEL expression over ${EVENT_VARIABLE} using only Filterable fields, e.g. ${exampleFilter(EVENT_VARIABLE)}; at most ${MAX_SUBSCRIPTION_FILTER_LENGTH} characters. Omit, or send "", for no filter. Audit types: omit, or send "".`,
};

export const sourceBody: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['type'],
  properties: { type: typeField, fields: fieldsField, filter: filterField },
};

/** type is listed so that sending a different one names the real problem (immutable), not "unknown". */
export const sourceUpdateBody: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    type: { ...typeField, description: 'Cannot be changed: sending another type is an immutable_field error.' },
    fields: { ...fieldsField, description: 'Replaces the fields; omit to keep them.' },
    filter: { ...filterField, description: 'Replaces the filter; omit to keep it, send "" or null to remove it.' },
  },
};

const sourcesField: Schema = {
  type: 'array',
  items: sourceBody,
  description: `The event types to receive, each type at most once; at most ${MAX_SOURCES_PER_SUBSCRIPTION} sources.`,
};
const destinationIdsField: Schema = {
  type: 'array',
  items: idString,
  description: `Ids of the event destinations that receive the events, each at most once; at most ${MAX_DESTINATIONS_PER_SUBSCRIPTION}.`,
};

export const subscriptionCreateBody: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: { description, metadata, sources: { ...sourcesField, description: `${String(sourcesField.description)} Default [].` }, destination_ids: { ...destinationIdsField, description: `${String(destinationIdsField.description)} Default [].` } },
};

export const subscriptionUpdateBody: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    description,
    metadata,
    sources: { ...sourcesField, description: `Replaces every source. ${String(sourcesField.description)}` },
    destination_ids: { ...destinationIdsField, description: `Replaces every destination. ${String(destinationIdsField.description)}` },
  },
};

export const sourceSchema: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['type', 'fields', 'filter', 'uri'],
  properties: {
    type: { type: 'string' },
    fields: { type: 'array', items: { type: 'string' }, description: 'Empty for audit types.' },
    filter: { type: 'string', description: '"" when the source has no filter (always for audit types).' },
    uri: uriString,
  },
};

export const subscriptionSchema: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'uri', 'created_at', 'metadata', 'description', 'sources', 'destinations'],
  properties: {
    id: idString,
    uri: uriString,
    created_at: timestampString,
    metadata: { type: 'string' },
    description: { type: 'string' },
    sources: { type: 'array', items: sourceSchema },
    destinations: { type: 'array', items: refSchema },
  },
};

/** GET .../sources: the list shape of every list route, always one page (a subscription has few sources). */
export const sourceListSchema: Schema = {
  description: 'Every source of the subscription.',
  type: 'object',
  additionalProperties: false,
  required: ['sources', 'uri', 'next_page_uri'],
  properties: {
    sources: { type: 'array', items: sourceSchema },
    uri: uriString,
    next_page_uri: { type: ['string', 'null'], format: 'uri', description: 'Always null: the sources fit on one page.' },
  },
};

export const sourceParams: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'type'],
  properties: { id: idString, type: { type: 'string', minLength: 1, maxLength: 100 } },
};
