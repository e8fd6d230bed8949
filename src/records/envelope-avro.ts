// The delivered envelope in Avro (schemas/envelope.avsc): principal and object travel as JSON texts.
import avro from 'avsc';
import type { Envelope, Principal } from '../events/envelope.js';
import { decodeFailure, type DecodeFailure } from './errors.js';
import { readSchemaFile } from './schema-registry.js';
import { formatMicros, parseRfc3339 } from './timestamps.js';

interface AvroEnvelope {
  event_id: string;
  event_type: string;
  event_timestamp: number;
  principal: string | null;
  object: string;
}

let type: avro.Type | undefined;

function envelopeType(): avro.Type {
  type ??= avro.Type.forSchema(readSchemaFile('envelope.avsc') as avro.Schema, { omitRecordMethods: true });
  return type;
}

/** Throws when event_timestamp is not RFC 3339: envelopes are built by this service, so that is a bug. */
export function encodeEnvelopeAvro(envelope: Envelope): Buffer {
  const micros = typeof envelope.event_timestamp === 'string' ? parseRfc3339(envelope.event_timestamp) : undefined;
  if (micros === undefined) throw new Error(`event_timestamp ${JSON.stringify(envelope.event_timestamp)} is not RFC 3339`);
  const value: AvroEnvelope = {
    event_id: envelope.event_id,
    event_type: envelope.event_type,
    event_timestamp: micros,
    principal: envelope.principal === null ? null : JSON.stringify(envelope.principal),
    object: JSON.stringify(envelope.object),
  };
  return envelopeType().toBuffer(value);
}

/** The envelope back, with event_timestamp in the canonical six-digit form. Never throws. */
export function decodeEnvelopeAvro(buf: Buffer): { readonly ok: true; readonly envelope: Envelope } | DecodeFailure {
  try {
    const v = envelopeType().fromBuffer(buf) as AvroEnvelope;
    return {
      ok: true,
      envelope: {
        event_id: v.event_id,
        event_type: v.event_type,
        event_timestamp: formatMicros(v.event_timestamp),
        principal: v.principal === null ? null : (JSON.parse(v.principal) as Principal),
        object: JSON.parse(v.object) as Record<string, unknown>,
      },
    };
  } catch (err) {
    return decodeFailure('malformed_avro', `The envelope cannot be read: ${err instanceof Error ? err.message : String(err)}.`);
  }
}
