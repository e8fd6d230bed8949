// JSON-schema building blocks shared by every admin route: they validate requests, shape responses and
// become the OpenAPI document, so one definition serves all three.
import { API_ERRORS, codesWithStatus } from './errors.js';

type Schema = Record<string, unknown>;

/** description at most 255, metadata at most 4096 (bytes; event subscriptions count characters). */
export const DESCRIPTION_LIMIT = 255;
export const METADATA_LIMIT = 4096;

export const LIST_LIMIT_MAX = 100;
export const LIST_LIMIT_DEFAULT = 100;

/**
 * Request-side description/metadata. maxLength counts characters, which is never more than bytes, so it
 * is a first cut; checkTextLimits in text-limits.ts then counts bytes where the limit is in bytes.
 */
export const descriptionField: Schema = {
  type: 'string',
  maxLength: DESCRIPTION_LIMIT,
  description: `Human-readable description. Optional, at most ${DESCRIPTION_LIMIT} bytes.`,
};
export const metadataField: Schema = {
  type: 'string',
  maxLength: METADATA_LIMIT,
  description: `Machine-readable data of your choice. Optional, at most ${METADATA_LIMIT} bytes.`,
};

export const idString: Schema = { type: 'string', minLength: 1, maxLength: 100 };
export const uriString: Schema = { type: 'string', format: 'uri' };
export const timestampString: Schema = { type: 'string', format: 'date-time', description: 'RFC 3339.' };

/**
 * The fields a resource answers with first, in this order (API keys and event subscriptions list them
 * in another order, and the order of a schema's properties is the order of the keys in a response).
 */
export const RESOURCE_FIELDS = ['id', 'uri', 'created_at', 'description', 'metadata'] as const;
export const resourceProperties: Readonly<Record<(typeof RESOURCE_FIELDS)[number], Schema>> = {
  id: idString,
  uri: uriString,
  created_at: timestampString,
  description: { type: 'string' },
  metadata: { type: 'string' },
};

/** The body of a resource whose only writable fields are description and metadata (API keys, IP policies). */
export const descriptionMetadataBody: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: { description: descriptionField, metadata: metadataField },
};

/** A Ref: the id and absolute uri of another resource. */
export const refSchema: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'uri'],
  properties: { id: idString, uri: uriString },
};

/** The error body (ARCHITECTURE.md "Errors"). */
export function errorSchema(description: string, codes: readonly string[]): Schema {
  return {
    description,
    type: 'object',
    additionalProperties: false,
    required: ['error_code', 'status_code', 'msg', 'details'],
    properties: {
      error_code: { type: 'string', enum: codes },
      status_code: { type: 'integer' },
      msg: { type: 'string' },
      details: { type: 'object', additionalProperties: true, description: 'Names the offending field (details.field) where there is one.' },
    },
  };
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'The request is not valid.',
  401: 'The bearer token is missing, malformed or unknown.',
  404: 'The resource or route does not exist.',
  409: 'The request conflicts with the current state.',
  413: 'The request body is too large.',
  415: 'The request body is not JSON.',
  500: 'An internal error.',
  503: 'The service is not ready or the config log is unavailable.',
};

/** Error statuses every authenticated route can answer. */
const ALWAYS = [401, 500, 503];

/**
 * The responses of a route: its success schemas plus the error statuses it can answer (401, 500 and 503
 * are added to all). Routes with a body also answer 400, 413 and 415.
 */
export function responses(success: Record<number, Schema>, errors: readonly number[] = []): Record<number, Schema> {
  const out: Record<number, Schema> = { ...success };
  for (const status of new Set([...errors, ...ALWAYS])) {
    out[status] = errorSchema(STATUS_TEXT[status] ?? `HTTP ${status}.`, codesWithStatus(status));
  }
  return out;
}

/** Statuses a route with a JSON body can answer before its handler runs. */
export const BODY_ERRORS = [400, 413, 415] as const;

export const noContent: Schema = { description: 'Done; the body is empty.', type: 'null' };

/** Path parameters `{id}`. Malformed ids are simply not found (404). */
export const idParams: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['id'],
  properties: { id: idString },
};

/** Query of every list route: newest first, `limit` (1..100) and `before_id` (exclusive) to page back. */
export const listQuery: Schema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: LIST_LIMIT_MAX, default: LIST_LIMIT_DEFAULT },
    before_id: { ...idString, description: 'Return only resources older than this id (the last id of the previous page).' },
  },
};

/** A list response: `{<key>: [...], uri, next_page_uri}`; next_page_uri is null on the last page. */
export function listSchema(key: string, item: Schema, description: string): Schema {
  return {
    description,
    type: 'object',
    additionalProperties: false,
    required: [key, 'uri', 'next_page_uri'],
    properties: {
      [key]: { type: 'array', items: item },
      uri: uriString,
      next_page_uri: { type: ['string', 'null'], format: 'uri' },
    },
  };
}

/** An object schema that rejects unknown fields (the API never drops fields silently). */
export function bodySchema(properties: Record<string, Schema>, required: readonly string[] = []): Schema {
  return { type: 'object', additionalProperties: false, required: [...required], properties };
}

/** Every code in the catalogue, for tests and docs. */
export const ALL_ERROR_CODES = Object.keys(API_ERRORS);
