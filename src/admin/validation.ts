// Request validation for the admin API: ajv compilers that reject unknown fields instead of dropping
// them, and the mapping of ajv errors to catalogue errors that name the offending field.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { ApiError } from './errors.js';

// ajv-formats is CommonJS with a default export; under NodeNext its default import is the plugin itself.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

function makeAjv(coerce: boolean): Ajv {
  // removeAdditional: false — Fastify's default ("all"-like stripping of additional properties) would
  // silently drop a misspelt field; the API rejects it instead (additionalProperties: false).
  const ajv = new Ajv({ removeAdditional: false, useDefaults: true, coerceTypes: coerce, allErrors: false, strict: false, verbose: true });
  addFormats(ajv);
  return ajv;
}

// Bodies are JSON, so types are exact; query strings and path parameters are text and are coerced.
const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

export function compileValidator({ schema, httpPart }: { schema: object; httpPart?: string }): ValidateFunction {
  return (httpPart === 'body' ? bodyAjv : textAjv).compile(schema);
}

/** "/target/http/url" -> "target.http.url"; "/ip_policy_ids/2" -> "ip_policy_ids[2]". */
export function fieldPath(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').slice(1);
  if (child !== undefined) parts.push(child);
  let out = '';
  for (const raw of parts) {
    const p = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    out += /^\d+$/.test(p) ? `[${p}]` : out === '' ? p : `.${p}`;
  }
  return out;
}

type AjvError = ErrorObject | FastifySchemaValidationError;

/** The catalogue error for the first ajv error of a request part ("body", "querystring", "params"). */
export function validationError(errors: readonly AjvError[], context: string): ApiError {
  const e = errors[0];
  const params = (e?.params ?? {}) as Record<string, unknown>;
  const path = e?.instancePath ?? '';
  const location = context === 'body' ? undefined : context;
  const withLocation = (d: Record<string, unknown>): Record<string, unknown> => (location === undefined ? d : { ...d, location });
  if (e === undefined) return new ApiError('invalid_body', { field: 'body', reason: 'is not valid' });
  if (e.keyword === 'additionalProperties') {
    return new ApiError('unknown_field', withLocation({ field: fieldPath(path, String(params.additionalProperty)) }));
  }
  if (e.keyword === 'maxLength') {
    const data = (e as { data?: unknown }).data;
    const actual = typeof data === 'string' ? [...data].length : undefined;
    return new ApiError('field_too_long', withLocation({ field: fieldPath(path), limit: params.limit, unit: 'characters', actual }));
  }
  if (e.keyword === 'maxItems') {
    const data = (e as { data?: unknown }).data;
    return new ApiError('too_many_items', withLocation({ field: fieldPath(path), limit: params.limit, actual: Array.isArray(data) ? data.length : undefined }));
  }
  const field = e.keyword === 'required' ? fieldPath(path, String(params.missingProperty)) : fieldPath(path);
  const reason = e.keyword === 'required' ? 'is required' : (e.message ?? 'is not valid');
  if (location !== undefined) return new ApiError('invalid_parameter', { location, field: field === '' ? location : field, reason });
  return new ApiError('invalid_body', { field: field === '' ? 'body' : field, reason });
}
