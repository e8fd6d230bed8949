// JSON-schema building blocks shared by every admin route: they validate requests, shape responses and
// become the OpenAPI document, so one definition serves all three.
import { ID_PREFIXES, idPattern, type IdKind } from '../ids.js';
import { API_ERRORS, MAX_PROBLEMS, codesWithStatus, type ApiErrorCode } from './errors.js';

export type Schema = Record<string, unknown>;

/** description at most 255, metadata at most 4096 (bytes; event subscriptions count characters). */
export const DESCRIPTION_LIMIT = 255;
export const METADATA_LIMIT = 4096;

export const LIST_LIMIT_MAX = 100;
export const LIST_LIMIT_DEFAULT = 100;

/**
 * The annotation `x-error` on a schema names the catalogue error a value that breaks it is answered
 * with (validation.ts), with the fixed part of its details; the document shows it too, so a client can
 * tell which error_code a field's rule gives.
 */
export const X_ERROR = 'x-error';
export type XError = { readonly code: ApiErrorCode } & Readonly<Record<string, unknown>>;

/**
 * A named schema: the OpenAPI document writes it once under components/schemas/<name> and refers to it
 * wherever it is used (openapi-document.ts), so a generated client has a class of that name. Every use
 * of a name must be the same schema.
 */
export function named(name: string, schema: Schema): Schema {
  return { title: name, ...schema };
}

/** "ip_policy" -> "IpPolicy": operation ids are <verb><Thing> and schema names <Thing>... */
export function pascal(snake: string): string {
  return snake.replace(/(^|_)([a-z])/g, (_m, _s: string, c: string) => c.toUpperCase());
}

/**
 * A named object or null: JSON Schema's anyOf of the two, which generators read as an optional (nullable)
 * reference to the named class. A named schema that listed null in its own type would make them read a
 * null as an object missing its required fields.
 */
export function orNull(schema: Schema, description: string): Schema {
  return { anyOf: [schema, { type: 'null' }], description };
}

export function withError(schema: Schema, code: ApiErrorCode, details: Record<string, unknown> = {}): Schema {
  return { ...schema, [X_ERROR]: { code, ...details } };
}

/**
 * Request-side description/metadata. maxLength counts characters, which is never more than bytes, so
 * where the limit is in bytes it is a first cut and text-limits.ts counts the bytes (a rule the
 * operations state in x-rules-beyond-schema).
 */
export function textField(what: 'description' | 'metadata', unit: 'bytes' | 'characters'): Schema {
  const limit = what === 'description' ? DESCRIPTION_LIMIT : METADATA_LIMIT;
  const about = what === 'description' ? 'Human-readable description.' : 'Machine-readable data of your choice.';
  return { type: 'string', maxLength: limit, description: `${about} Optional, at most ${limit} ${unit}${unit === 'bytes' ? ' (UTF-8)' : ''}; default "".` };
}

/** An id of `kind` in a request body: its prefix and 26 characters; another shape is 400 invalid_id. */
export function idSchema(kind: IdKind, what: string, description?: string): Schema {
  return withError(
    { type: 'string', pattern: idPattern(kind), description: description ?? `The id of a ${what} (${ID_PREFIXES[kind]}_ and 26 characters).` },
    'invalid_id',
    { kind: what },
  );
}

/** An id as responses carry it. */
export function idResponse(kind: IdKind): Schema {
  return { type: 'string', pattern: idPattern(kind) };
}

export const uriString: Schema = { type: 'string', format: 'uri' };
export const timestampString: Schema = { type: 'string', format: 'date-time', description: 'RFC 3339.' };

/** A Ref: the id and absolute uri of another resource (named <Kind>Ref, e.g. IpPolicyRef). */
export function refSchema(kind: IdKind): Schema {
  return named(`${pascal(kind)}Ref`, { type: 'object', additionalProperties: false, required: ['id', 'uri'], properties: { id: idResponse(kind), uri: uriString } });
}

