// The event catalogue: every traffic field with its type, the filterable fields, and every audit event type.
// docs/events.md is the same catalogue for readers; a test keeps the two alike.

export type FieldType =
  | 'string'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'timestamp'
  | 'headers' // Map<string, List<string>>
  | 'logs'; // List<Map<string, any>>

export interface FieldSpec {
  /** Dotted path, as docs/events.md names it, e.g. "http.request.url.host". */
  readonly name: string;
  readonly type: FieldType;
  /** True when the field is in FILTERABLE: only these may appear in a CEL filter. */
  readonly filterable: boolean;
  readonly description: string;
}

/** How a filterable field takes part in filtering, indexing and the cheap decode of a record. */
export interface Filterable {
  /**
   * How the subscription matcher indexes a filter's test on the field (src/cel/matcher-analysis.ts):
   * 'hash' for `==` and `in` with literals; 'ip' also for CIDR ranges (containsIP, inCidrRange).
   */
  readonly index: 'hash' | 'ip';
  /** How well an equality on the field narrows the subscriptions, to pick the conjunct to index: higher is better. */
  readonly selectivity: number;
  /** Bounds of an integer field's value, and what a value within them is, checked before any filter sees a record. */
  readonly range?: { readonly min: number; readonly max: number; readonly what: string };
  /** A string field's value may not be empty. */
  readonly nonEmpty?: boolean;
  /**
   * The most characters a string field's value may hold. A filter's cost is bounded with it
   * (src/cel/compiler/work.ts), so a record with a longer value is refused before any filter sees it.
   */
  readonly maxLength?: number;
  /**
   * A string field whose values repeat from record to record (a server's name or address, not a
   * client's): the cheap read keeps its recent strings instead of making each anew (src/records/string-cache.ts).
   */
  readonly repeats?: boolean;
  /** A value of the field for examples in docs and messages. */
  readonly example: string | number;
}

/**
 * The filterable fields of the traffic event types, by dotted name, in the order the matcher consults its
 * indexes. The CEL environment, the matcher, the cheap decode of records, the API's checks and the docs
 * all read this; adding a filterable field is adding it here (ARCHITECTURE.md "Add a filterable field").
 * Each must be a field of the catalogue below, and of the records' Avro schemas (schemas/).
 */
export const FILTERABLE: Readonly<Record<string, Filterable>> = {
  // A DNS name is at most 253 characters (RFC 1035, 2.3.4, without the final dot).
  'conn.server_name': { index: 'hash', selectivity: 100, repeats: true, maxLength: 253, example: 'api.example.com' },
  // The longest IPv6 text is 45 characters (ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255).
  'conn.server_ip': { index: 'ip', selectivity: 90, repeats: true, maxLength: 45, example: '198.51.100.1' },
  // Never empty: it is also what tells a plain Avro record from a Confluent frame (src/records/wire-form.ts).
  'conn.client_ip': { index: 'ip', selectivity: 90, nonEmpty: true, maxLength: 45, example: '203.0.113.7' },
  'conn.server_port': { index: 'hash', selectivity: 5, range: { min: 0, max: 65_535, what: 'a TCP port' }, example: 443 },
};

export const TRAFFIC_EVENT_TYPES = ['http_request_complete.v0', 'tcp_connection_closed.v0'] as const;
export type TrafficEventType = (typeof TRAFFIC_EVENT_TYPES)[number];

const f = (name: string, type: FieldType, description: string): FieldSpec => ({ name, type, filterable: name in FILTERABLE, description });

