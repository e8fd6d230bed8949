// The egress matrix (SECURITY.md "Egress"): on a service with the default settings (https only, no
// internal address opened), every refused range as an IPv4 and an IPv6 literal, the IPv6 spellings that
// carry a refused IPv4 address (mapped, translated, compatible, NAT64, 6to4), names that resolve inside the network (through the real system resolver for localhost), and
// public addresses and names that are accepted; then a name whose answer changes between the create and
// the connect, caught at the connect with a real server on 127.0.0.1 that receives nothing, in the test
// event's answer and in the destination's status.
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeNow, listenOnLoopback } from '../../support/loopback-server.js';
import { NameTable } from '../../support/name-table.js';
import { produceTcp, statusWhen, subscribeAll } from '../status/status-support.js';
import { startAdmin, type AdminHarness } from './admin-harness.js';

const names = new NameTable();
let h: AdminHarness;

beforeAll(async () => {
  // The service's own defaults: the suite's loopback allowances are taken away.
  h = await startAdmin({ roles: 'api,worker', env: { EGRESS_ALLOW_HTTP: '', EGRESS_ALLOW_CIDRS: '' }, resolveHost: names.resolve });
});
afterAll(async () => {
  await h?.stop();
});

/** What creating an http destination to `url` answers: the status and the error code, if any. */
async function attempt(url: string): Promise<[number, string | undefined]> {
  const r = await h.call('POST', '/event_destinations', { body: { target: { http: { url } } } });
  return [r.status, r.json?.error_code];
}

const REFUSED_LITERALS = [
  // IPv4: unspecified, private (RFC 1918), shared, loopback, link-local (cloud metadata), multicast, broadcast.
  '0.0.0.0',
  '0.1.2.3',
  '10.0.0.1',
  '10.255.255.255',
  '100.64.0.1',
  '100.127.255.254',
  '127.0.0.1',
  '127.1.2.3',
  '169.254.169.254',
  '169.254.0.1',
  '172.16.0.1',
  '172.31.255.254',
  '192.168.0.1',
  '192.168.255.254',
  '224.0.0.1',
  '239.255.255.250',
  '255.255.255.255',
  // IPv6: unspecified, loopback, unique local, link-local, multicast.
  '[::]',
  '[::1]',
  '[fc00::1]',
  '[fd12:3456:789a::1]',
  '[fe80::1]',
  '[febf:ffff::1]',
  '[ff02::1]',
  '[ff05::1:3]',
  // IPv4-mapped IPv6 and NAT64 of refused IPv4 addresses, in several spellings.
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[::ffff:169.254.169.254]',
  '[::ffff:10.0.0.1]',
  '[0:0:0:0:0:ffff:c0a8:0101]',
  '[64:ff9b::127.0.0.1]',
  '[64:ff9b::a9fe:a9fe]',
  // Other IPv6 that carries a refused IPv4 address (translated, compatible, 6to4), and the IPv6 ranges refused whole.
  '[::ffff:0:7f00:1]',
  '[::7f00:1]',
  '[2002:7f00:1::]',
  '[2002:a9fe:a9fe::1]',
  '[64:ff9b:1::a00:1]',
  '[fec0::1]',
  '[2001:0:4136:e378:8000:63bf:3fff:fdd2]',
];

const REFUSED_NAMES: Record<string, string[]> = {
  'private.egress.test': ['10.20.30.40'],
  'metadata.egress.test': ['169.254.169.254'],
  'shared.egress.test': ['100.100.100.200'],
  'ula.egress.test': ['fd00::53'],
  'linklocal6.egress.test': ['fe80::abcd'],
  'mapped.egress.test': ['::ffff:192.168.1.1'],
  // One internal address among public ones refuses the name: a connect may pick any of them.
  'mixed.egress.test': ['93.184.216.34', '127.0.0.1'],
};

