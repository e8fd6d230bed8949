// Secrets of http destinations and of /metrics on the real service process (SECURITY.md "Secrets" and
// "Metrics"): a URL's password and query values sealed, answered as REDACTED in views and audit events,
// absent from the config log and the logs, kept by an update that sends REDACTED back, and sent to the
// receiver in clear; the signing secret rotated as the http README says; METRICS_TOKEN asked by /metrics
// alone.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER, verifySignature } from '../../../src/delivery/destinations/http/signature.js';
import { consumeUntil, testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { closeNow, listenOnLoopback } from '../../support/loopback-server.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { request, type CallResult } from './admin-harness.js';

const TOKEN = `eek_secrets${'0'.repeat(32)}`;
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const PASSWORD = 'pa55-word-9c1e';
const QUERY_SECRET = 'tok-secret-5b7d';

interface Received {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

let service: ServiceProcess;
let prefix: string;
let receiver: Server;
let port: number;
const received: Received[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.end('ok');
    });
  });
  port = await listenOnLoopback(receiver);
  prefix = uniqueName('secrets');
  service = await startService(serviceEnv(prefix, testBrokers(), { API_BOOTSTRAP_TOKEN: TOKEN, METRICS_TOKEN, ROLES: 'api' }));
});
afterAll(async () => {
  await service?.stop();
  await closeNow(receiver);
});

function call(method: string, path: string, body?: unknown, token: string | null = TOKEN): Promise<CallResult> {
  return request(service.url, method, path, { token, ...(body !== undefined && { body }) });
}

describe('secrets in an http destination URL', () => {
  it('should refuse at create a user name or password whose % does not decode, without quoting it, rather than retry it for ever', async () => {
    for (const userinfo of ['edge:pa%zz55-word', 'ed%5ge:pa55-word', 'edge:pa55%']) {
      const r = await call('POST', '/event_destinations', { target: { http: { url: `http://${userinfo}@127.0.0.1:${port}/hook` } } });
      expect(r.status, userinfo).toBe(400);
      expect(r.json).toMatchObject({ error_code: 'invalid_body', details: { field: 'target.http.url' } });
      expect(r.text).not.toContain(userinfo.split(':')[1]!);
    }
    // A % that decodes is fine.
    const ok = await call('POST', '/event_destinations', { target: { http: { url: `http://edge:pa%2555-word@127.0.0.1:${port}/hook` } } });
    expect(ok.status).toBe(201);
    await call('DELETE', `/event_destinations/${ok.json.id}`);
  });

  it('should be answered as REDACTED, sealed at rest, kept by an update sending REDACTED back, and reach the receiver in clear', async () => {
    const url = `http://edge:${PASSWORD}@127.0.0.1:${port}/hook?token=${QUERY_SECRET}&mode=batch&flag`;
    const redacted = `http://edge:REDACTED@127.0.0.1:${port}/hook?token=REDACTED&mode=REDACTED&flag`;
    const created = await call('POST', '/event_destinations', { target: { http: { url } } });
    expect(created.status, created.text).toBe(201);
    expect(created.json.target.http.url).toBe(redacted);
    const id = created.json.id as string;
    expect((await call('GET', `/event_destinations/${id}`)).json.target.http.url).toBe(redacted);

    // GET, then PATCH what it answered: the sealed parts are kept.
    const patched = await call('PATCH', `/event_destinations/${id}`, { target: { http: { url: redacted, timeout_ms: 3000 } } });
    expect([patched.status, patched.json.target.http.url]).toEqual([200, redacted]);
    // A part moved elsewhere keeps its value by name; a REDACTED with nothing stored is refused.
    const moved = await call('PATCH', `/event_destinations/${id}`, { target: { http: { url: `http://edge:REDACTED@127.0.0.1:${port}/v2?mode=REDACTED&token=REDACTED` } } });
    expect(moved.status, moved.text).toBe(200);
    const unknown = await call('PATCH', `/event_destinations/${id}`, { target: { http: { url: `http://127.0.0.1:${port}/v2?key=REDACTED` } } });
    expect([unknown.status, unknown.json.error_code, unknown.json.details.field]).toEqual([400, 'secret_required', 'target.http.url']);

    const sent = await call('POST', `/event_destinations/${id}/test_event`);
    expect(sent.json).toMatchObject({ delivered: true, status_code: 200 });
    const last = received[received.length - 1] as Received;
    expect(last.url).toBe(`/v2?mode=batch&token=${QUERY_SECRET}`);
    expect(last.headers.authorization).toBe(`Basic ${Buffer.from(`edge:${PASSWORD}`).toString('base64')}`);

    // Neither the audit events, nor the config log, nor the service's logs hold either secret.
    const kafka = testClient('url-secrets');
    const audit = await consumeUntil(kafka, { topics: [`${prefix}.audit`], until: (got) => got.filter((m) => m.key === id).length >= 3 });
    const config = await consumeUntil(kafka, { topics: [`${prefix}.config`], until: (got) => got.filter((m) => m.key === id).length >= 3 });
    const events = audit.filter((m) => m.key === id).map((m) => JSON.parse(m.value as string) as { object: { target: { http: { url: string } } } });
    expect(events.map((e) => e.object.target.http.url)).toContain(redacted);
    for (const text of [...audit.map((m) => m.value ?? ''), ...config.map((m) => m.value ?? ''), ...service.logs]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(QUERY_SECRET);
    }
  });
});

