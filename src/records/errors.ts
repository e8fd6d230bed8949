// The closed list of reasons a raw record or an audit event is refused; each one sends the record to the dead-letter topic.

/**
 * Every decode failure carries one of these codes (the dead-letter header `error_code` and the label of
 * the decode-failure counter). None is retryable: the same bytes fail the same way every time (a
 * `routing_failed` record once the bug is fixed: it waits in the dead-letter topic).
 */
export const DECODE_ERROR_CODES = [
  /** The value is null (a tombstone) or has no bytes. */
  'empty_record',
  /** The value is larger than the decoder's `maxRecordBytes`. */
  'record_too_large',
  /** A `content-type` header names a media type this topic does not take. */
  'unsupported_content_type',
  /** A Confluent frame names a schema id that is not in the schema id table. */
  'unknown_schema_id',
  /** A Confluent frame's schema id belongs to another event type than the topic's. */
  'schema_mismatch',
  /** Avro bytes that cannot be read: truncated, a bad union index or length, or trailing bytes after the record. */
  'malformed_avro',
  /** A JSON body that does not parse. */
  'invalid_json',
  /** A string that is not valid UTF-8 (Avro), a JSON body that is not, or a lone surrogate escape in JSON. */
  'invalid_utf8',
  /** Well-formed but wrong: a missing required field, a wrong type, an int out of range, an unknown field, a bad timestamp. */
  'schema_violation',
  /** An audit event whose event_type is not an audit event type (docs/events.md). */
  'unknown_event_type',
  /** A record whose Kafka timestamp is outside the years 0000 to 9999, which no event_timestamp can carry (the router's check). */
  'invalid_record_timestamp',
  /** The service failed on this record (a bug): the router dead-letters it rather than stall its partition. */
  'routing_failed',
] as const;

export type DecodeErrorCode = (typeof DECODE_ERROR_CODES)[number];

/** A refused record: the code is stable, the message is a sentence naming the field where there is one. */
export interface DecodeFailure {
  readonly ok: false;
  readonly code: DecodeErrorCode;
  readonly message: string;
  /** Always false: a bad record does not get better by retrying. */
  readonly retryable: false;
}

export function decodeFailure(code: DecodeErrorCode, message: string): DecodeFailure {
  return { ok: false, code, message, retryable: false };
}

/**
 * Thrown only inside the decoders' own walkers and caught at their public entry points, which turn it
 * into a DecodeFailure: the public functions never throw.
 */
export class DecodeError extends Error {
  constructor(
    readonly code: DecodeErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DecodeError';
  }
}