/** The fields of http_request_complete.v0, in the order of docs/events.md. */
const HTTP_REQUEST_COMPLETE: readonly FieldSpec[] = [
  f('backend.connection_reused', 'bool', 'true if a TCP connection to the upstream service was reused to transmit the request.'),
  f('basic_auth.decision', 'string', 'allow, block, or invalid if the Basic Auth module did not run.'),
  f('basic_auth.username', 'string', 'Username in the HTTP basic auth credentials.'),
  f('circuit_breaker.decision', 'string', 'allow, block, allow_while_open, or invalid if the module did not run.'),
  f('compression.algorithm', 'string', 'Algorithm used to encode responses: gzip, deflate or none.'),
  f('compression.bytes_saved', 'int64', 'Size of the raw response minus size of the response as compressed.'),
  f('conn.client_ip', 'string', 'Source IP of the TCP connection to the edge.'),
  f('conn.server_ip', 'string', 'IP address of the server that received the request.'),
  f('conn.server_name', 'string', 'Hostname associated with the connection.'),
  f('conn.server_port', 'int32', 'Port on which the connection came in.'),
  f('conn.start_ts', 'timestamp', 'When the TCP connection to the edge was established.'),
  f('http.request.body_length', 'int64', 'Request body size in bytes.'),
  f('http.request.headers', 'headers', 'Normalized headers from the client: keys capitalized, values lowercased.'),
  f('http.request.method', 'string', 'Request method, lowercased.'),
  f('http.request.url.host', 'string', 'Host component of the request URL.'),
  f('http.request.url.path', 'string', 'Path component.'),
  f('http.request.url.query', 'string', 'Query string component.'),
  f('http.request.url.raw', 'string', 'Full URL with scheme, host, path and query string.'),
  f('http.request.url.scheme', 'string', 'Scheme component.'),
  f('http.request.user_agent', 'string', 'Value of the User-Agent request header.'),
  f('http.response.body_length', 'int64', 'Response body size in bytes.'),
  f('http.response.headers', 'headers', 'Normalized response headers: keys capitalized, values lowercased.'),
  f('http.response.status_code', 'int32', 'Status code of the response returned by the edge.'),
  f('ip_policy.decision', 'string', 'allow, block, or invalid if the IP Policy module did not run.'),
  f('oauth.app_client_id', 'string', 'OAuth application client ID.'),
  f('oauth.decision', 'string', 'allow, block, or invalid (module did not run).'),
  f('oauth.user.id', 'string', "Authenticated user's ID returned by the OAuth provider."),
  f('oauth.user.name', 'string', "Authenticated user's name returned by the OAuth provider."),
  f('tls.cipher_suite', 'string', 'Cipher suite selected in the TLS handshake.'),
  f('tls.client_cert.serial_number', 'string', "Serial number of the client's leaf certificate in the mutual TLS handshake."),
  f('tls.client_cert.subject.cn', 'string', "Subject common name of the client's leaf certificate in the mutual TLS handshake."),
  f('tls.version', 'string', 'TLS protocol version used between the client and the edge.'),
  f('traffic_policy.logs', 'logs', 'Logs generated by configured Traffic Policy Log actions.'),
  f('webhook_verification.decision', 'string', 'allow, block, or invalid (module did not run).'),
];

/** The fields of tcp_connection_closed.v0, in the order of docs/events.md. */
const TCP_CONNECTION_CLOSED: readonly FieldSpec[] = [
  f('conn.bytes_in', 'int64', 'Bytes arriving at the endpoint from the frontend.'),
  f('conn.bytes_out', 'int64', 'Bytes leaving the endpoint to the frontend.'),
  f('conn.client_ip', 'string', 'Source IP of the connection to the edge.'),
  f('conn.end_ts', 'timestamp', 'When the connection was closed.'),
  f('conn.server_ip', 'string', 'IP address of the server that received the request.'),
  f('conn.server_name', 'string', 'Hostname associated with the connection.'),
  f('conn.server_port', 'int32', 'Port on which the connection came in.'),
  f('conn.start_ts', 'timestamp', 'When the connection was established.'),
  f('ip_policy.decision', 'string', 'allow, block, or invalid if the module did not run or the connection was for an HTTP endpoint.'),
  f('traffic_policy.logs', 'logs', 'Logs generated by configured Traffic Policy Log actions.'),
];

export const TRAFFIC_FIELDS: Readonly<Record<TrafficEventType, readonly FieldSpec[]>> = {
  'http_request_complete.v0': HTTP_REQUEST_COMPLETE,
  'tcp_connection_closed.v0': TCP_CONNECTION_CLOSED,
};

const fieldMaps = new Map<TrafficEventType, ReadonlyMap<string, FieldSpec>>(
  TRAFFIC_EVENT_TYPES.map((t) => [t, new Map(TRAFFIC_FIELDS[t].map((s) => [s.name, s]))]),
);

