// Which of the three producer forms a raw record is in, from its content-type header and its first byte.
import { DecodeError } from './errors.js';
import type { RawMessage, WireForm } from './record-types.js';

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

/**
 * The value of the message's content-type header (its name matched case-insensitively), as it came.
 * Headers may repeat: when they name different media types the record says two things, and is refused.
 */
function contentTypeHeader(msg: RawMessage): string | Buffer | undefined {
  const headers = msg.headers;
  if (headers === undefined) return undefined;
  let found: string | Buffer | undefined;
  let more: (string | Buffer)[] | undefined;
  for (const name in headers) {
    if (name.length === 12 && (name === 'content-type' || name.toLowerCase() === 'content-type') && Object.hasOwn(headers, name)) {
      const v = headers[name];
      // Every record reads this: one value is taken without an array or a closure.
      const values = Array.isArray(v) ? (v as (string | Buffer | null | undefined)[]) : undefined;
      for (let i = 0, n = values === undefined ? 1 : values.length; i < n; i++) {
        const one = values === undefined ? (v as string | Buffer | null | undefined) : values[i];
        if (one === null || one === undefined) continue;
        if (found === undefined) found = one;
        else (more ??= [found]).push(one);
      }
    }
  }
  if (more !== undefined) {
    const media = [...new Set(more.map(mediaType))];
    if (media.length > 1) throw new DecodeError('unsupported_content_type', `The record has ${more.length} content-type headers naming different media types (${media.map((m) => JSON.stringify(m)).join(', ')}); send one.`);
  }
  return found;
}

/** The media type of a content-type header's value: lowercased, without parameters. */
function mediaType(v: string | Buffer): string {
  const text = typeof v === 'string' ? v : v.toString('latin1');
  return (text.split(';', 1)[0] as string).trim().toLowerCase();
}

/** The media type of the message's content-type header (name matched case-insensitively), lowercased, without parameters. */
export function contentTypeOf(msg: RawMessage): string | undefined {
  const v = contentTypeHeader(msg);
  return v === undefined ? undefined : mediaType(v);
}

/** The form a media type names; only CONTENT_TYPES' own keys, so "constructor" names none. */
function formNamed(media: string): WireForm | undefined {
  return Object.hasOwn(CONTENT_TYPES, media) ? CONTENT_TYPES[media] : undefined;
}

/** The content types' bytes, so that a header written exactly so (as producers write it) is matched without making a string. */
const CONTENT_TYPE_BYTES: readonly { readonly bytes: Buffer; readonly form: WireForm }[] = Object.entries(CONTENT_TYPES).map(([media, form]) => ({ bytes: Buffer.from(media, 'latin1'), form }));

function exactForm(v: Buffer): WireForm | undefined {
  for (const { bytes, form } of CONTENT_TYPE_BYTES) if (v.length === bytes.length && v.equals(bytes)) return form;
  return undefined;
}

/**
 * The rule (docs/record-formats.md): a content-type header decides when present; without one, a first byte
 * 0 means the Confluent wire format and anything else plain Avro. That is unambiguous for valid records
 * because plain Avro starts with the length of the schema's first field, a filterable string the catalogue
 * marks never empty (FILTERABLE's nonEmpty, checked in filterable.ts).
 */
export function detectWireForm(msg: RawMessage, value: Buffer): WireForm {
  const header = contentTypeHeader(msg);
  if (header !== undefined) {
    const exact = typeof header === 'string' ? formNamed(header) : exactForm(header);
    if (exact !== undefined) return exact;
    const media = mediaType(header);
    const form = formNamed(media);
    if (form === undefined) throw new DecodeError('unsupported_content_type', `The content type ${JSON.stringify(media)} is not one of ${Object.keys(CONTENT_TYPES).join(', ')}.`);
    return form;
  }
  return value[0] === CONFLUENT_MAGIC ? 'confluent' : 'avro';
}