/** The error body (ARCHITECTURE.md "Errors"), one schema for every status: a client reads error_code alike. */
const ERROR_BODY: Schema = named('ErrorBody', {
  type: 'object',
  additionalProperties: false,
  required: ['error_code', 'status_code', 'msg', 'details'],
  properties: {
    error_code: named('ErrorCode', { type: 'string', enum: Object.keys(API_ERRORS), description: 'What went wrong; the response of each status lists the codes it can carry.' }),
    status_code: { type: 'integer' },
    msg: { type: 'string' },
    details: {
      type: 'object',
      additionalProperties: true,
      description: 'Names the offending field (details.field) where there is one; details.problems lists every problem of the request, the first first.',
      properties: {
        problems: {
          type: 'array',
          maxItems: MAX_PROBLEMS,
          description: `Every problem of the request (at most ${MAX_PROBLEMS}), the one error_code and msg describe first: fix them all before sending it again.`,
          items: named('RequestProblem', {
            type: 'object',
            additionalProperties: true,
            required: ['path', 'code', 'message'],
            properties: {
              path: { type: 'string', description: 'The field, as details.field names it (target.http.url, sources[0].filter); "" for the request as a whole.' },
              code: { type: 'string', enum: Object.keys(API_ERRORS), description: 'Its error code, one of ErrorCode.' },
              message: { type: 'string', description: 'Its sentence, as msg is written.' },
              line: { type: 'integer', description: "A filter's problem: its line (from 1)." },
              column: { type: 'integer', description: "A filter's problem: its column (from 1)." },
            },
          }),
        },
      },
    },
  },
});

/** An error response: its description, the error codes it can carry, and the error body. */
export function errorSchema(description: string, codes: readonly string[]): Schema {
  return { description: `${description} error_code is one of: ${codes.join(', ')}.`, ...ERROR_BODY };
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'The request is not valid.',
  401: 'The bearer token is missing, malformed or unknown.',
  403: 'Only the operator account may do this.',
  404: 'The resource or route does not exist.',
  409: 'The request conflicts with the current state.',
  413: 'The request body is too large.',
  415: 'The request body is not JSON.',
  500: 'An internal error.',
  503: 'The service is not ready or the config log is unavailable.',
};

/** Error statuses every authenticated route can answer (400: a URL the router cannot read). */
const ALWAYS = [400, 401, 500, 503];

/**
 * The responses of a route: its success schemas plus the error statuses it can answer (400, 401, 500 and
 * 503 are added to all). `more` adds to a status's description (a 400 that lists its rules).
 */
export function responses(success: Record<number, Schema>, errors: readonly number[] = [], more: Readonly<Record<number, string>> = {}): Record<number, Schema> {
  const out: Record<number, Schema> = { ...success };
  for (const status of new Set([...errors, ...ALWAYS])) {
    const text = [STATUS_TEXT[status] ?? `HTTP ${status}.`, more[status]].filter((t) => t !== undefined).join(' ');
    out[status] = errorSchema(text, codesWithStatus(status));
  }
  return out;
}

/** Statuses a route with a JSON body can answer before its handler runs. */
export const BODY_ERRORS = [400, 413, 415] as const;

export const noContent: Schema = { description: 'Done; the body is empty.', type: 'null' };

/**
 * Path parameters `{id}` of a resource of `kind`. An id of another shape names nothing, so it is
 * answered 404 like an unknown one (src/admin/README.md "Ids").
 */
export function idParams(kind: IdKind, resource: string): Schema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['id'],
    properties: { id: withError({ type: 'string', pattern: idPattern(kind), description: `The ${resource}'s id.` }, 'not_found', { resource }) },
  };
}

/** Query of every list route: newest first, `limit` (1..100) and `before_id` (exclusive) to page back. */
export function listQuery(kind: IdKind, what: string): Schema {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      limit: { type: 'integer', minimum: 1, maximum: LIST_LIMIT_MAX, default: LIST_LIMIT_DEFAULT, description: `At most this many, 1 to ${LIST_LIMIT_MAX}.` },
      before_id: idSchema(kind, what, `Only ${what}s older than this id (the last id of the previous page).`),
    },
  };
}

/** A list response: `{<key>: [...], uri, next_page_uri}`; next_page_uri is null on the last page. Named `name`. */
export function listSchema(key: string, item: Schema, description: string, name: string): Schema {
  return {
    description,
    title: name,
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

/** Every code in the catalogue, for tests and docs. */
export const ALL_ERROR_CODES = Object.keys(API_ERRORS);
