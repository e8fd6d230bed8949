// Validation of event subscription sources: a type of the event catalogue, the fields of a traffic type,
// and its filter compiled by the filter engine, turned into the stored shape the pipeline reads. The
// schema (subscription-schemas.ts) states all of it but the filter and the uniqueness of types; these
// checks also explain, in the catalogue's words, why the schema refused a source.
import { MIN_SAMPLE_RATE } from '../../subscriptions/sampling.js';
import { compile } from '../../cel/compile.js';
import type { FilterProblem } from '../../cel/types.js';
import type { StoredSource } from '../../configlog/resources.js';
import { EVENT_TYPES, TRAFFIC_FIELDS, fieldOf, isAuditEventType, isTrafficEventType } from '../../events/catalog.js';
import { ApiError, type ErrorDetails } from '../errors.js';
import { MAX_SOURCES_PER_SUBSCRIPTION, MAX_SUBSCRIPTION_FILTER_LENGTH } from './limits.js';

/** A source as a request carries it; null and empty values mean "not given". */
export interface SourceInput {
  readonly type: string;
  readonly fields?: readonly string[] | null;
  readonly filter?: string | null;
  readonly sample_rate?: number | null;
}

export type SourceResult = { readonly ok: true; readonly source: StoredSource } | { readonly ok: false; readonly error: ApiError };

/** Where a source sits in the body: "sources[2]" in a subscription, "" for the sources sub-resource. */
function at(path: string, field: string): string {
  return path === '' ? field : `${path}.${field}`;
}

/**
 * Checks one source. `path` prefixes field names in errors; `index` is the source's position in a
 * subscription body (reported as details.source_index), absent for the sources sub-resource.
 */
export function validateSource(input: SourceInput, path = '', index?: number): SourceResult {
  const fail = (code: ConstructorParameters<typeof ApiError>[0], details: ErrorDetails): SourceResult => ({
    ok: false,
    error: new ApiError(code, index === undefined ? details : { ...details, source_index: index }),
  });
  const { type } = input;
  const fields = input.fields ?? [];
  const filter = input.filter ?? '';

  if (isAuditEventType(type)) {
    // An audit source takes neither; empty values are accepted so a GET response can be sent back as is.
    if (fields.length > 0) return fail('audit_source_field', { field: at(path, 'fields'), type });
    if (filter !== '') return fail('audit_source_field', { field: at(path, 'filter'), type });
    if (input.sample_rate !== undefined && input.sample_rate !== null && input.sample_rate !== 1) return fail('audit_source_field', { field: at(path, 'sample_rate'), type });
    return { ok: true, source: { type } };
  }
  if (!isTrafficEventType(type)) return fail('unknown_event_type', { field: at(path, 'type'), type, allowed: EVENT_TYPES });

  if (fields.length === 0) {
    return fail('source_fields_required', { field: at(path, 'fields'), type, example: TRAFFIC_FIELDS[type][0]?.name });
  }
  const seen = new Set<string>();
  for (const [i, name] of fields.entries()) {
    const field = `${at(path, 'fields')}[${i}]`;
    if (fieldOf(type, name) === undefined) return fail('unknown_event_field', { field, type, value: name, allowed: TRAFFIC_FIELDS[type].map((f) => f.name) });
    if (seen.has(name)) return fail('duplicate_value', { field, value: name });
    seen.add(name);
  }

  if (filter.length > MAX_SUBSCRIPTION_FILTER_LENGTH) {
    // Counted in UTF-16 units, as the filter engine's own bound is.
    return fail('field_too_long', { field: at(path, 'filter'), limit: MAX_SUBSCRIPTION_FILTER_LENGTH, actual: filter.length, unit: 'characters' });
  }
  if (filter.trim() !== '') {
    const compiled = compile(filter, type);
    const costly = compiled.ok ? undefined : compiled.problems.find((p) => p.code === 'too_costly');
    if (costly !== undefined) return fail('filter_too_costly', { field: at(path, 'filter'), type, cost: costly.cost, limit: costly.limit, reason: costly.message });
    if (!compiled.ok) {
      const field = at(path, 'filter');
      const each = compiled.problems.map((p: FilterProblem) => ({ field, type, line: p.line, column: p.column, filter_code: p.code, reason: p.message }));
      // Every problem of the filter, each at its line and column (docs/api-errors.md "Every problem at once").
      const problems = each.map((d) => ({ ...new ApiError('invalid_filter', d).problem(), line: d.line, column: d.column, filter_code: d.filter_code, reason: d.reason }));
      return fail('invalid_filter', { ...(each[0] as ErrorDetails), problems });
    }
  }
  const rate = input.sample_rate ?? 1;
  if (!(rate >= MIN_SAMPLE_RATE && rate <= 1)) return fail('invalid_body', { field: at(path, 'sample_rate'), reason: sampleRateRule(rate), value: rate });
  return { ok: true, source: { type, fields: [...fields], ...(filter.trim() !== '' && { filter }), ...(rate < 1 && { sample_rate: rate }) } };
}

