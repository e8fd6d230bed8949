// One table per resource says what each field is in a request and in a response. The create and update
// body schemas (request validation and the OpenAPI document) and the response schema all come from it,
// so a field is stated once; a new field is one entry (src/admin/README.md "Resource fields").
import type { IdKind } from '../ids.js';
import type { LimitUnit } from './text-limits.js';
import { idResponse, textField, timestampString, uriString, type Schema } from './schemas.js';

export interface Field {
  /** What a request may send; absent for a field only the service sets (read-only in responses). */
  readonly request?: Schema;
  /** What an update may send, where it differs from `request` (a secret that may be left out to keep it). */
  readonly update?: Schema;
  /** What responses hold; absent for a field requests send and responses do not show. */
  readonly response?: Schema;
  /** A create must send it. */
  readonly required?: boolean;
  /** Set at creation only: absent from the update schema, and an update that sends it is 400 immutable_field. */
  readonly immutable?: boolean;
}

export type Fields = Readonly<Record<string, Field>>;

export interface ResourceSchemas {
  /** The body of a create. */
  readonly create: Schema;
  /** The body of an update: every mutable field, none required. */
  readonly update: Schema;
  /** The resource in a response: every field with a `response`, in the table's order (the order of its keys). */
  readonly response: Schema;
  /** The fields an update may not send. */
  readonly immutable: readonly string[];
}

/** An object that refuses unknown fields; OpenAPI wants a non-empty `required`, or none. */
export function objectSchema(properties: Readonly<Record<string, Schema>>, required: readonly string[] = [], extra: Schema = {}): Schema {
  return { type: 'object', additionalProperties: false, ...(required.length > 0 && { required: [...required] }), properties, ...extra };
}

export function resourceSchemas(fields: Fields): ResourceSchemas {
  const entries = Object.entries(fields);
  const pick = (f: (field: Field, name: string) => Schema | undefined): Record<string, Schema> =>
    Object.fromEntries(entries.flatMap(([name, field]) => {
      const s = f(field, name);
      return s === undefined ? [] : [[name, s]];
    }));
  const create = pick((f) => f.request);
  const update = pick((f) => (f.immutable === true ? undefined : (f.update ?? f.request)));
  // A named part (a Ref, a status) is the same schema everywhere, so it stays as it is.
  const readOnly = (s: Schema): Schema => (s.title === undefined ? { ...s, readOnly: true } : s);
  const response = pick((f) => (f.response === undefined ? undefined : f.request === undefined ? readOnly(f.response) : f.response));
  return {
    create: objectSchema(create, entries.filter(([, f]) => f.required === true && f.request !== undefined).map(([n]) => n)),
    update: objectSchema(update),
    response: objectSchema(response, Object.keys(response)),
    immutable: entries.filter(([, f]) => f.immutable === true && f.request !== undefined).map(([n]) => n),
  };
}

/**
 * The fields every resource kept in the config log has: id, uri, the account that owns it and created_at
 * (set by the service), and description and metadata (default ""). A resource spreads them in the order
 * its responses list them.
 */
export function baseFields(kind: IdKind, unit: LimitUnit = 'bytes') {
  return {
    id: { response: idResponse(kind) },
    uri: { response: uriString },
    account_id: { response: { ...idResponse('account'), description: 'The account that owns it: the account of the API key that created it.' } },
    created_at: { response: timestampString },
    description: { request: textField('description', unit), response: { type: 'string' } },
    metadata: { request: textField('metadata', unit), response: { type: 'string' } },
  } satisfies Fields;
}