/** The field of a traffic event type by its dotted name, or undefined. */
export function fieldOf(eventType: TrafficEventType, name: string): FieldSpec | undefined {
  return fieldMaps.get(eventType)?.get(name);
}

/** The filterable fields of an event type, in the catalogue's order, with their types and how they filter. */
export function filterableFieldsOf(eventType: TrafficEventType): readonly (FieldSpec & { readonly filter: Filterable })[] {
  return TRAFFIC_FIELDS[eventType].flatMap((spec) => {
    const filter = FILTERABLE[spec.name];
    return filter === undefined ? [] : [{ ...spec, filter }];
  });
}

/** A filterable field's type and how it filters, by its dotted name; undefined for a field that is not filterable. */
export function filterableField(name: string): { readonly type: FieldType; readonly filter: Filterable } | undefined {
  const filter = FILTERABLE[name];
  const spec = filter === undefined ? undefined : TRAFFIC_EVENT_TYPES.map((t) => fieldOf(t, name)).find((f) => f !== undefined);
  return filter === undefined || spec === undefined ? undefined : { type: spec.type, filter };
}

/** The fields that examples in docs and messages show: a filter on the first, an envelope key from the second. */
export const EXAMPLE_FIELDS = { filter: 'conn.server_port', key: 'conn.client_ip' } as const;

/** An example filter over `variable` (the event), e.g. for a usage text: the example field equal to its example value. */
export function exampleFilter(variable: string): string {
  return `${variable}.${EXAMPLE_FIELDS.filter} == ${JSON.stringify(FILTERABLE[EXAMPLE_FIELDS.filter]?.example)}`;
}

/**
 * Which account a traffic record belongs to (SECURITY.md "Traffic ownership"): 'domain', the account that
 * reserved its conn.server_name (an exact reserved domain, else the longest wildcard covering it);
 * 'hostport', the account whose TCP edge lists conn.server_name:conn.server_port among its hostports.
 */
export const TRAFFIC_OWNERSHIP: Readonly<Record<TrafficEventType, 'domain' | 'hostport'>> = {
  'http_request_complete.v0': 'domain',
  'tcp_connection_closed.v0': 'hostport',
};

export function isTrafficEventType(t: string): t is TrafficEventType {
  return (TRAFFIC_EVENT_TYPES as readonly string[]).includes(t);
}

/** Each kind exists as <kind>_created.v0, <kind>_updated.v0 and <kind>_deleted.v0. */
export const AUDIT_KINDS = [
  'api_key',
  'certificate_authority',
  'domain',
  'event_destination',
  'event_subscription',
  'ip_policy',
  'ip_policy_rule',
  'ip_restriction',
  'replay',
  'ssh_certificate_authority',
  'ssh_host_certificate',
  'ssh_public_key',
  'ssh_user_certificate',
  'tcp_address',
  'tls_certificate',
  'tunnel_credential',
] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

export const AUDIT_ACTIONS = ['created', 'updated', 'deleted'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AGENT_SESSION_EVENT_TYPES = ['agent_session_start.v0', 'agent_session_stop.v0'] as const;

/**
 * A change of a destination's state over all workers (docs/events.md "Health events"): emitted by this
 * service on the audit topic (src/delivery/health/), subscribed to and routed as the audit types are.
 */
export const DESTINATION_HEALTH_EVENT_TYPE = 'event_destination_health.v0';

/** The event types of the audit topic: the audit kinds' changes, agent sessions and destination health. */
export const AUDIT_EVENT_TYPES: readonly string[] = [
  ...AUDIT_KINDS.flatMap((k) => AUDIT_ACTIONS.map((a) => `${k}_${a}.v0`)),
  ...AGENT_SESSION_EVENT_TYPES,
  DESTINATION_HEALTH_EVENT_TYPE,
];

const auditSet = new Set(AUDIT_EVENT_TYPES);
export function isAuditEventType(t: string): boolean {
  return auditSet.has(t);
}

/** Every event type a subscription source may name (docs/events.md). */
export const EVENT_TYPES: readonly string[] = [...TRAFFIC_EVENT_TYPES, ...AUDIT_EVENT_TYPES];
