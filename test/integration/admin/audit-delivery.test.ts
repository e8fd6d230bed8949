// Audit events end to end: the real service process (API and worker roles) on the real broker; every kind
// of change the API makes arrives at a subscribed file destination through the pipeline, with the object
// as the API returned it, the principal that made it, and no secret anywhere on the way.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBrokers, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { request, type CallResult } from './admin-harness.js';
import { fileDestinationLines } from '../../support/file-destination.js';

/** Response bodies and delivered objects are read as loosely typed JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const BASE = 'https://api.audit.test';
const BOOTSTRAP = `eek_audit${Date.now().toString(36)}bootstrap0token`;
const HTTP_SECRET = 'audit-test-http-secret-6c1f0e93';
const CLOUD_SECRET = 'audit/test/cloud/secret/key/4b7d2a9e01';
const KINDS = ['api_key', 'ip_policy', 'ip_policy_rule', 'ip_restriction', 'event_destination', 'event_subscription'] as const;
const ACTIONS = ['created', 'updated', 'deleted'] as const;

interface Delivered {
  event_id: string;
  event_type: string;
  event_timestamp: string;
  principal: { type: string; id: string; uri: string } | null;
  object: Record<string, Json>;
}

const prefix = uniqueName('audit');
const fileRoot = mkdtempSync(join(tmpdir(), 'edge-events-audit-'));
let service: ServiceProcess;

beforeAll(async () => {
  service = await startService(
    serviceEnv(prefix, testBrokers(), { ROLES: 'api,worker', FILE_DESTINATION_ROOT: fileRoot, PUBLIC_BASE_URL: BASE, API_BOOTSTRAP_TOKEN: BOOTSTRAP }),
  );
});

afterAll(async () => {
  await service?.stop('SIGKILL');
  rmSync(fileRoot, { recursive: true, force: true });
});

/** Every envelope in the destination's file (and any rotated siblings). */
function delivered(): Delivered[] {
  return fileDestinationLines<Delivered>(join(fileRoot, 'audit'), 'all.ndjson');
}

