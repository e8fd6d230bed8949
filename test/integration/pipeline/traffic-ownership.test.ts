// Traffic ownership end to end (SECURITY.md "Traffic ownership"): the real service process (API and worker)
// on the real broker, two accounts and the operator with the same catch-all subscriptions (filter true). A
// record goes to the account owning its server name (a reserved domain, exact or wildcard) or its TCP
// hostport (a TCP edge), and to the operator; a record of nobody's (a pending reservation's among them, and
// a hostport another account listed before the name's holder verified it) only to the operator, counted in a metric.
// An audit event goes to its account's subscriptions and the operator's.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TrafficEventType } from '../../../src/events/catalog.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import { seededRecord } from '../../../src/traffic/seeded-records.js';
import { produce, testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { request } from '../admin/admin-harness.js';

/** Delivered envelopes and API bodies, read loosely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const OPERATOR_TOKEN = `eek_owner${Date.now().toString(36)}operatorToken00000`;
const prefix = uniqueName('owner');
const fileRoot = mkdtempSync(join(tmpdir(), 'edge-events-owner-'));
let service: ServiceProcess;

async function call(token: string, method: string, path: string, body?: unknown): Promise<Json> {
  const r = await request(service.url, method, path, { token, body });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.json;
}

/** One record, told apart by its sequence number (the url path of an http record, bytes_in of a tcp one). */
interface Sent {
  readonly seq: number;
  readonly type: TrafficEventType;
  readonly serverName: string;
  readonly port: number;
  /** Who should get it beside the operator: 'alpha', 'bravo' or nobody. */
  readonly owner: 'alpha' | 'bravo' | undefined;
}

const SENT: readonly Sent[] = [
  { seq: 1, type: 'http_request_complete.v0', serverName: 'shop.alpha.test', port: 443, owner: 'alpha' },
  { seq: 2, type: 'http_request_complete.v0', serverName: 'eu.wild.alpha.test', port: 443, owner: 'alpha' },
  { seq: 3, type: 'http_request_complete.v0', serverName: 'a.b.wild.alpha.test', port: 80, owner: 'alpha' },
  { seq: 4, type: 'http_request_complete.v0', serverName: 'shop.bravo.test', port: 443, owner: 'bravo' },
  { seq: 5, type: 'http_request_complete.v0', serverName: 'SHOP.Bravo.test', port: 443, owner: 'bravo' },
  { seq: 6, type: 'http_request_complete.v0', serverName: 'nobody.test', port: 443, owner: undefined },
  // A wildcard covers the names below its base, not the base itself.
  { seq: 7, type: 'http_request_complete.v0', serverName: 'wild.alpha.test', port: 443, owner: undefined },
  { seq: 8, type: 'tcp_connection_closed.v0', serverName: '1.tcp.bravo.test', port: 20001, owner: 'bravo' },
  { seq: 9, type: 'tcp_connection_closed.v0', serverName: '1.tcp.bravo.test', port: 20002, owner: undefined },
  // A reserved domain does not own TCP traffic: only a TCP edge's hostport does.
  { seq: 10, type: 'tcp_connection_closed.v0', serverName: 'shop.alpha.test', port: 20001, owner: undefined },
  // A reservation still pending (its TXT challenge not found) owns nothing yet.
  { seq: 11, type: 'http_request_complete.v0', serverName: 'pending.alpha.test', port: 443, owner: undefined },
  // Bravo's edge may not list a name of alpha's, verified or not (refused at create): it stays nobody's.
  { seq: 12, type: 'tcp_connection_closed.v0', serverName: 'ssh.wild.alpha.test', port: 22, owner: undefined },
];

function message(s: Sent): { key: string; value: Buffer; headers: Record<string, string> } {
  const record = seededRecord(s.type, s.seq) as Record<string, Record<string, unknown>>;
  const conn = record.conn as Record<string, unknown>;
  conn.server_name = s.serverName;
  conn.server_port = s.port;
  if (s.type === 'http_request_complete.v0') {
    const http = record.http as { request: { url: Record<string, unknown> } };
    http.request.url.path = `/seq/${s.seq}`;
  } else {
    conn.bytes_in = s.seq;
  }
  const encoded = encodeRecord(s.type, record, s.seq % 2 === 0 ? 'json' : 'avro');
  return { key: String(s.seq), value: encoded.value, headers: { ...encoded.headers } as Record<string, string> };
}

/** What a destination's file holds: traffic by sequence number, and audit events by the id of their object. */
function received(name: string): { traffic: number[]; audit: string[] } {
  const dir = folders.get(name) as string;
  let lines: string[] = [];
  try {
    lines = readdirSync(dir).flatMap((n) => readFileSync(join(dir, n), 'utf8').split('\n').filter((l) => l !== ''));
  } catch {
    return { traffic: [], audit: [] };
  }
  const events = lines.map((l) => JSON.parse(l) as Json);
  const seqOf = (e: Json): number => (e.event_type === 'http_request_complete.v0' ? Number(String(e.object.http.request.url.path).slice(5)) : Number(e.object.conn.bytes_in));
  return {
    traffic: events.filter((e) => e.event_type !== 'ip_policy_created.v0').map(seqOf).sort((x, y) => x - y),
    audit: events.filter((e) => e.event_type === 'ip_policy_created.v0').map((e) => String(e.object.id)).sort(),
  };
}

async function waitFor(what: string, check: () => boolean, timeoutMs = 90_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** An account's key (the operator's for 'operator'), its catch-all subscription to a file of its own. */
const tokens = new Map<string, string>();
/** Where each one's file is written: under its account's folder of the file root (SECURITY.md "Egress"). */
const folders = new Map<string, string>();

beforeAll(async () => {
  service = await startService(serviceEnv(prefix, testBrokers(), { ROLES: 'api,worker', FILE_DESTINATION_ROOT: fileRoot, API_BOOTSTRAP_TOKEN: OPERATOR_TOKEN, DRAIN_TIMEOUT_MS: '2000', TCP_ADDRESS_HOSTS: '1.tcp.bravo.test', TCP_ADDRESS_PORTS: '20001' }));
  tokens.set('operator', OPERATOR_TOKEN);
  for (const name of ['alpha', 'bravo']) {
    const account = await call(OPERATOR_TOKEN, 'POST', '/accounts', { description: name });
    tokens.set(name, (await call(OPERATOR_TOKEN, 'POST', '/api_keys', { account_id: account.id })).token);
  }
  const alpha = tokens.get('alpha') as string;
  const bravo = tokens.get('bravo') as string;
  // Bravo's edge lists the TCP address it reserved (the pool's one); a name of alpha's it may not list.
  const addr = await call(bravo, 'POST', '/reserved_addrs', {});
  await call(bravo, 'POST', '/edges/tcp', { hostports: [addr.addr] });
  // The operator verifies these by hand (no DNS here); alpha's pending.alpha.test stays pending.
  for (const [token, domain] of [[alpha, 'shop.alpha.test'], [alpha, '*.wild.alpha.test'], [bravo, 'shop.bravo.test']] as const) {
    const reserved = await call(token, 'POST', '/reserved_domains', { domain });
    await call(OPERATOR_TOKEN, 'POST', `/reserved_domains/${reserved.id}/verify`, { manual: true });
  }
  await call(alpha, 'POST', '/reserved_domains', { domain: 'pending.alpha.test' });
  for (const [name, token] of tokens) {
    const dest = await call(token, 'POST', '/event_destinations', { target: { file: { path: `${name}/events.ndjson` } } });
    folders.set(name, dirname(dest.target.file.resolved_path as string));
    await call(token, 'POST', '/event_subscriptions', {
      description: 'everything it may see',
      sources: [
        { type: 'http_request_complete.v0', fields: ['conn.server_name', 'http.request.url.path'], filter: 'true' },
        { type: 'tcp_connection_closed.v0', fields: ['conn.server_name', 'conn.bytes_in'], filter: 'true' },
        { type: 'ip_policy_created.v0' },
      ],
      destination_ids: [dest.id],
    });
  }
}, 120_000);

afterAll(async () => {
  await service?.stop('SIGKILL');
  rmSync(fileRoot, { recursive: true, force: true });
});

describe('traffic ownership end to end', () => {
  it("each account's catch-all subscription should receive exactly its own records and the operator's all of them", async () => {
    const kafka = testClient();
    for (const type of ['http_request_complete.v0', 'tcp_connection_closed.v0'] as const) {
      await produce(kafka, `${prefix}.${type.startsWith('http') ? 'http' : 'tcp'}`, SENT.filter((s) => s.type === type).map(message));
    }
    const all = SENT.map((s) => s.seq);
    await waitFor('the operator to receive every record', () => received('operator').traffic.length >= all.length);
    // The owners' files are written by the same worker pass; a moment more lets any stray event show.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(received('operator').traffic).toEqual(all);
    expect(received('alpha').traffic).toEqual(SENT.filter((s) => s.owner === 'alpha').map((s) => s.seq));
    expect(received('bravo').traffic).toEqual(SENT.filter((s) => s.owner === 'bravo').map((s) => s.seq));
  }, 120_000);

  it('should count the records that belong to nobody by event type', async () => {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    const count = (type: string): number => Number(new RegExp(`^edge_unowned_records_total\\{event_type="${type}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    expect(count('http_request_complete.v0')).toBe(SENT.filter((s) => s.owner === undefined && s.type === 'http_request_complete.v0').length);
    expect(count('tcp_connection_closed.v0')).toBe(SENT.filter((s) => s.owner === undefined && s.type === 'tcp_connection_closed.v0').length);
  });

  it("an account's audit events should reach its own subscriptions and the operator's, never another account's", async () => {
    const a = await call(tokens.get('alpha') as string, 'POST', '/ip_policies', { description: 'alpha office' });
    const b = await call(tokens.get('bravo') as string, 'POST', '/ip_policies', { description: 'bravo office' });
    const o = await call(OPERATOR_TOKEN, 'POST', '/ip_policies', { description: 'operator office' });
    await waitFor('the operator to receive the three audit events', () => received('operator').audit.length >= 3);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(received('operator').audit).toEqual([a.id, b.id, o.id].sort());
    expect(received('alpha').audit).toEqual([a.id]);
    expect(received('bravo').audit).toEqual([b.id]);
  }, 120_000);
});
