// The JSON form of a raw record: the nested shape checked field by field against the record plan.
import type { FieldType } from '../events/catalog.js';
import { DecodeError } from './errors.js';
import { FILTERABLE_LEAVES, checkFilterable, isIntType, type FilterableLeaf } from './filterable.js';
import type { GroupPlan, LeafPlan, RecordPlan } from './field-plan.js';
import type { DecodedRecord, FilterableFields, JsonValue } from './record-types.js';
import { MAX_INT64_MAGNITUDE, formatMicros, parseRfc3339 } from './timestamps.js';

/** Validates a parsed JSON record and returns it in the canonical decoded shape. Throws DecodeError. */
export type JsonRecordValidator = (src: unknown) => DecodedRecord;

export interface JsonValidatorOptions {
  /**
   * Look for lone surrogates ("\ud800" escapes), which JSON allows but UTF-8 cannot carry. The decoder
   * turns it on only when the body contains "\u", so bodies without escapes pay nothing.
   */
  readonly checkSurrogates: boolean;
}

/** A surrogate not in a pair: with the u flag a pair is one code point, outside the Surrogate category. */
export const LONE_SURROGATE = /\p{Surrogate}/u;

function violation(message: string): never {
  throw new DecodeError('schema_violation', message);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkString(s: string, path: string, surrogates: boolean): string {
  if (surrogates && LONE_SURROGATE.test(s)) throw new DecodeError('invalid_utf8', `${path} holds a lone surrogate, which UTF-8 cannot encode.`);
  return s;
}

function checkKey(k: string, path: string, surrogates: boolean): void {
  // Kept out for the same reason as in Avro (avro-scan.ts): the forms must accept the same records.
  if (k === '__proto__') violation(`${path}: the key __proto__ is not allowed.`);
  checkString(k, `${path} key`, surrogates);
}

/** Log values may nest containers this deep; deeper ones are refused rather than walked (and the stack risked). */
export const MAX_LOG_VALUE_DEPTH = 32;

/** True when a JSON value nests deeper than MAX_LOG_VALUE_DEPTH (both forms hold log values to the same limit). */
export function tooDeep(v: unknown, depth = 0): boolean {
  if (typeof v !== 'object' || v === null) return false;
  if (depth >= MAX_LOG_VALUE_DEPTH) return true;
  for (const x of Array.isArray(v) ? v : Object.values(v)) if (tooDeep(x, depth + 1)) return true;
  return false;
}

/** A log value, checked for lone surrogates and copied; its depth was checked first (tooDeep). */
function checkAny(v: unknown, path: string, surrogates: boolean): JsonValue {
  if (typeof v === 'string') return checkString(v, path, surrogates);
  if (v === null || typeof v === 'boolean') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) violation(`${path} is a number beyond the range of a double (about ±1.8e308), which JSON readers cannot hold.`);
    return v;
  }
  if (Array.isArray(v)) return v.map((x, i) => checkAny(x, `${path}[${i}]`, surrogates));
  if (isObject(v)) {
    const out: { [key: string]: JsonValue } = {};
    for (const k of Object.keys(v)) {
      checkString(k, `${path} key`, surrogates);
      // Inside a log value any key is data, "__proto__" included (as JSON.parse makes it in the Avro form).
      const value = checkAny(v[k], `${path}.${k}`, surrogates);
      if (k === '__proto__') Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
      else out[k] = value;
    }
    return out;
  }
  return violation(`${path} is not a JSON value.`);
}

/**
 * Why a log value of the Avro form, parsed from its JSON `text`, breaks the rules the JSON form holds
 * log values to (its depth, lone surrogates, numbers no double holds), or undefined: both forms refuse
 * the same values with the same words.
 */
export function logValueProblem(value: unknown, text: string, path: string): DecodeError | undefined {
  if (tooDeep(value)) return new DecodeError('schema_violation', `${path} holds a value that nests deeper than ${MAX_LOG_VALUE_DEPTH} levels.`);
  try {
    checkAny(value, path, text.includes('\\u'));
  } catch (err) {
    if (err instanceof DecodeError) return err;
    throw err;
  }
  return undefined;
}

type Leaf = (v: unknown) => JsonValue;