function fileText(): string {
  const dir = join(fileRoot, 'audit');
  return readdirSync(dir).map((n) => readFileSync(join(dir, n), 'utf8')).join('\n');
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function call(token: string, method: string, path: string, body?: unknown, expected?: number): Promise<Json> {
  const r: CallResult = await request(service.url, method, path, { token, body });
  if (expected !== undefined) expect(r.status, `${method} ${path}: ${r.text}`).toBe(expected);
  return r.json;
}

describe('audit events through the pipeline', () => {
  it('should deliver an audit event for each kind of change, with the object the API returned and its principal', async () => {
    const all = KINDS.flatMap((k) => ACTIONS.map((a) => `${k}_${a}.v0`));
    const dest = await call(BOOTSTRAP, 'POST', '/event_destinations', { target: { file: { path: 'audit/all.ndjson' } } }, 201);
    const sub = await call(BOOTSTRAP, 'POST', '/event_subscriptions', { description: 'every change', sources: all.map((type) => ({ type })), destination_ids: [dest.id] }, 201);

    // The worker applies the subscription and joins its group asynchronously: change the subscription
    // until one of those changes arrives, then everything after it is routed.
    let probes = 0;
    await waitFor('the first probe event', () => {
      if (delivered().some((e) => e.event_type === 'event_subscription_updated.v0' && e.object.id === sub.id)) return true;
      if (probes++ % 10 === 0) void call(BOOTSTRAP, 'PATCH', `/event_subscriptions/${sub.id}`, { description: `probe ${probes}` });
      return false;
    }, 90_000);

    // Every change below is made with a key of its own, so each event must name it as the principal.
    const key = await call(BOOTSTRAP, 'POST', '/api_keys', { description: 'auditor' }, 201);
    const t = key.token as string;
    const expected: Array<{ type: string; match: (o: Record<string, Json>) => boolean; object: Record<string, unknown> }> = [];
    const expect3 = (kind: string, action: string, object: Record<string, Json>, idOf: (o: Record<string, Json>) => unknown = (o) => o.id): void => {
      expected.push({ type: `${kind}_${action}.v0`, match: (o) => idOf(o) === idOf(object), object });
    };

    const k2 = await call(t, 'POST', '/api_keys', { description: 'short-lived' }, 201);
    expect3('api_key', 'created', { ...k2, token: null });
    const k2u = await call(t, 'PATCH', `/api_keys/${k2.id}`, { metadata: 'm' }, 200);
    expect3('api_key', 'updated', k2u);
    await call(t, 'DELETE', `/api_keys/${k2.id}`, undefined, 204);
    expect3('api_key', 'deleted', k2u);

    const policy = await call(t, 'POST', '/ip_policies', { description: 'office' }, 201);
    expect3('ip_policy', 'created', policy);
    const rule = await call(t, 'POST', '/ip_policy_rules', { cidr: '192.0.2.0/24', action: 'allow', ip_policy_id: policy.id }, 201);
    expect3('ip_policy_rule', 'created', rule);
    const ruleU = await call(t, 'PATCH', `/ip_policy_rules/${rule.id}`, { description: 'lab' }, 200);
    expect3('ip_policy_rule', 'updated', ruleU);
    await call(t, 'DELETE', `/ip_policy_rules/${rule.id}`, undefined, 204);
    expect3('ip_policy_rule', 'deleted', ruleU);

    const edge = await call(t, 'POST', '/edges/tcp', { hostports: ['7.tcp.audit.test:20007'] }, 201);
    const edgeRef = { id: edge.id, uri: `${BASE}/edges/tcp/${edge.id}` };
    const byEdge = (o: Record<string, Json>): unknown => o.edge?.id;
    const m1 = await call(t, 'PUT', `/edges/tcp/${edge.id}/ip_restriction`, { ip_policy_ids: [policy.id] }, 200);
    expect3('ip_restriction', 'created', { ...m1, edge: edgeRef, account_id: edge.account_id }, byEdge);
    const m2 = await call(t, 'PUT', `/edges/tcp/${edge.id}/ip_restriction`, { enabled: false, ip_policy_ids: [policy.id] }, 200);
    await call(t, 'DELETE', `/edges/tcp/${edge.id}/ip_restriction`, undefined, 204);
    // Created and updated share the edge id: told apart by type; the delete carries the last state.
    expect3('ip_restriction', 'updated', { ...m2, edge: edgeRef, account_id: edge.account_id }, byEdge);
    expect3('ip_restriction', 'deleted', { ...m2, edge: edgeRef, account_id: edge.account_id }, byEdge);
    const policyU = await call(t, 'PATCH', `/ip_policies/${policy.id}`, { metadata: 'x' }, 200);
    expect3('ip_policy', 'updated', policyU);
    await call(t, 'DELETE', `/ip_policies/${policy.id}`, undefined, 204);
    expect3('ip_policy', 'deleted', policyU);

    // A destination's status is the workers' report, not config: its audit events carry the rest of the answer.
    const config = ({ status: _status, ...rest }: Record<string, Json>): Record<string, Json> => rest;
    const d2 = await call(t, 'POST', '/event_destinations', { target: { http: { url: 'https://hooks.audit.test/in', secret: HTTP_SECRET } } }, 201);
    expect3('event_destination', 'created', config(d2));
    const d2u = await call(
      t,
      'PATCH',
      `/event_destinations/${d2.id}`,
      { target: { data_stream: { auth: { creds: { cloud_access_key_id: 'AKIAAUDITTESTKEY0001', cloud_secret_access_key: CLOUD_SECRET } }, stream_arn: 'arn:aws:kinesis:us-east-1:123456789012:stream/audit' } }, verify: false },
      200,
    );
    expect3('event_destination', 'updated', config(d2u));
    await call(t, 'DELETE', `/event_destinations/${d2.id}`, undefined, 204);
    expect3('event_destination', 'deleted', config(d2u));

    const s2 = await call(t, 'POST', '/event_subscriptions', { sources: [{ type: 'tcp_connection_closed.v0', fields: ['conn.client_ip'] }], destination_ids: [dest.id] }, 201);
    expect3('event_subscription', 'created', s2);
    await call(t, 'POST', `/event_subscriptions/${s2.id}/sources`, { type: 'domain_created.v0' }, 201);
    const s2u = await call(t, 'GET', `/event_subscriptions/${s2.id}`, undefined, 200);
    expect3('event_subscription', 'updated', s2u);
    await call(t, 'DELETE', `/event_subscriptions/${s2.id}`, undefined, 204);
    expect3('event_subscription', 'deleted', s2u);

    expect(new Set(expected.map((e) => e.type))).toEqual(new Set(all));
    const find = (e: (typeof expected)[number]): Delivered | undefined => delivered().find((d) => d.event_type === e.type && e.match(d.object));
    await waitFor('an audit event of every kind of change', () => expected.every((e) => find(e) !== undefined));

    for (const e of expected) {
      const got = find(e) as Delivered;
      expect(got.object, e.type).toEqual(e.object);
      expect(got.principal, e.type).toEqual({ type: 'api_key', id: key.id, uri: `${BASE}/api_keys/${key.id}` });
      expect(got.event_id, e.type).toMatch(/^ev_[0-9A-Z]{26}$/);
      expect(Date.parse(got.event_timestamp), e.type).toBeGreaterThan(Date.now() - 300_000);
    }
    // The key that made the changes was itself created by the bootstrap key.
    const keyEvent = delivered().find((d) => d.event_type === 'api_key_created.v0' && d.object.id === key.id);
    expect(keyEvent?.object).toEqual({ ...key, token: null });
    expect(keyEvent?.principal?.id).not.toBe(key.id);

    // No secret, and no token, is in what was delivered or in the service's logs.
    const text = fileText();
    const logs = service.logs.join('\n');
    for (const secret of [HTTP_SECRET, CLOUD_SECRET, t, k2.token as string, BOOTSTRAP]) {
      expect(text.includes(secret), 'a secret in the delivered events').toBe(false);
      expect(logs.includes(secret), 'a secret in the service logs').toBe(false);
    }
    expect(text).not.toContain('_enc');
  });
});
