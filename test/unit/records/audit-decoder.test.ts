import { describe, expect, it } from 'vitest';
import { AUDIT_EVENT_TYPES } from '../../../src/events/catalog.js';
import { auditKindOf, createAuditDecoder, decodeAuditEvent } from '../../../src/records/audit-decoder.js';
import type { RawMessage } from '../../../src/records/record-types.js';

const BASE = 'https://api.example.com';
const ref = (id: string, path: string) => ({ id, uri: `${BASE}/${path}/${id}` });
const CREATED = '2024-05-01T12:00:00Z';

// One valid payload per kind, with the fields docs/events.md (or this service, for the ip_* kinds) gives it.
const PAYLOADS: Record<string, Record<string, unknown>> = {
  agent_session: {
    session: ref('ts_1', 'tunnel_sessions'),
    credential: ref('cr_1', 'credentials'),
    agent_ip: '203.0.113.7',
    ingress_server_ip: '198.51.100.3',
    region: 'eu',
    ingress_hostname: 'connect.example.com',
    user_agent: 'agent/3.5.0',
    metadata: '',
    os: 'linux',
    arch: 'amd64',
    transport: 'ssh',
    started_at: CREATED,
    expires_at: null,
    stopped_at: null,
    deprecated: { upcoming_minimum_version: '3.0.0', upcoming_enforcement_date: '2025-01-01', message: 'upgrade' },
    error: '',
  },
  event_destination_health: {
    account_id: 'acct_1',
    destination: ref('ed_1', 'event_destinations'),
    state_before: 'ok',
    state: 'failing',
    reason: 'The receiver answered 500.',
    error_code: 'DESTINATION_ERROR',
    parked_events: 0,
    last_delivered_at: CREATED,
    stalled_since: null,
    changed_at: CREATED,
    transitions: 1,
  },
  api_key: { ...ref('ak_1', 'api_keys'), description: 'ci', metadata: '{"team":"edge"}', created_at: CREATED, token: null },
  certificate_authority: {
    ...ref('ca_1', 'certificate_authorities'),
    created_at: CREATED,
    description: null,
    metadata: null,
    ca_pem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    subject_common_name: 'Example CA',
    not_before: '2024-01-01T00:00:00Z',
    not_after: '2034-01-01T00:00:00Z',
    key_usages: ['digital_signature', 'cert_sign'],
    extended_key_usages: ['client_auth'],
  },
  domain: {
    ...ref('rd_1', 'reserved_domains'),
    created_at: CREATED,
    description: 'shop',
    metadata: '',
    domain: 'shop.example.com',
    region: null,
    cname_target: '3xk.cname.example.net',
    certificate: ref('cert_1', 'tls_certificates'),
    certificate_management_policy: { authority: 'letsencrypt', private_key_type: 'ecdsa' },
    certificate_management_status: {
      renews_at: '2024-07-01T00:00:00Z',
      provisioning_job: { error_code: 'DNS_ERROR', msg: 'CNAME missing', started_at: CREATED, retries_at: '2024-05-01T13:00:00Z' },
    },
    acme_challenge_cname_target: null,
  },
  event_destination: {
    ...ref('ed_1', 'event_destinations'),
    metadata: '',
    created_at: CREATED,
    description: 'to the lake',
    format: 'JSON',
    target: { delivery_stream: { auth: { role: { role_arn: 'arn:aws:iam::123456789012:role/edge' } }, delivery_stream_arn: 'arn:aws:firehose:eu-west-1:123456789012:deliverystream/edge' } },
  },
  event_subscription: {
    ...ref('esb_1', 'event_subscriptions'),
    created_at: CREATED,
    metadata: '',
    description: 'edge traffic',
    sources: [{ type: 'http_request_complete.v0', uri: `${BASE}/event_subscriptions/esb_1/sources/http_request_complete.v0` }],
    destinations: [ref('ed_1', 'event_destinations')],
  },
  ip_policy: { ...ref('ipp_1', 'ip_policies'), created_at: CREATED, description: 'office', metadata: '' },
  ip_policy_rule: {
    ...ref('ipr_1', 'ip_policy_rules'),
    created_at: CREATED,
    description: 'office v4',
    metadata: '',
    cidr: '192.0.2.0/24',
    action: 'allow',
    ip_policy: ref('ipp_1', 'ip_policies'),
  },
  ip_restriction: { enabled: true, ip_policies: [ref('ipp_1', 'ip_policies')], edge: ref('edgtcp_1', 'edges/tcp') },
  replay: { ...ref('rpl_1', 'event_subscriptions/esb_1/replays'), created_at: CREATED, description: '', metadata: '', state: 'queued', from: CREATED, to: CREATED, finished_at: null },
  tcp_address: { ...ref('ra_1', 'reserved_addrs'), created_at: CREATED, description: 'postgres', metadata: '', addr: '1.tcp.example.com:20000' },
};

