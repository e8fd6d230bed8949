// The admin API's one error catalogue: every stable error code with its HTTP status and message template.
// docs/api-errors.md lists the same codes; a unit test keeps the two in step.

/** Values that fill a message template and travel in the body's `details`. */
export type ErrorDetails = Readonly<Record<string, unknown>>;

interface ErrorSpec {
  readonly status: number;
  /** `{name}` is replaced by details.name. */
  readonly template: string;
  /** True when the same request may succeed later unchanged. */
  readonly retryable: boolean;
}

const spec = (status: number, template: string, retryable = false): ErrorSpec => ({ status, template, retryable });

export const API_ERRORS = {
  // 400: the request is not valid; details.field names the offending field where there is one.
  bad_request: spec(400, 'The request is not valid: {reason}.'),
  invalid_json: spec(400, 'The request body is not valid JSON: {reason}.'),
  invalid_body: spec(400, 'The field {field} {reason}.'),
  unknown_field: spec(400, 'The field {field} is not known here; remove it.'),
  invalid_parameter: spec(400, 'The {location} parameter {field} {reason}.'),
  field_too_long: spec(400, 'The field {field} is {actual} {unit} long; the limit is {limit} {unit}.'),
  invalid_cidr: spec(400, 'The field {field} is not a CIDR range such as 10.0.0.0/8 or 2001:db8::/32: {value}.'),
  cidr_has_host_bits: spec(400, 'The field {field} has host bits set: {value}; did you mean {suggestion}?'),
  invalid_ip: spec(400, 'The parameter {field} is not an IPv4 or IPv6 address: {value}.'),
  invalid_hostport: spec(400, 'The field {field} is not a host:port with a port from 1 to 65535: {value}.'),
  invalid_id: spec(400, 'The field {field} is not a well-formed {kind} id: {value}.'),
  replay_range_invalid: spec(400, 'The replay range is empty: to ({to}) must be later than from ({from}).'),
  replay_range_in_future: spec(400, 'The replay range reaches into the future: {field} ({value}) is later than the time of the request ({now}).'),
  replay_destination_not_subscribed: spec(400, 'The field {field} names {id}, which is not a destination of the event subscription {subscription_id}; a replay delivers to the subscription\'s own destinations.'),
  replay_source_not_subscribed: spec(400, 'The field {field} names {type}, which is not a traffic source of the event subscription {subscription_id}; a replay narrows the subscription\'s own traffic sources.'),
  replay_no_traffic_sources: spec(400, 'The event subscription {subscription_id} has no traffic source to replay; a replay reads the raw traffic topics.'),
  invalid_domain: spec(400, 'The field {field} is not a domain name of two labels or more, with an optional leading "*." wildcard: {value}.'),
  public_suffix: spec(400, 'The domain {domain} would take the public suffix {public_suffix} whole, under which names belong to many owners; reserve a name below it.'),
  unknown_reference: spec(400, 'The field {field} names {kind} {id}, which does not exist.'),
  immutable_field: spec(400, 'The field {field} cannot be changed; delete the {resource} and create a new one.'),
  // 400 of event destinations and subscriptions (src/admin/event-destinations, src/admin/event-subscriptions).
  invalid_target_kind: spec(400, 'The field {field} must set exactly one of {kinds}; {reason}.'),
  invalid_target_auth: spec(400, 'The field {field} must set exactly one of role or creds; it sets {given}.'),
  invalid_arn: spec(400, 'The field {field} is not a valid {resource} ARN; expected the shape {example}.'),
  invalid_file_path: spec(400, 'The field {field} {reason}; a file path is relative to the file destination root.'),
  secret_required: spec(400, 'The field {field} is required {reason}.'),
  invalid_topic_name: spec(400, 'The field {field} is not a valid Kafka topic name: {reason}.'),
  internal_topic: spec(400, 'The field {field} names the topic {topic}, which destinations may not write to: {reason}.'),
  // 400 of what destinations may point at (src/delivery/egress-rules.ts, SECURITY.md "Egress").
  topic_prefix_required: spec(400, 'The field {field} names the topic {topic}; this account\'s kafka destinations write to topics beginning with "{prefix}".'),
  file_destinations_disabled: spec(400, 'The field {field} is refused: {reason}.'),
  insecure_url: spec(400, 'The field {field} is refused: {reason}.'),
  internal_address: spec(400, 'The field {field} is refused: {reason}.'),
  host_not_allowed: spec(400, 'The field {field} is refused: {reason}.'),
  unknown_event_type: spec(400, 'The field {field} names {type}, which is not an event type; details.allowed lists the event types.'),
  source_fields_required: spec(400, 'The field {field} must list at least one field of the traffic event type {type}, e.g. {example}.'),
  unknown_event_field: spec(400, 'The field {field} names {value}, which is not a field of {type}; details.allowed lists its fields.'),
  audit_source_field: spec(400, 'The field {field} is not allowed: {type} is an audit event type, which takes neither fields nor a filter.'),
  invalid_filter: spec(400, 'The field {field} is not a valid filter for {type}: line {line}, column {column}: {reason}'),
  filter_too_costly: spec(400, 'The field {field} is a filter that may do {cost} units of work on each record; the limit is {limit}. Search or join shorter strings, or loop over fewer elements.'),
  duplicate_value: spec(400, 'The field {field} repeats {value}; each entry must be unique.'),
  duplicate_source_type: spec(400, 'The field {field} repeats the source type {type} of sources[{first_index}]; source types are unique within a subscription.'),
  too_many_items: spec(400, 'The field {field} has {actual} entries; the limit is {limit}.'),
  // 400 of the delivery history (src/admin/history/).
  invalid_history_range: spec(400, 'The history range is not valid: {reason}.'),
  // 401: authentication (src/admin/README.md "Auth").
  unauthorized: spec(401, 'A valid API key token is required in the Authorization header as "Bearer <token>" ({reason}).'),
  // 403: an account's key may not do this (src/admin/README.md "Accounts"); another account's resource is a 404.
  forbidden: spec(403, 'Only the operator account may {action}.'),
  // 404: missing resources and routes (another account's resource is missing too).
  not_found: spec(404, 'There is no {resource} with id {id}.'),
  route_not_found: spec(404, 'There is no route {method} {path}.'),
  source_not_found: spec(404, 'The event subscription {subscription_id} has no source of type {type}.'),
  // 405: a known path with a method it does not take; the Allow header lists the ones it takes.
  method_not_allowed: spec(405, 'The route {path} does not take {method}; it takes {allowed}.'),
  // 409: the request conflicts with the current state.
  duplicate_cidr: spec(409, 'The IP policy {ip_policy_id} already has a rule for {cidr} ({rule_id}).'),
  hostport_in_use: spec(409, 'The hostport {hostport} is already used by {by}.'),
  hostport_not_reserved: spec(409, 'The hostport {hostport} is not this account\'s to list: {reason}.'),
  tcp_address_pool_exhausted: spec(409, 'Every address of the service\'s TCP address pool ({pool_size}) is reserved; release one (DELETE /reserved_addrs/{id}) or ask the operator to widen the pool.'),
  tcp_address_in_use: spec(409, 'The reserved TCP address {id} ({addr}) is still listed by TCP edge(s) {edges}; remove it from them first.'),
  hostport_name_reserved: spec(409, 'The hostport {hostport} names a host that another account has reserved and verified: only that account\'s TCP edges may list it.'),
  domain_reserved: spec(409, 'The domain {domain} overlaps {by}: a name belongs to one account, and a reservation may not cover another one\'s or be covered by it.'),
  ip_policy_in_use: spec(409, 'The IP policy {id} is still used by the IP restriction of TCP edge(s) {edges}; remove it from them first.'),
  source_exists: spec(409, 'The event subscription {subscription_id} already has a source of type {type}; change it with PATCH or delete it first.'),
  account_deleted: spec(409, 'The account {account_id} was deleted while this request was being served; nothing was written.'),
  filter_cost_limit: spec(409, 'The filters of the account {account_id} would cost {total} units of work per record with this change, across its subscriptions and open taps; the limit is {limit}. Remove or simplify a filter first.'),
  resource_limit: spec(409, 'The account {account_id} already holds {limit} {resource}, the most an account may hold on this service; delete one first.'),
  replay_limit: spec(409, 'The account {account_id} already has {limit} replays queued or running, the most it may have at once; wait for one to end or cancel one first.'),
  operator_account: spec(409, 'The operator account {id} cannot be deleted.'),
  account_partition_limit: spec(
    409,
    "The topic {topic} would add {partitions} partition(s) to the {used} of the {topics} topic(s) under this account's prefix on the service's cluster, past its limit of {limit}; " +
      'delete a topic it no longer needs first (DELETE /event_destinations/{id}?delete_topic=true, on a destination of that topic).',
  ),
  topic_in_use: spec(409, 'With delete_topic the delete would take {topic} along, which {by} also writes to; delete without delete_topic, or those destinations first.'),
  event_destination_in_use: spec(409, 'The event destination {id} is still used by event subscription(s) {subscriptions}; remove it from them first.'),
  // 422: the request is valid, but a check of the destination itself (src/delivery/destination-kind.ts verify) or of a domain's DNS record failed.
  topic_not_created: spec(422, 'The topic {topic} does not exist and could not be created: {error}: {reason}.'),
  domain_not_verified: spec(422, 'The reserved domain {domain} is still pending: {reason}. Publish its TXT record at {record_name}, then verify again.'),
  replay_before_retention: spec(422, 'The raw topics no longer hold every record from {from}: retention dropped older records, and the earliest time a replay can start is {earliest_available}.'),
  destination_check_failed: spec(422, 'The destination failed its check with its own settings: {error}: {reason} Fix it, or send "verify": false to store it anyway.'),
  // 429: per-account rate limiting (rate-limit.ts); Retry-After says when to come back.
  rate_limited: spec(429, "Too many requests with this account's API keys; retry after {retry_after} s.", true),
  // 408/413/415/431: transport limits.
  request_timeout: spec(408, 'The request did not arrive in time; send it again.'),
  headers_too_large: spec(431, 'The request headers are larger than the server accepts.'),
  payload_too_large: spec(413, 'The request body is larger than the limit of {limit} bytes.'),
  unsupported_media_type: spec(415, 'The request body must be application/json, not {content_type}.'),
  unsupported_encoding: spec(415, 'The request body must be UTF-8 JSON sent as it is: {reason}.'),
  // 5xx: the service's side.
  internal: spec(500, 'The request failed because of an internal error; it has been logged.'),
  unavailable: spec(503, 'The service cannot serve this request right now ({reason}); retry shortly.', true),
} as const satisfies Record<string, ErrorSpec>;

