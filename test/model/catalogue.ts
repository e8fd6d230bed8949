// The event catalogue as the model reads it from docs/events.md and docs/record-formats.md, written out
// here rather than imported, so the model holds the service to the documents, not to its own code.

export const HTTP = 'http_request_complete.v0';
export const TCP = 'tcp_connection_closed.v0';
export type TrafficType = typeof HTTP | typeof TCP;
export const TRAFFIC_TYPES: readonly TrafficType[] = [HTTP, TCP];

export type FieldType = 'string' | 'bool' | 'int32' | 'int64' | 'timestamp' | 'headers' | 'logs';

export interface Field {
  readonly name: string;
  readonly type: FieldType;
  /** docs/record-formats.md "Required and optional fields". */
  readonly required: boolean;
}

const f = (name: string, type: FieldType, required = false): Field => ({ name, type, required });

/** docs/events.md "Fields of http_request_complete.v0". */
const HTTP_FIELDS: readonly Field[] = [
  f('backend.connection_reused', 'bool'),
  f('basic_auth.decision', 'string'),
  f('basic_auth.username', 'string'),
  f('circuit_breaker.decision', 'string'),
  f('compression.algorithm', 'string'),
  f('compression.bytes_saved', 'int64'),
  f('conn.client_ip', 'string', true),
  f('conn.server_ip', 'string', true),
  f('conn.server_name', 'string', true),
  f('conn.server_port', 'int32', true),
  f('conn.start_ts', 'timestamp', true),
  f('http.request.body_length', 'int64'),
  f('http.request.headers', 'headers'),
  f('http.request.method', 'string', true),
  f('http.request.url.host', 'string', true),
  f('http.request.url.path', 'string', true),
  f('http.request.url.query', 'string'),
  f('http.request.url.raw', 'string', true),
  f('http.request.url.scheme', 'string', true),
  f('http.request.user_agent', 'string'),
  f('http.response.body_length', 'int64'),
  f('http.response.headers', 'headers'),
  f('http.response.status_code', 'int32', true),
  f('ip_policy.decision', 'string'),
  f('oauth.app_client_id', 'string'),
  f('oauth.decision', 'string'),
  f('oauth.user.id', 'string'),
  f('oauth.user.name', 'string'),
  f('tls.cipher_suite', 'string'),
  f('tls.client_cert.serial_number', 'string'),
  f('tls.client_cert.subject.cn', 'string'),
  f('tls.version', 'string'),
  f('traffic_policy.logs', 'logs'),
  f('webhook_verification.decision', 'string'),
];

/** docs/events.md "Fields of tcp_connection_closed.v0". */
const TCP_FIELDS: readonly Field[] = [
  f('conn.bytes_in', 'int64', true),
  f('conn.bytes_out', 'int64', true),
  f('conn.client_ip', 'string', true),
  f('conn.end_ts', 'timestamp', true),
  f('conn.server_ip', 'string', true),
  f('conn.server_name', 'string', true),
  f('conn.server_port', 'int32', true),
  f('conn.start_ts', 'timestamp', true),
  f('ip_policy.decision', 'string'),
  f('traffic_policy.logs', 'logs'),
];

export const FIELDS: Readonly<Record<TrafficType, readonly Field[]>> = { [HTTP]: HTTP_FIELDS, [TCP]: TCP_FIELDS };

/**
 * The audit event types the model's subscriptions name and its admin changes emit (docs/events.md "Audit
 * events", the kinds with "yes" under "Emitted here").
 */
export const AUDIT_TYPES = [
  'ip_policy_created.v0',
  'ip_policy_updated.v0',
  'ip_policy_deleted.v0',
  'event_subscription_updated.v0',
  'event_destination_updated.v0',
  'api_key_created.v0',
] as const;
export type AuditType = (typeof AUDIT_TYPES)[number];

/** docs/subscription-controls.md "Timestamp format". */
export const TIMESTAMP_FORMATS = ['rfc3339', 'unix', 'unixmilli', 'unixnano'] as const;
export type TimestampFormat = (typeof TIMESTAMP_FORMATS)[number];