describe('the signing secret', () => {
  function signature(r: Received): string {
    return r.headers[SIGNATURE_HEADER] as string;
  }

  it('should sign with the new secret alone from the update on, and keep it when an update leaves it out', async () => {
    const [oldSecret, newSecret] = ['old-signing-secret-0001', 'new-signing-secret-0002'];
    const url = `http://127.0.0.1:${port}/signed`;
    const created = await call('POST', '/event_destinations', { target: { http: { url, secret: oldSecret } } });
    const id = created.json.id as string;
    await call('POST', `/event_destinations/${id}/test_event`);
    const first = received[received.length - 1] as Received;
    expect(verifySignature(oldSecret, signature(first), first.body)).toBe(true);

    expect((await call('PATCH', `/event_destinations/${id}`, { target: { http: { url, secret: newSecret } } })).status).toBe(200);
    await call('POST', `/event_destinations/${id}/test_event`);
    const second = received[received.length - 1] as Received;
    expect(signature(second).match(/v1=/g)).toHaveLength(1);
    expect([verifySignature(newSecret, signature(second), second.body), verifySignature(oldSecret, signature(second), second.body)]).toEqual([true, false]);

    expect((await call('PATCH', `/event_destinations/${id}`, { target: { http: { url, timeout_ms: 4000 } } })).status).toBe(200);
    await call('POST', `/event_destinations/${id}/test_event`);
    const third = received[received.length - 1] as Received;
    expect(verifySignature(newSecret, signature(third), third.body)).toBe(true);
  });
});

describe('/metrics with METRICS_TOKEN', () => {
  it('should answer 401 in the API error shape without the token or with another, 200 with it, and leave health and readiness open', async () => {
    for (const token of [null, 'not-the-metrics-token-000', TOKEN]) {
      const r = await call('GET', '/metrics', undefined, token);
      expect([r.status, r.json.error_code, r.json.status_code, r.headers.get('www-authenticate')]).toEqual([401, 'unauthorized', 401, 'Bearer realm="edge-events"']);
      expect(r.json.msg).toBeTypeOf('string');
    }
    const ok = await call('GET', '/metrics', undefined, METRICS_TOKEN);
    expect([ok.status, ok.text.includes('# HELP')]).toEqual([200, true]);
    for (const path of ['/healthz', '/readyz']) expect((await call('GET', path, undefined, null)).status).toBe(200);
  });
});