function message(eventType: string, object: unknown, extra: Record<string, unknown> = {}): RawMessage {
  const envelope = { event_id: 'ev_01HXYZ', event_type: eventType, event_timestamp: CREATED, principal: { type: 'api_key', ...ref('ak_1', 'api_keys') }, object, ...extra };
  return { value: Buffer.from(JSON.stringify(envelope)) };
}

function codeOf(msg: RawMessage): string {
  const r = decodeAuditEvent(msg);
  return r.ok ? 'ok' : r.code;
}

describe('audit event decoding', () => {
  it.each(AUDIT_EVENT_TYPES)('should accept a valid %s event and hand back its envelope', (eventType) => {
    const kind = auditKindOf(eventType) ?? 'none';
    const object = PAYLOADS[kind] ?? { id: 'x_1', anything: ['goes'] };
    const result = decodeAuditEvent(message(eventType, object));
    if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
    expect(result.event.object).toEqual(object);
    expect(result.event.event_type).toBe(eventType);
  });

  it('should find the kind of every audit event type', () => {
    expect(auditKindOf('ip_policy_rule_deleted.v0')).toBe('ip_policy_rule');
    expect(auditKindOf('agent_session_stop.v0')).toBe('agent_session');
    expect(auditKindOf('event_destination_health.v0')).toBe('event_destination_health');
    expect(auditKindOf('ssh_public_key_updated.v0')).toBe('ssh_public_key');
    expect(auditKindOf('http_request_complete.v0')).toBeUndefined();
    for (const t of AUDIT_EVENT_TYPES) expect(auditKindOf(t), t).toBeDefined();
  });

  it.each([
    ['agent_session_start.v0', (o: Record<string, unknown>) => delete o.session],
    ['agent_session_stop.v0', (o: Record<string, unknown>) => (o.error = 42)],
    ['api_key_created.v0', (o: Record<string, unknown>) => (o.created_at = 'yesterday')],
    ['api_key_updated.v0', (o: Record<string, unknown>) => (o.description = 'x'.repeat(256))],
    ['certificate_authority_created.v0', (o: Record<string, unknown>) => (o.key_usages = 'digital_signature')],
    ['domain_updated.v0', (o: Record<string, unknown>) => (o.region = 'mars')],
    ['domain_created.v0', (o: Record<string, unknown>) => ((o.certificate_management_status as { provisioning_job: Record<string, unknown> }).provisioning_job.error_code = 'OOPS')],
    ['event_destination_created.v0', (o: Record<string, unknown>) => (o.format = 'XML')],
    ['event_destination_updated.v0', (o: Record<string, unknown>) => (o.metadata = 'x'.repeat(4097))],
    ['event_subscription_created.v0', (o: Record<string, unknown>) => (o.destinations = [{ id: 'ed_1' }])],
    ['ip_policy_created.v0', (o: Record<string, unknown>) => delete o.id],
    ['ip_policy_deleted.v0', (o: Record<string, unknown>) => (o.uri = 'not a uri')],
    ['ip_policy_rule_created.v0', (o: Record<string, unknown>) => (o.action = 'maybe')],
    ['ip_policy_rule_updated.v0', (o: Record<string, unknown>) => delete o.ip_policy],
    ['ip_restriction_updated.v0', (o: Record<string, unknown>) => (o.enabled = 'yes')],
    ['ip_restriction_created.v0', (o: Record<string, unknown>) => (o.ip_policies = { id: 'ipp_1' })],
    ['event_destination_health.v0', (o: Record<string, unknown>) => (o.state = 'unknown')],
    ['event_destination_health.v0', (o: Record<string, unknown>) => delete o.account_id],
    ['event_destination_health.v0', (o: Record<string, unknown>) => (o.transitions = 0)],
  ])('should refuse a %s payload that breaks its schema', (eventType, edit) => {
    const kind = auditKindOf(eventType) as string;
    const object = structuredClone(PAYLOADS[kind]) as Record<string, unknown>;
    edit(object);
    const result = decodeAuditEvent(message(eventType, object));
    expect(result.ok ? 'ok' : result.code).toBe('schema_violation');
    expect(result.ok ? '' : result.message).toMatch(/^object/);
  });

  it('should accept fields a payload schema does not list, since resources grow fields', () => {
    expect(codeOf(message('ip_policy_created.v0', { ...PAYLOADS.ip_policy, rules: [] }))).toBe('ok');
  });

  it('should refuse a payload that is not an object even for kinds without a payload schema', () => {
    expect(codeOf(message('tls_certificate_created.v0', ['x']))).toBe('schema_violation');
  });

  it('should refuse envelopes with a missing, unknown or mistyped field', () => {
    const good = message('ip_policy_created.v0', PAYLOADS.ip_policy);
    const envelope = JSON.parse((good.value as Buffer).toString()) as Record<string, unknown>;
    const variants: Record<string, unknown>[] = [
      { ...envelope, event_id: undefined },
      { ...envelope, account: 'acct_1' },
      { ...envelope, event_timestamp: '1 May 2024' },
      { ...envelope, principal: 'ak_1' },
      { ...envelope, object: null },
    ];
    for (const v of variants) expect(codeOf({ value: Buffer.from(JSON.stringify(v)) }), JSON.stringify(v)).toBe('schema_violation');
    expect(codeOf({ value: Buffer.from(JSON.stringify({ ...envelope, principal: null })) })).toBe('ok');
  });

  it('should refuse an event type that is not an audit type, traffic types included', () => {
    expect(codeOf(message('ip_policy_exploded.v0', PAYLOADS.ip_policy))).toBe('unknown_event_type');
    expect(codeOf(message('http_request_complete.v0', {}))).toBe('unknown_event_type');
  });

  it('should refuse bodies that are empty, too large, not UTF-8, not JSON or declared as another content type', () => {
    const good = message('ip_policy_created.v0', PAYLOADS.ip_policy);
    expect(codeOf({ value: null })).toBe('empty_record');
    const small = createAuditDecoder({ maxRecordBytes: 10 }).decode(good);
    expect(small.ok ? 'ok' : small.code).toBe('record_too_large');
    expect(codeOf({ value: Buffer.from([0x7b, 0xff, 0x7d]) })).toBe('invalid_utf8');
    expect(codeOf({ value: Buffer.from('{"event_id":') })).toBe('invalid_json');
    expect(codeOf({ value: good.value, headers: { 'content-type': 'application/avro' } })).toBe('unsupported_content_type');
    // Headers naming two media types are refused as such, not thrown.
    expect(codeOf({ value: good.value, headers: { 'content-type': [Buffer.from('application/json'), Buffer.from('text/plain')] } })).toBe('unsupported_content_type');
    expect(codeOf({ value: good.value, headers: { 'content-type': 'application/json' } })).toBe('ok');
  });
});
