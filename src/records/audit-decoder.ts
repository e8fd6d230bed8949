// Decoding an audit event from the audit topic: the JSON envelope, a known audit type, and its payload schema.
import { isUtf8 } from 'node:buffer';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { AGENT_SESSION_EVENT_TYPES, AUDIT_ACTIONS, AUDIT_KINDS, DESTINATION_HEALTH_EVENT_TYPE, isAuditEventType, type AuditKind } from '../events/catalog.js';
import { DecodeError, decodeFailure, type DecodeFailure } from './errors.js';
import { DEFAULT_MAX_RECORD_BYTES } from './record-decoder.js';
import type { JsonValue, RawMessage } from './record-types.js';
import { readSchemaFile } from './schema-registry.js';
import { contentTypeOf } from './wire-form.js';

// ajv-formats is CommonJS with a default export; under NodeNext its default import is the plugin itself.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** The payload schema of each kind (schemas/audit/<file>). */
export const AUDIT_PAYLOAD_SCHEMAS: Readonly<Record<AuditKind | 'agent_session' | 'event_destination_health', string>> = {
  agent_session: 'agent_session.schema.json',
  api_key: 'api_key.schema.json',
  certificate_authority: 'certificate_authority.schema.json',
  domain: 'domain.schema.json',
  event_destination: 'event_destination.schema.json',
  event_destination_health: 'event_destination_health.schema.json',
  event_subscription: 'event_subscription.schema.json',
  ip_policy: 'ip_policy.schema.json',
  ip_policy_rule: 'ip_policy_rule.schema.json',
  ip_restriction: 'ip_restriction.schema.json',
  replay: 'replay.schema.json',
  // docs/events.md gives these no payload fields and this service does not emit them: any object.
  ssh_certificate_authority: 'unspecified.schema.json',
  ssh_host_certificate: 'unspecified.schema.json',
  ssh_public_key: 'unspecified.schema.json',
  ssh_user_certificate: 'unspecified.schema.json',
  tcp_address: 'tcp_address.schema.json',
  tls_certificate: 'unspecified.schema.json',
  tunnel_credential: 'unspecified.schema.json',
};

export interface AuditEvent {
  readonly event_id: string;
  readonly event_type: string;
  /** RFC 3339, as the producer wrote it. */
  readonly event_timestamp: string;
  readonly principal: { readonly [key: string]: JsonValue } | null;
  /** The resource as the API that changed it returns it. */
  readonly object: { readonly [key: string]: JsonValue };
}

export type AuditDecodeResult = { readonly ok: true; readonly event: AuditEvent } | DecodeFailure;

export interface AuditDecoder {
  /** Never throws. */
  decode(msg: RawMessage): AuditDecodeResult;
}

/** The kind whose payload an audit event type carries: "ip_policy_rule_created.v0" -> "ip_policy_rule". */
export function auditKindOf(eventType: string): AuditKind | 'agent_session' | 'event_destination_health' | undefined {
  if ((AGENT_SESSION_EVENT_TYPES as readonly string[]).includes(eventType)) return 'agent_session';
  if (eventType === DESTINATION_HEALTH_EVENT_TYPE) return 'event_destination_health';
  for (const action of AUDIT_ACTIONS) {
    const suffix = `_${action}.v0`;
    if (eventType.endsWith(suffix)) {
      const kind = eventType.slice(0, -suffix.length);
      return (AUDIT_KINDS as readonly string[]).includes(kind) ? (kind as AuditKind) : undefined;
    }
  }
  return undefined;
}

function describe(errors: ErrorObject[] | null | undefined, root: string): string {
  const e = errors?.[0];
  if (e === undefined) return `${root} is not valid.`;
  const where = `${root}${e.instancePath.replaceAll('/', '.')}`;
  const extra = e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: unknown }).additionalProperty)})` : '';
  return `${where} ${e.message ?? 'is not valid'}${extra}.`;
}

export interface AuditDecoderOptions {
  readonly maxRecordBytes?: number;
}

export function createAuditDecoder(opts: AuditDecoderOptions = {}): AuditDecoder {
  const maxBytes = opts.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const ajv = new Ajv({ allErrors: false, strict: true });
  addFormats(ajv);
  const compiled = new Map<string, ValidateFunction>();
  const compile = (file: string): ValidateFunction => {
    let v = compiled.get(file);
    if (v === undefined) {
      v = ajv.compile(readSchemaFile(`audit/${file}`) as object);
      compiled.set(file, v);
    }
    return v;
  };
  const envelope = compile('envelope.schema.json');
  const payloads = new Map(Object.entries(AUDIT_PAYLOAD_SCHEMAS).map(([kind, file]) => [kind, compile(file)]));

  return {
    decode(msg) {
      const buf = msg.value;
      if (buf === null || buf.length === 0) return decodeFailure('empty_record', 'The audit event has no value.');
      if (buf.length > maxBytes) return decodeFailure('record_too_large', `The audit event has ${buf.length} bytes; the limit is ${maxBytes}.`);
      let media: string | undefined;
      try {
        media = contentTypeOf(msg);
      } catch (err) {
        // content-type headers naming different media types (wire-form.ts).
        if (err instanceof DecodeError) return decodeFailure(err.code, err.message);
        throw err;
      }
      if (media !== undefined && media !== 'application/json') {
        return decodeFailure('unsupported_content_type', `Audit events are JSON; the content type ${JSON.stringify(media)} is not.`);
      }
      if (!isUtf8(buf)) return decodeFailure('invalid_utf8', 'The audit event is not valid UTF-8.');
      let parsed: unknown;
      try {
        parsed = JSON.parse(buf.toString('utf8'));
      } catch (err) {
        return decodeFailure('invalid_json', `The audit event is not JSON: ${err instanceof Error ? err.message : String(err)}.`);
      }
      if (!envelope(parsed)) return decodeFailure('schema_violation', describe(envelope.errors, 'The envelope'));
      const event = parsed as AuditEvent;
      const kind = isAuditEventType(event.event_type) ? auditKindOf(event.event_type) : undefined;
      const payload = kind === undefined ? undefined : payloads.get(kind);
      if (payload === undefined) return decodeFailure('unknown_event_type', `${event.event_type} is not an audit event type.`);
      if (!payload(event.object)) return decodeFailure('schema_violation', describe(payload.errors, 'object'));
      return { ok: true, event };
    },
  };
}

let shared: AuditDecoder | undefined;

/** decode() of a decoder with the default options, compiled on first use. */
export function decodeAuditEvent(msg: RawMessage): AuditDecodeResult {
  shared ??= createAuditDecoder();
  return shared.decode(msg);
}
