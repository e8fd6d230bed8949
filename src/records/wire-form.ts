// Which of the three producer forms a raw record is in, from its content-type header and its first byte.
import { DecodeError } from './errors.js';
import type { HeaderValue, RawMessage, WireForm } from './record-types.js';

/** The media types a traffic topic takes in a `content-type` header, and the form each one names. */
export const CONTENT_TYPES: Readonly<Record<string, WireForm>> = {
  'application/json': 'json',
  'application/avro': 'avro',
  'avro/binary': 'avro',
  'application/vnd.confluent.avro': 'confluent',
};

/**
 * Confluent wire format: "Magic Byte: Confluent serialization format version number; currently always 0.
 * Schema ID: 4-byte schema ID as returned by Schema Registry. Data: serialized data for the specified
 * schema format (for example, binary encoding for Avro)".
 */
export const CONFLUENT_MAGIC = 0;
export const CONFLUENT_HEADER_BYTES = 5;

function firstString(v: HeaderValue): string | undefined {
  const one = Array.isArray(v) ? v[0] : v;
  if (one === undefined) return undefined;
  return typeof one === 'string' ? one : (one as Buffer).toString('latin1');
}

/** The media type of the message's content-type header (name matched case-insensitively), lowercased, without parameters. */
export function contentTypeOf(msg: RawMessage): string | undefined {
  const headers = msg.headers;
  if (headers === undefined) return undefined;
  for (const name of Object.keys(headers)) {
    if (name.length === 12 && name.toLowerCase() === 'content-type') {
      const value = firstString(headers[name]);
      return value?.split(';', 1)[0]?.trim().toLowerCase();
    }
  }
  return undefined;
}

/**
 * The rule (docs/record-formats.md): a content-type header decides when present; without one, a first byte
 * 0 means the Confluent wire format and anything else plain Avro. That is unambiguous for valid records
 * because plain Avro starts with the length of the schema's first field, a filterable string the catalogue
 * marks never empty (FILTERABLE's nonEmpty, checked in filterable.ts).
 */
export function detectWireForm(msg: RawMessage, value: Buffer): WireForm {
  const media = contentTypeOf(msg);
  if (media !== undefined) {
    const form = CONTENT_TYPES[media];
    if (form === undefined) throw new DecodeError('unsupported_content_type', `The content type ${JSON.stringify(media)} is not one of ${Object.keys(CONTENT_TYPES).join(', ')}.`);
    return form;
  }
  return value[0] === CONFLUENT_MAGIC ? 'confluent' : 'avro';
}
