// Building blocks of the kinds' JSON schemas (request and response of `target.<kind>`), so every kind
// writes its schema the same way and the OpenAPI document reads alike across kinds. A kind's schema is
// the whole of its syntax: what it accepts is what parse() accepts, but for rules a schema cannot state.
import type { ConfigProblemCode } from '../destination-config.js';
import type { JsonSchema } from '../destination-kind.js';

type Schema = Record<string, unknown>;

/**
 * The problem a value that breaks `schema` is answered with, where parse() is laxer than the schema (it
 * also reads targets stored before the schema was narrowed): the annotation `x-error` that the admin
 * API's validation reads (src/admin/schemas.ts). `reason` completes "The field <field> …".
 */
export const withError = (schema: Schema, code: ConfigProblemCode, details: { readonly reason: string }): Schema => ({ ...schema, 'x-error': { code, ...details } });

/**
 * A named schema: the OpenAPI document writes it once under components/schemas/<name> (a generated
 * client's class). A kind names its request schema <Kind>Target and its response <Kind>TargetView, and
 * any part of them it reuses (src/delivery/destinations/README.md).
 */
export const named = (name: string, schema: Schema): Schema => ({ title: name, ...schema });

/**
 * An object that sets exactly one of its properties, each optional, none null in the schema: generators
 * turn it into a class with one optional member per choice. That exactly one is set is a rule beyond the
 * schema (the kind or the registry checks it); a member sent as null counts as absent (`x-null-is-absent`,
 * which the admin API's validation applies before the schema).
 */
export const exactlyOne = (properties: Readonly<Record<string, JsonSchema>>, description: string): Schema => ({
  type: 'object',
  additionalProperties: false,
  properties,
  description: `${description} Exactly one is set; one sent as null counts as absent.`,
  'x-null-is-absent': true,
});

export const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });

/** A string matching `pattern` (a RegExp source written for every regex dialect: ASCII classes, no look-around). */
export const patterned = (pattern: string, description: string, extra: Schema = {}): Schema => str(description, { pattern, ...extra });

export const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });

/**
 * One of `values`, or null for the default: an enum that lists null, with no type list. Generators make one
 * named enum of it; with a type list they made a copy of the enum for each type (a union of copies).
 */
export const choiceOrNull = (values: readonly string[], description: string): Schema => ({ enum: [...values, null], description });

/** An object that refuses unknown fields. */
export const obj = (properties: Readonly<Record<string, JsonSchema>>, required: readonly string[] = [], description?: string): Schema => ({
  type: 'object',
  additionalProperties: false,
  // OpenAPI wants a non-empty required list, or none.
  ...(required.length > 0 && { required: [...required] }),
  properties,
  ...(description !== undefined && { description }),
});

const WRITE_ONLY = 'Write-only: sent on create or update, answered as null. Omitted (or null) on update keeps the stored value.';

/**
 * A secret as a create sends it, counted in characters: `description` says what it is, then the
 * write-only rule, then `after`. An optional secret may be null (none); a `removable` one may also be ""
 * (on an update, it removes the stored secret). destination-target.ts makes every secret optional and
 * nullable for an update, where leaving it out keeps the stored one.
 */
export const secretRequest = (description: string, length: { readonly min: number; readonly max: number }, opts: { optional?: boolean; removable?: boolean } = {}, after = ''): Schema => {
  const sized = { minLength: length.min, maxLength: length.max };
  const text = `${description} ${WRITE_ONLY}${after}`;
  // "" or min..max characters, as a pattern rather than an anyOf of the two, which generators cannot type.
  if (opts.removable === true) return { type: ['string', 'null'], maxLength: length.max, pattern: `^(?:|[\\s\\S]{${length.min},})$`, description: text };
  return { type: opts.optional === true ? ['string', 'null'] : 'string', ...sized, description: text };
};

/**
 * A secret in a response: typed string-or-null, not null alone. The view always sends null; a client
 * generated from the document then still types the field as the string it sends.
 */
export const secretResponse = (description: string): Schema => ({ type: ['string', 'null'], description: `${description} Write-only: always null here.` });
