// `edge-events replay` against the real service on the suite's broker: traffic sent first, then the
// subscription made, then the last hour replayed from the command line to an http receiver on 127.0.0.1;
// the refusals as a person reads them, and Ctrl-C cancelling a running replay. Replays read at most 100
// records a second here (REPLAY_RECORDS_PER_SECOND's least), so one of the SENT records takes seconds.
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken } from '../../../src/admin/api-keys/tokens.js';
import { runCli } from '../../../src/cli/main.js';
import { testBrokers, uniqueName } from '../../support/kafka.js';
import { closeNow, listenOnLoopback } from '../../support/loopback-server.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';

const prefix = uniqueName('replay-cli');
const brokers = testBrokers();
const token = newToken();
/** TCP records sent before the subscription exists; about half on port 443, which the filter keeps. */
const SENT = 600;
let service: ServiceProcess;
let receiver: Server;
let receiverUrl: string;
/** Every event the receiver got, by event_id: how many times, and the object's server_port. */
const received = new Map<string, { times: number; port: unknown }>();
let subscription: string;
let destination: string;

type Json = Record<string, unknown>;
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${service.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, json: text === '' ? {} : (JSON.parse(text) as Json) };
}

function capture(): { io: never; out: () => string; err: () => string } {
  let out = '';
  let err = '';
  const w = (f: (s: string) => void): Writable => new Writable({ write: (c: Buffer, _e, cb) => (f(c.toString()), cb()) });
  return { io: { stdin: process.stdin, stdout: w((s) => (out += s)), stderr: w((s) => (err += s)) } as never, out: () => out, err: () => err };
}

const replay = (...args: string[]): Promise<{ code: number; out: string; err: string }> => {
  const c = capture();
  return runCli(['replay', ...args, '--url', service.url, '--token', token], c.io).then((code) => ({ code, out: c.out(), err: c.err() }));
};

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      for (const line of body.split('\n').filter((l) => l.trim() !== '')) {
        const e = JSON.parse(line) as { event_id: string; object: { conn: { server_port: unknown } } };
        const seen = received.get(e.event_id);
        received.set(e.event_id, { times: (seen?.times ?? 0) + 1, port: e.object.conn.server_port });
      }
      res.writeHead(200).end();
    });
  });
  receiverUrl = `http://127.0.0.1:${await listenOnLoopback(receiver)}/events`;
  // No clock allowance: a record sent before the subscription is never delivered live, only by a replay.
  service = await startService(serviceEnv(prefix, brokers, { API_BOOTSTRAP_TOKEN: token, SUBSCRIPTION_CLOCK_SKEW_MS: '0', REPLAY_RECORDS_PER_SECOND: '100' }));
  const out = { write: () => true };
  const sent = await runCli(['produce', '--brokers', brokers, '--tcp-topic', `${prefix}.tcp`, '--http-topic', `${prefix}.http`, '--http-share', '0', '--tcp-port', '443', '--count', String(SENT), '--rate', '2000'], { stdout: out, stderr: out } as never);
  expect(sent).toBe(0);
  await new Promise((r) => setTimeout(r, 200));
  const d = await call('POST', '/event_destinations', { description: 'replay receiver', target: { http: { url: receiverUrl, output_type: 'ndjson' } } });
  expect(d.status).toBe(201);
  destination = String(d.json.id);
  const s = await call('POST', '/event_subscriptions', {
    description: 'after the traffic',
    destination_ids: [destination],
    sources: [{ type: 'tcp_connection_closed.v0', fields: ['conn.client_ip', 'conn.server_port'], filter: 'ev.conn.server_port == 443' }],
  });
  expect(s.status).toBe(201);
  subscription = String(s.json.id);
}, 120_000);

afterAll(async () => {
  await service?.stop();
  if (receiver !== undefined) await closeNow(receiver);
});

describe('edge-events replay against the service', () => {
  it("should say in a person's words what the API refused, with a caret under the argument, and exit 2", async () => {
    const empty = await replay(subscription, '--from', '1h', '--to', '2h');
    expect(empty.code).toBe(2);
    const [first, cmd, carets] = empty.err.split('\n');
    expect(first).toMatch(/^edge-events replay: The replay range is empty: .* \(400 replay_range_invalid\)$/);
    expect(carets?.indexOf('^')).toBe(cmd?.indexOf('2h'));
    const other = await call('POST', '/event_destinations', { description: 'not this subscription', target: { http: { url: receiverUrl } } });
    const wrong = await replay(subscription, '--from', '1h', '--destination', destination, '--destination', String(other.json.id));
    expect(wrong.code).toBe(2);
    const [line, cmd2, carets2] = wrong.err.split('\n');
    expect(line).toMatch(/^edge-events replay: --destination names ed_\w+, which is not a destination of the event subscription .* \(400 replay_destination_not_subscribed\)$/);
    expect(carets2?.indexOf('^')).toBe(cmd2?.lastIndexOf(String(other.json.id)));
    const future = await replay(subscription, '--from', '2099-01-01T00:00:00Z');
    expect(future.code).toBe(2);
    expect(future.err).toContain('(400 replay_range_in_future)');
    const missing = await replay('esb_00000000000000000000000000', '--from', '1h');
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('(404 not_found)');
    expect(missing.err).not.toContain('"error_code"');
  }, 60_000);
});
