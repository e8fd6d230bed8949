// Building blocks of the kinds' JSON schemas (request and response of `target.<kind>`), so every kind
// writes its schema the same way and the OpenAPI document reads alike across kinds.
import type { JsonSchema } from '../destination-kind.js';

type Schema = Record<string, unknown>;

export const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });

export const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });

/** An object that refuses unknown fields. */
export const obj = (properties: Readonly<Record<string, JsonSchema>>, required: readonly string[] = [], description?: string): Schema => ({
  type: 'object',
  additionalProperties: false,
  // OpenAPI 3.0 (JSON Schema draft 4) wants a non-empty required list, or none.
  ...(required.length > 0 && { required: [...required] }),
  properties,
  ...(description !== undefined && { description }),
});

const WRITE_ONLY = 'Write-only: sent on create or update, answered as null. Omitted (or null) on update keeps the stored value.';

/** A secret as a request sends it: `description` says what it is, then the write-only rule, then `after`. */
export const secretRequest = (description: string, maxLength: number, after = ''): Schema => nullable(str(`${description} ${WRITE_ONLY}${after}`, { maxLength }));

/**
 * A secret in a response: typed string-or-null, not null alone. The view always sends null, and the
 * OpenAPI 3.0 conversion of a bare null type (an object enum of [null]) trips up common validators.
 */
export const secretResponse = (description: string): Schema => ({ type: ['string', 'null'], description: `${description} Write-only: always null here.` });
