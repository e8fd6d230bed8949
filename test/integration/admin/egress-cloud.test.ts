// A customer's cloud endpoint under the egress rules (SECURITY.md "Egress"), on the real service with real
// servers on 127.0.0.1 and [::1]: a name resolving inside the network is refused with 400 when the target is set;
// a name rebound there afterwards is refused at the SDK's connect, and the server there sees nothing; and
// an endpoint's own error text never comes back in a check's 422 or a test event's answer.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeNow } from '../../support/loopback-server.js';
import { NameTable } from '../../support/name-table.js';
import { startAdmin, type AdminHarness } from './admin-harness.js';

const STREAM = 'arn:aws:kinesis:us-east-1:123456789012:stream/edge';
const CREDS = { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSCUSTOM', cloud_secret_access_key: 'customer-secret' } };
/** What the endpoint says in its errors: it must never reach the customer. */
const BANNER = 'internal-billing-db v4.2 at 10.3.0.7 says no';

const names = new NameTable();
const resolve = names.resolve;

/** A new account and a key of it, made by the operator. */
async function customer(h: AdminHarness): Promise<string> {
  const a = await h.call('POST', '/accounts', { body: { description: 'cloud customer' } });
  const key = await h.call('POST', '/api_keys', { body: { account_id: a.json.id } });
  expect(key.status, key.text).toBe(201);
  return key.json.token as string;
}

describe("a customer's cloud endpoint on a service with the default egress settings", () => {
  let h: AdminHarness;
  let token: string;
  beforeAll(async () => {
    h = await startAdmin({ env: { EGRESS_ALLOW_HTTP: '', EGRESS_ALLOW_CIDRS: '' }, resolveHost: resolve });
    token = await customer(h);
  });
  afterAll(async () => {
    await h?.stop();
  });

  it('should refuse a name that resolves inside the network, localhost included, with or without the check', async () => {
    names.set('cloud-private.egress.test', '127.0.0.1');
    const answers = [];
    for (const endpoint of ['https://localhost:9', 'https://cloud-private.egress.test']) {
      for (const verify of [true, false]) {
        const r = await h.call('POST', '/event_destinations', { token, body: { target: { data_stream: { auth: CREDS, stream_arn: STREAM, endpoint } }, verify } });
        answers.push([endpoint, verify, r.status, r.json?.error_code, r.json?.details?.field]);
      }
    }
    expect(answers).toEqual(
      ['https://localhost:9', 'https://cloud-private.egress.test'].flatMap((e) => [true, false].map((v) => [e, v, 400, 'internal_address', 'target.data_stream.endpoint'])),
    );
  });
});

/** An endpoint that fails every call with an AWS-style error carrying its own text, on `host`; its connections are counted. */
async function endpoint(host: string): Promise<{ server: Server; port: number; connections: Socket[] }> {
  const connections: Socket[] = [];
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': 'r1' });
    res.end(JSON.stringify({ __type: 'ResourceNotFoundException', message: BANNER }));
  });
  server.on('connection', (s) => connections.push(s));
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, host, () => done());
  });
  return { server, port: (server.address() as AddressInfo).port, connections };
}

describe("a customer's cloud endpoint at the connect, and what it answers", () => {
  let h: AdminHarness;
  let token: string;
  // Only ::1 is opened: the endpoint there is reachable, the one on 127.0.0.1 is inside the network.
  let opened: Awaited<ReturnType<typeof endpoint>>;
  let inside: Awaited<ReturnType<typeof endpoint>>;
  beforeAll(async () => {
    opened = await endpoint('::1');
    inside = await endpoint('127.0.0.1');
    h = await startAdmin({ env: { EGRESS_ALLOW_HTTP: 'true', EGRESS_ALLOW_CIDRS: '::1/128' }, resolveHost: resolve });
    token = await customer(h);
  });
  afterAll(async () => {
    await h?.stop();
    for (const e of [opened, inside]) if (e !== undefined) await closeNow(e.server);
  });

  it("should not repeat the endpoint's own error text in a check's 422 or a test event's answer", async () => {
    names.set('cloud-receiver.egress.test', '::1');
    const target = { data_stream: { auth: CREDS, stream_arn: STREAM, endpoint: `http://cloud-receiver.egress.test:${opened.port}` } };
    const checked = await h.call('POST', '/event_destinations', { token, body: { target } });
    expect([checked.status, checked.json?.error_code], checked.text).toEqual([422, 'destination_check_failed']);
    expect(checked.text).not.toContain('billing');
    expect(checked.json.details).toMatchObject({ error: 'DESTINATION_NOT_FOUND' });

    const stored = await h.call('POST', '/event_destinations', { token, body: { target, verify: false } });
    expect(stored.status, stored.text).toBe(201);
    const sent = await h.call('POST', `/event_destinations/${stored.json.id}/test_event`, { token });
    expect(sent.json, sent.text).toMatchObject({ delivered: false, error: { code: 'DESTINATION_NOT_FOUND' } });
    expect(sent.text).not.toContain('billing');
    // The endpoint was called: the answers above are about what it said.
    expect(opened.connections.length).toBeGreaterThan(0);
  });

  it('should refuse a name rebound inside the network after the create at the connect, and the server there sees nothing', async () => {
    names.set('cloud-rebind.egress.test', '93.184.216.34');
    const stored = await h.call('POST', '/event_destinations', {
      token,
      body: { target: { data_stream: { auth: CREDS, stream_arn: STREAM, endpoint: `http://cloud-rebind.egress.test:${inside.port}` } }, verify: false },
    });
    expect(stored.status, stored.text).toBe(201);
    names.set('cloud-rebind.egress.test', '127.0.0.1');
    const sent = await h.call('POST', `/event_destinations/${stored.json.id}/test_event`, { token });
    expect(sent.json, sent.text).toMatchObject({ delivered: false, error: { code: 'DESTINATION_ADDRESS_REFUSED' } });
    expect(sent.json.error.message).toContain('127.0.0.1 is a loopback address');
    expect(inside.connections).toHaveLength(0);
  });
});