const ACCEPTED_LITERALS = ['93.184.216.34', '8.8.8.8', '100.63.255.255', '100.128.0.1', '172.32.0.1', '[2606:4700:4700::1111]', '[::ffff:93.184.216.34]'];
const ACCEPTED_NAMES: Record<string, string[]> = { 'public.egress.test': ['93.184.216.34'], 'public6.egress.test': ['2606:4700:4700::1111'] };

describe('the egress matrix', () => {
  it('should refuse every internal address written as an IPv4 or IPv6 literal with 400 internal_address', async () => {
    const answers = [];
    for (const host of REFUSED_LITERALS) answers.push([host, ...(await attempt(`https://${host}/hook`))]);
    expect(answers).toEqual(REFUSED_LITERALS.map((host) => [host, 400, 'internal_address']));
  });

  it('should refuse names that resolve inside the network, localhost through the system resolver included', async () => {
    for (const [name, addresses] of Object.entries(REFUSED_NAMES)) names.set(name, ...addresses);
    const all = [...Object.keys(REFUSED_NAMES), 'localhost'];
    const answers = [];
    for (const name of all) answers.push([name, ...(await attempt(`https://${name}:8443/hook`))]);
    expect(answers).toEqual(all.map((name) => [name, 400, 'internal_address']));
    // "verify": false skips the check that a target works, never where it may point.
    const skipped = await h.call('POST', '/event_destinations', { body: { target: { http: { url: 'https://private.egress.test/x' } }, verify: false } });
    expect([skipped.status, skipped.json.error_code, skipped.json.details.host]).toEqual([400, 'internal_address', 'private.egress.test']);
  });

  it('should accept public addresses and names, and refuse plain http with insecure_url', async () => {
    for (const [name, addresses] of Object.entries(ACCEPTED_NAMES)) names.set(name, ...addresses);
    const hosts = [...ACCEPTED_LITERALS, ...Object.keys(ACCEPTED_NAMES)];
    const answers = [];
    for (const host of hosts) answers.push([host, ...(await attempt(`https://${host}/hook`))]);
    expect(answers).toEqual(hosts.map((host) => [host, 201, undefined]));
    expect(await attempt('http://public.egress.test/hook')).toEqual([400, 'insecure_url']);
    const total = REFUSED_LITERALS.length + Object.keys(REFUSED_NAMES).length + 1 + hosts.length + 1;
    console.log(`Egress matrix: ${total} cases, ${REFUSED_LITERALS.length + Object.keys(REFUSED_NAMES).length + 2} refused and ${hosts.length} accepted, as expected.`);
  });
});

describe('a name whose answer changes after the destination was created (DNS rebinding)', () => {
  let server: Server;
  let port: number;
  const connections: Socket[] = [];
  beforeAll(async () => {
    // A real server on 127.0.0.1, where the name will point: it must never see a connection.
    server = createServer((_req, res) => res.end('internal data'));
    server.on('connection', (s) => connections.push(s));
    port = await listenOnLoopback(server);
  });
  afterAll(async () => {
    await closeNow(server);
  });

  it('should be refused at the connect, in the test event and in the status, and the internal server should receive nothing', async () => {
    names.set('rebind.egress.test', '93.184.216.34');
    const created = await h.call('POST', '/event_destinations', { body: { target: { http: { url: `https://rebind.egress.test:${port}/hook`, timeout_ms: 2000 } } } });
    expect(created.status, created.text).toBe(201);
    names.set('rebind.egress.test', '127.0.0.1');

    const test = await h.call('POST', `/event_destinations/${created.json.id}/test_event`);
    expect(test.status).toBe(200);
    expect(test.json).toMatchObject({ delivered: false, status_code: null, error: { code: 'DESTINATION_ADDRESS_REFUSED' } });
    expect(test.json.error.message).toContain('127.0.0.1 is a loopback address');

    await subscribeAll(h, [created.json.id]);
    await produceTcp(h, 0, 3);
    const { status } = await statusWhen(h, created.json.id, (s) => s.last_error?.code === 'DESTINATION_ADDRESS_REFUSED', 30_000, 'the refused address');
    expect(status.state).not.toBe('ok');
    expect(connections).toHaveLength(0);
  });
});
