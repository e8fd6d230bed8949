// Request validation for the admin API: ajv compilers that reject unknown fields instead of dropping
// them, and the mapping of ajv errors to catalogue errors that name the offending field: the error a
// schema's `x-error` names, the domain's own explanation where a route has one, or a sentence made from
// the failed keyword (allowed values included).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import type { AccountContext } from '../accounts/account.js';
import { ApiError, type ApiErrorCode, type ErrorDetails } from './errors.js';
import type { RouteConfig } from './route.js';
import { X_ERROR, type XError } from './schemas.js';

// ajv-formats is CommonJS with a default export; under NodeNext its default import is the plugin itself.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

function makeAjv(coerce: boolean, allErrors: boolean): Ajv {
  // removeAdditional: false — Fastify's default ("all"-like stripping of additional properties) would
  // silently drop a misspelt field; the API rejects it instead (additionalProperties: false). `verbose`
  // keeps each error's schema, where x-error is read.
  const ajv = new Ajv({ removeAdditional: false, useDefaults: true, coerceTypes: coerce, allErrors, strict: false, verbose: true });
  addFormats(ajv);
  return ajv;
}

// Bodies are JSON, so types are exact; query strings and path parameters are text and are coerced. The
// first error decides the answer's error_code as ever; a refused request is checked once more for all
// of them, listed in details.problems.
const bodyAjv = makeAjv(false, false);
const textAjv = makeAjv(true, false);
const bodyAjvAll = makeAjv(false, true);
const textAjvAll = makeAjv(true, true);

/** Where a refused request's errors array keeps every error of the request (the array is Fastify's `validation`). */
const ALL_ERRORS = Symbol('every error of the request');
type Errors = ValidateFunction['errors'] & { [ALL_ERRORS]?: ErrorObject[] };

export function compileValidator({ schema, httpPart }: { schema: object; httpPart?: string }): ValidateFunction {
  const body = httpPart === 'body';
  const validate = (body ? bodyAjv : textAjv).compile(schema);
  const every = (body ? bodyAjvAll : textAjvAll).compile(schema);
  const absentNulls = body && hasNullIsAbsent(schema);
  const checked = ((data: unknown) => {
    if (absentNulls) dropAbsentNulls(schema as Schema, data);
    const ok = validate(data);
    const errors = validate.errors as Errors;
    if (!ok && errors) {
      every(data);
      if (every.errors) errors[ALL_ERRORS] = every.errors;
    }
    checked.errors = errors;
    return ok;
  }) as ValidateFunction;
  return checked;
}

/**
 * `x-null-is-absent` on an object schema (an "exactly one of" object: a target's kinds, a cloud auth):
 * a member sent as null counts as absent, so it is removed before the schema, which lists no null.
 */
export const NULL_IS_ABSENT = 'x-null-is-absent';

type Schema = Readonly<Record<string, unknown>>;

function hasNullIsAbsent(schema: unknown): boolean {
  return JSON.stringify(schema).includes(`"${NULL_IS_ABSENT}":true`);
}