export type ApiErrorCode = keyof typeof API_ERRORS;

/** The error body (ARCHITECTURE.md "Errors"): {"error_code", "status_code", "msg", "details"}. */
export interface ApiErrorBody {
  readonly error_code: ApiErrorCode;
  readonly status_code: number;
  readonly msg: string;
  readonly details: ErrorDetails;
}

function render(template: string, details: ErrorDetails): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const v = details[name];
    if (v === undefined) return whole;
    return Array.isArray(v) ? v.join(', ') : String(v);
  });
}

/**
 * One problem of a request, in `details.problems` beside the first (which `error_code`, `msg` and the rest
 * of `details` describe, as ever): the field's path, its error code and its sentence, and for a filter
 * its line and column (docs/api-errors.md).
 */
export interface RequestProblem {
  readonly path: string;
  readonly code: ApiErrorCode;
  readonly message: string;
  readonly [more: string]: unknown;
}

/** At most this many problems are listed; a request with more is told the first ones. */
export const MAX_PROBLEMS = 50;

/** An error a route handler throws; the admin error handler turns it into the error body. */
export class ApiError extends Error {
  readonly status: number;
  readonly retryable: boolean;

  constructor(
    readonly code: ApiErrorCode,
    readonly details: ErrorDetails = {},
  ) {
    const s = API_ERRORS[code];
    super(render(s.template, details));
    this.name = 'ApiError';
    this.status = s.status;
    this.retryable = s.retryable;
  }