function leafCheck(type: FieldType, path: string, surrogates: boolean): Leaf {
  switch (type) {
    case 'string':
      return (v) => (typeof v === 'string' ? checkString(v, path, surrogates) : violation(`${path} must be a string.`));
    case 'bool':
      return (v) => (typeof v === 'boolean' ? v : violation(`${path} must be a boolean.`));
    case 'int32':
      return (v) =>
        Number.isInteger(v) && (v as number) >= -2_147_483_648 && (v as number) <= 2_147_483_647
          ? (v as number)
          : violation(`${path} must be an integer in the int32 range.`);
    case 'int64':
      // JSON.parse turns integers beyond 2^53 into nearby doubles; all of those are beyond this bound.
      return (v) =>
        Number.isInteger(v) && Math.abs(v as number) <= MAX_INT64_MAGNITUDE
          ? (v as number)
          : violation(`${path} must be an integer of at most 2^53 - 2 in magnitude.`);
    case 'timestamp':
      return (v) => {
        const micros = typeof v === 'string' ? parseRfc3339(v) : undefined;
        return micros === undefined ? violation(`${path} must be an RFC 3339 date-time (years 1685-2254).`) : formatMicros(micros);
      };
    case 'headers':
      return (v) => {
        if (!isObject(v)) violation(`${path} must be an object of string lists.`);
        const out: { [key: string]: JsonValue } = {};
        for (const k of Object.keys(v)) {
          checkKey(k, path, surrogates);
          const list = v[k];
          if (!Array.isArray(list)) violation(`${path}.${k} must be a list of strings.`);
          out[k] = list.map((s: unknown) => (typeof s === 'string' ? checkString(s, `${path}.${k}`, surrogates) : violation(`${path}.${k} must be a list of strings.`)));
        }
        return out;
      };
    case 'logs':
      return (v) => {
        if (!Array.isArray(v)) violation(`${path} must be a list of objects.`);
        return v.map((m: unknown, i) => {
          if (!isObject(m)) violation(`${path}[${i}] must be an object.`);
          const out: { [key: string]: JsonValue } = {};
          for (const k of Object.keys(m)) {
            checkKey(k, `${path}[${i}]`, surrogates);
            if (tooDeep(m[k])) violation(`${path}[${i}].${k} nests deeper than ${MAX_LOG_VALUE_DEPTH} levels.`);
            out[k] = checkAny(m[k], `${path}[${i}].${k}`, surrogates);
          }
          return out;
        });
      };
  }
}

function nullTree(group: GroupPlan): () => DecodedRecord {
  const makers = group.children.map((c) => (c.kind === 'group' ? nullTree(c) : () => null));
  return () => {
    const out: DecodedRecord = {};
    group.children.forEach((c, i) => {
      out[c.name] = (makers[i] as () => JsonValue)();
    });
    return out;
  };
}

function compileGroup(group: GroupPlan, surrogates: boolean): (src: unknown) => DecodedRecord {
  const label = group.path === '' ? 'The record' : group.path;
  const empty = nullTree(group);
  const steps = group.children.map((child): ((src: Record<string, unknown>, out: DecodedRecord) => void) => {
    const { name } = child;
    if (child.kind === 'group') {
      const inner = compileGroup(child, surrogates);
      return (src, out) => {
        out[name] = inner(src[name]);
      };
    }
    const check = leafCheck(child.type, child.path, surrogates);
    const leaf: LeafPlan = child;
    return (src, out) => {
      const v = src[name];
      if (v === undefined || v === null) {
        if (leaf.required) violation(`${leaf.path} is required.`);
        out[name] = null;
      } else {
        out[name] = check(v);
      }
    };
  });
  return (src) => {
    if (src === undefined || src === null) {
      if (group.required) violation(`${group.path} is required.`);
      return empty();
    }
    if (!isObject(src)) violation(`${label} must be an object.`);
    // Unknown fields are refused: a misspelt field would otherwise vanish into a silent null.
    for (const k of Object.keys(src)) {
      if (!group.childNames.has(k)) violation(`${group.path === '' ? k : `${group.path}.${k}`} is not a field of this event type.`);
    }
    const out: DecodedRecord = {};
    for (const step of steps) step(src, out);
    return out;
  };
}

export function compileJsonValidator(plan: RecordPlan, opts: JsonValidatorOptions): JsonRecordValidator {
  const root = compileGroup(plan.root, opts.checkSurrogates);
  return (src) => {
    const record = root(src);
    checkFilterable(record as unknown as FilterableFields);
    return record;
  };
}

/** A filterable field's value, typed as the filter reads it: an integer field needs an integer (its bounds are checkFilterable's). */
function filterableValue(v: unknown, leaf: FilterableLeaf, surrogates: boolean): string | number {
  if (v === undefined || v === null) violation(`${leaf.path} is required.`);
  if (isIntType(leaf.type)) return Number.isInteger(v) ? (v as number) : violation(`${leaf.path} must be an integer in the ${leaf.type} range.`);
  return typeof v === 'string' ? checkString(v, leaf.path, surrogates) : violation(`${leaf.path} must be a ${leaf.type}.`);
}

/**
 * The filterable fields of a parsed JSON record, checked without looking at the rest. The decoder passes
 * {<group>: …} alone when only the leading group was parsed (json-lead.ts).
 */
export function jsonFilterable(src: unknown, surrogates: boolean): FilterableFields {
  if (!isObject(src)) violation('The record must be an object.');
  const out: Record<string, unknown> = {};
  for (const leaf of FILTERABLE_LEAVES) {
    let from: Record<string, unknown> = src;
    let to = out;
    leaf.parts.slice(0, -1).forEach((name, i) => {
      const group = from[name];
      const path = leaf.parts.slice(0, i + 1).join('.');
      if (!isObject(group)) violation(group === undefined || group === null ? `${path} is required.` : `${path} must be an object.`);
      from = group;
      to = (to[name] ??= {}) as Record<string, unknown>;
    });
    const name = leaf.parts[leaf.parts.length - 1] as string;
    to[name] = filterableValue(from[name], leaf, surrogates);
  }
  const f = out as unknown as FilterableFields;
  checkFilterable(f);
  return f;
}