function dropAbsentNulls(schema: Schema, data: unknown): void {
  if (Array.isArray(data)) {
    const items = schema.items as Schema | undefined;
    if (items !== undefined) for (const item of data) dropAbsentNulls(items, item);
    return;
  }
  if (data === null || typeof data !== 'object') return;
  const obj = data as Record<string, unknown>;
  const properties = (schema.properties ?? {}) as Readonly<Record<string, Schema>>;
  for (const [name, child] of Object.entries(properties)) {
    if (!(name in obj)) continue;
    if (obj[name] === null && schema[NULL_IS_ABSENT] === true) delete obj[name];
    else dropAbsentNulls(child, obj[name]);
  }
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

/** What the request holds beyond the errors: the route's hints and the parts they read. */
export interface RequestHints extends RouteConfig {
  readonly body?: unknown;
  /** The account the request acts for; null before authentication. */
  readonly account?: AccountContext | null;
  readonly params?: Readonly<Record<string, unknown>>;
}

/** Up to this many allowed values are written into the message; all of them are in details.allowed. */
const LISTED_VALUES = 12;

/**
 * The catalogue error for the ajv errors of a request part ("body", "querystring", "params"): the
 * first error's, with every error of the request in details.problems (a route's explanation of a part,
 * such as a destination's target, lists its own problems for that part).
 */
export function validationError(errors: readonly AjvError[], context: string, hints: RequestHints = {}): ApiError {
  const first = firstError(errors, context, hints);
  const all = (errors as Errors)[ALL_ERRORS];
  // A path names one resource: its one problem is the whole answer.
  if (all === undefined || context === 'params') return first;
  const explained = new Set<string>();
  const others: ApiError[] = [];
  for (const group of errorGroups(all)) {
    const at = (group[0] as AjvError).instancePath;
    const prefix = [...explained].find((p) => at === p || at.startsWith(`${p}/`));
    if (prefix !== undefined) continue;
    const e = firstError(group, context, hints);
    // An explanation covers the part it explains (e.g. /target), whose schema errors it replaces.
    if (e.details.problems !== undefined && at.startsWith('/')) explained.add(`/${at.split('/')[1] ?? ''}`);
    others.push(e);
  }
  return ApiError.all([first, ...others]);
}

/** The error to answer for `errors` (those of one problem, or the first validator's): as the API always answered. */
function firstError(errors: readonly AjvError[], context: string, hints: RequestHints): ApiError {
  const first = errors[0];
  if (first === undefined) return new ApiError('invalid_body', { field: 'body', reason: 'is not valid' });
  if (context === 'body' && hints.explain !== undefined && hints.account !== undefined && hints.account !== null) {
    const explained = explain(hints.explain, hints.body, first.instancePath, hints.account);
    if (explained !== undefined) return explained;
  }
  const marked = errors.find((e) => xErrorOf(e) !== undefined);
  if (marked !== undefined) return fromXError(marked, context, hints);
  return fromKeyword(reported(errors), context, hints);
}

/**
 * Every error of a request, one group per problem: an error alone, or a oneOf or anyOf that failed with
 * its branches' errors (which come before it), as the first validator reports one.
 */
function errorGroups(errors: readonly AjvError[]): AjvError[][] {
  const combinators = errors.filter((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf');
  const owner = (e: AjvError): AjvError | undefined => combinators.find((c) => c !== e && e.schemaPath.startsWith(`${c.schemaPath}/`));
  const groups = new Map<AjvError, AjvError[]>();
  for (const e of errors) {
    // The outermost combinator a branch error belongs to; its own error comes after its branches'.
    let top = owner(e);
    for (let up = top; up !== undefined; up = owner(up)) top = up;
    const key = top ?? e;
    const group = groups.get(key) ?? [];
    group.push(e);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/** The route's explanation; one that trips over a body the schema refused is no explanation. */
function explain(f: NonNullable<RequestHints['explain']>, body: unknown, at: string, account: AccountContext): ApiError | undefined {
  try {
    return f(body, at, account);
  } catch {
    return undefined;
  }
}

function xErrorOf(e: AjvError): XError | undefined {
  const schema = (e as { parentSchema?: Record<string, unknown> }).parentSchema;
  return schema?.[X_ERROR] as XError | undefined;
}

/** The error a schema's x-error names, its details completed from the request. */
function fromXError(e: AjvError, context: string, hints: RequestHints): ApiError {
  const { code, ...fixed } = xErrorOf(e) as XError;
  const field = fieldPath(e.instancePath);
  const value = (e as { data?: unknown }).data;
  const shown = typeof value === 'string' ? value.slice(0, 300) : JSON.stringify(value)?.slice(0, 300);
  const details: Record<string, unknown> = (() => {
    switch (code) {
      case 'not_found':
        return { ...fixed, id: shown };
      case 'source_not_found':
        return { subscription_id: hints.params?.id, type: shown };
      // A reason describes the rule; the value is not echoed (a URL may carry credentials).
      case 'invalid_body':
      case 'invalid_file_path':
        return { field, ...fixed };
      default:
        return { field, ...fixed, value: shown };
    }
  })();
  return new ApiError(code, context === 'querystring' ? { ...details, location: context } : details);
}

/**
 * The error to name when no x-error applies: the first one, unless it is one branch's of a oneOf or
 * anyOf that failed as a whole (the branches' errors come before the combinator's). Then, when every
 * branch failed for the same reason (all miss the same field), that reason; else the combinator's.
 */
function reported(errors: readonly AjvError[]): AjvError {
  const first = errors[0] as AjvError;
  if (!/\/(oneOf|anyOf)\/\d+\//.test(first.schemaPath)) return first;
  const combinator = errors.find((e) => (e.keyword === 'oneOf' || e.keyword === 'anyOf') && first.schemaPath.startsWith(`${e.schemaPath}/`));
  if (combinator === undefined) return first;
  const branches = errors.filter((e) => e.schemaPath.startsWith(`${combinator.schemaPath}/`));
  const reason = (e: AjvError): string => `${e.keyword} ${e.instancePath} ${JSON.stringify(e.params)}`;
  return branches.every((e) => reason(e) === reason(first)) ? first : combinator;
}

function fromKeyword(e: AjvError, context: string, hints: RequestHints): ApiError {
  const params = (e.params ?? {}) as Record<string, unknown>;
  const data = (e as { data?: unknown }).data;
  const path = e.instancePath;
  const location = context === 'body' ? undefined : context;
  const withLocation = (d: ErrorDetails): ErrorDetails => (location === undefined ? d : { ...d, location });
  const fail = (code: ApiErrorCode, d: ErrorDetails): ApiError => new ApiError(code, withLocation(d));
  switch (e.keyword) {
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      const immutable = hints.immutable;
      if (location === undefined && path === '' && immutable?.fields.includes(name) === true) {
        return new ApiError('immutable_field', { field: name, resource: immutable.resource });
      }
      return fail('unknown_field', { field: fieldPath(path, name) });
    }
    case 'maxLength':
      return fail('field_too_long', { field: fieldPath(path), limit: params.limit, unit: 'characters', actual: typeof data === 'string' ? [...data].length : undefined });
    case 'maxItems':
      return fail('too_many_items', { field: fieldPath(path), limit: params.limit, actual: Array.isArray(data) ? data.length : undefined });
    case 'uniqueItems': {
      // ajv names the two equal entries; the later one is the repeat.
      const at = Math.max(Number(params.i), Number(params.j));
      const value = Array.isArray(data) ? data[at] : undefined;
      return fail('duplicate_value', { field: fieldPath(path, String(at)), value: typeof value === 'string' ? value : JSON.stringify(value) });
    }
  }
  const field = e.keyword === 'required' ? fieldPath(path, String(params.missingProperty)) : fieldPath(path);
  const named = field === '' ? (location ?? 'body') : field;
  const allowed = allowedValues(e);
  const reason = allowed !== undefined ? oneOfValues(allowed) : REASONS[e.keyword]?.(params) ?? e.message ?? 'is not valid';
  const extra = allowed === undefined ? {} : { allowed };
  if (location !== undefined) return new ApiError('invalid_parameter', { location, field: named, reason, ...extra });
  return new ApiError('invalid_body', { field: named, reason, ...extra });
}

function allowedValues(e: AjvError): unknown[] | undefined {
  const params = (e.params ?? {}) as Record<string, unknown>;
  if (e.keyword === 'enum' && Array.isArray(params.allowedValues)) return params.allowedValues;
  if (e.keyword === 'const') return [params.allowedValue];
  return undefined;
}

function oneOfValues(values: readonly unknown[]): string {
  const text = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));
  if (values.length === 1) return `must be ${text(values[0])}`;
  if (values.length <= LISTED_VALUES) return `must be one of ${values.map(text).join(', ')}`;
  return `must be one of the ${values.length} values listed in details.allowed`;
}

const REASONS: Readonly<Record<string, (p: Record<string, unknown>) => string>> = {
  required: () => 'is required',
  minLength: (p) => `must be at least ${String(p.limit)} characters long`,
  minItems: (p) => `must have at least ${String(p.limit)} entries`,
  pattern: () => 'does not have the form its schema gives (see the API description at /docs)',
  not: () => 'is a value this field does not take (see the API description at /docs)',
  oneOf: () => 'does not match exactly one of the forms its schema allows (see the API description at /docs)',
  anyOf: () => 'does not match any of the forms its schema allows (see the API description at /docs)',
};