  /** This error as one entry of `details.problems`; a field-less error has the path "". */
  problem(): RequestProblem {
    return { path: typeof this.details.field === 'string' ? this.details.field : '', code: this.code, message: this.message };
  }

  /**
   * The first of `errors` (error_code, msg, details as ever), its `details.problems` listing every one of
   * them once (the first first), or the first's own list when it has one (a filter's).
   */
  static all(errors: readonly ApiError[]): ApiError {
    const first = errors[0];
    if (first === undefined) throw new Error('ApiError.all needs one error at least');
    const seen = new Set<string>();
    const problems: RequestProblem[] = [];
    for (const e of errors) {
      const listed = Array.isArray(e.details.problems) ? (e.details.problems as RequestProblem[]) : [e.problem()];
      for (const p of listed) {
        const key = `${p.path} ${p.code} ${p.message}`;
        if (seen.has(key) || problems.length >= MAX_PROBLEMS) continue;
        seen.add(key);
        problems.push(p);
      }
    }
    return new ApiError(first.code, { ...first.details, problems });
  }

  toBody(): ApiErrorBody {
    // A request's problem with a field is listed in details.problems, even alone, so a client reads one shape.
    const single = typeof this.details.field === 'string' && this.details.problems === undefined;
    return { error_code: this.code, status_code: this.status, msg: this.message, details: single ? { ...this.details, problems: [this.problem()] } : this.details };
  }
}

/** Every code with a given status, for documenting responses in OpenAPI. */
export function codesWithStatus(status: number): ApiErrorCode[] {
  return (Object.keys(API_ERRORS) as ApiErrorCode[]).filter((c) => API_ERRORS[c].status === status);
}