const SOURCE_KEYS = ['type', 'fields', 'filter', 'sample_rate'];

/** Below 2^-32 no match would ever be kept (src/subscriptions/sampling.ts): refused rather than stored to deliver nothing. */
const sampleRateRule = (rate: unknown): string =>
  `must be a number from 2^-32 (${MIN_SAMPLE_RATE}) to 1${typeof rate === 'number' && rate > 0 && rate < MIN_SAMPLE_RATE ? '; a smaller rate would deliver nothing' : ''}`;

/** What is wrong with the shape of a source as a request sent it (the schema's checks), or undefined. */
function shapeProblem(raw: unknown, path: string, index?: number): ApiError | undefined {
  const with_ = (d: ErrorDetails): ErrorDetails => (index === undefined ? d : { ...d, source_index: index });
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return new ApiError('invalid_body', with_({ field: path === '' ? 'body' : path, reason: 'must be an object' }));
  const source = raw as Record<string, unknown>;
  const unknown = Object.keys(source).find((k) => !SOURCE_KEYS.includes(k));
  if (unknown !== undefined) return new ApiError('unknown_field', with_({ field: at(path, unknown) }));
  const { type, fields, filter } = source;
  if (type === undefined) return new ApiError('invalid_body', with_({ field: at(path, 'type'), reason: 'is required' }));
  if (typeof type !== 'string') return new ApiError('invalid_body', with_({ field: at(path, 'type'), reason: 'must be a string' }));
  if (!(fields === undefined || fields === null || (Array.isArray(fields) && fields.every((f) => typeof f === 'string')))) {
    return new ApiError('invalid_body', with_({ field: at(path, 'fields'), reason: 'must be a list of field names' }));
  }
  if (!(filter === undefined || filter === null || typeof filter === 'string')) return new ApiError('invalid_body', with_({ field: at(path, 'filter'), reason: 'must be a string' }));
  const rate = source.sample_rate;
  if (!(rate === undefined || rate === null || (typeof rate === 'number' && rate >= MIN_SAMPLE_RATE && rate <= 1))) {
    return new ApiError('invalid_body', with_({ field: at(path, 'sample_rate'), reason: sampleRateRule(rate) }));
  }
  return undefined;
}

/**
 * Why a source as a request sent it is refused (its first problem, in the catalogue's words), or
 * undefined: for a body the schema refused, to name the problem better than the schema can.
 */
export function sourceProblem(raw: unknown): ApiError | undefined {
  const shape = shapeProblem(raw, '');
  if (shape !== undefined) return shape;
  const r = validateSource(raw as SourceInput);
  return r.ok ? undefined : r.error;
}

/** The same for a subscription's list of sources; undefined when it is not a list. */
export function sourcesProblem(raw: unknown): ApiError | undefined {
  if (!Array.isArray(raw)) return undefined;
  for (const [i, source] of raw.entries()) {
    const shape = shapeProblem(source, `sources[${i}]`, i);
    if (shape !== undefined) return shape;
  }
  const r = validateSources(raw as SourceInput[]);
  return r.ok ? undefined : r.error;
}

/** Checks a subscription's whole source list: the cap, each source, and that types are unique. */
export function validateSources(inputs: readonly SourceInput[]): { ok: true; sources: StoredSource[] } | { ok: false; error: ApiError } {
  if (inputs.length > MAX_SOURCES_PER_SUBSCRIPTION) {
    return { ok: false, error: new ApiError('too_many_items', { field: 'sources', limit: MAX_SOURCES_PER_SUBSCRIPTION, actual: inputs.length }) };
  }
  const sources: StoredSource[] = [];
  const firstIndex = new Map<string, number>();
  for (const [i, input] of inputs.entries()) {
    const earlier = firstIndex.get(input.type);
    if (earlier !== undefined) {
      return { ok: false, error: new ApiError('duplicate_source_type', { field: `sources[${i}].type`, source_index: i, type: input.type, first_index: earlier }) };
    }
    firstIndex.set(input.type, i);
    const r = validateSource(input, `sources[${i}]`, i);
    if (!r.ok) return r;
    sources.push(r.source);
  }
  return { ok: true, sources };
}
