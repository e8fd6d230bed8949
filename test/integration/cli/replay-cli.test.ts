// `edge-events replay` against the real service on the suite's broker: traffic sent first, then the
// subscription made, then the last hour replayed from the command line to an http receiver on 127.0.0.1;
// the refusals as a person reads them, and Ctrl-C cancelling a running replay. Replays read at most 100
// records a second here (REPLAY_RECORDS_PER_SECOND's least), so one of the SENT records takes seconds.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken } from '../../../src/admin/api-keys/tokens.js';
import { runCli } from '../../../src/cli/main.js';
import { testBrokers, uniqueName } from '../../support/kafka.js';
import { closeNow, listenOnLoopback } from '../../support/loopback-server.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
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
  it('should replay the last hour to a subscription made after the traffic: plain progress lines, the counts at the end, every match received once', async () => {
    // Nothing arrives live: the records are older than the subscription.
    await new Promise((r) => setTimeout(r, 1500));
    expect(received.size).toBe(0);
    const r = await replay(subscription, '--from', '1h');
    expect(r.err).not.toContain('"error_code"');
    expect(r.code, r.err + r.out).toBe(0);
    const summary = /^replay (rpl_\w+) done; ([\d,]+) of ([\d,]+) records scanned, ([\d,]+) events delivered in [\d.]+ s\.\n$/.exec(r.out);
    expect(summary, r.out).not.toBeNull();
    const [, id, scanned, total, delivered] = summary as unknown as string[];
    expect(Number(scanned?.replaceAll(',', ''))).toBe(SENT);
    expect(Number(total?.replaceAll(',', ''))).toBe(SENT);
    // At least one plain progress line (stderr is not a terminal here), ending in done.
    expect(r.err).toMatch(new RegExp(`^replay ${String(id)} (queued|running): \\d+\\.\\d%  [\\d,]+ / ${SENT} records`, 'm'));
    expect(r.err).toMatch(new RegExp(`^replay ${String(id)} done: 100\\.0%  ${SENT} / ${SENT} records`, 'm'));
    // The receiver has every delivered event, each matching the filter.
    await expect.poll(() => received.size, { timeout: 15_000 }).toBe(Number(delivered?.replaceAll(',', '')));
    expect(received.size).toBeGreaterThan(SENT / 4);
    expect([...received.values()].every((e) => e.port === 443)).toBe(true);
    // The API says the same.
    const got = await call('GET', `/event_subscriptions/${subscription}/replays/${String(id)}`);
    expect(got.json.state).toBe('done');
    expect((got.json.progress as Json).events_delivered).toBe(received.size);
  }, 120_000);

  it('should deliver the same ids on a second replay of the range, so a receiver drops the overlap by event_id', async () => {
    const before = new Set(received.keys());
    const r = await replay(subscription, '--from', '1h', '--destination', destination);
    expect(r.code, r.err + r.out).toBe(0);
    await expect.poll(() => [...received.values()].every((e) => e.times >= 2), { timeout: 15_000 }).toBe(true);
    expect(new Set(received.keys())).toEqual(before);
  }, 120_000);

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

  it('should cancel the replay on Ctrl-C, wait for it to say cancelled, and exit 1', async () => {
    // The CLI in a process of its own, as a person runs it, sent SIGINT while it follows a replay; the
    // service reads replays at REPLAY_RECORDS_PER_SECOND's least here, so a replay takes seconds.
    const cli = "import { runCli } from './src/cli/main.ts'; process.exitCode = await runCli(process.argv.slice(1));";
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', cli, 'replay', subscription, '--from', '1h', '--url', service.url, '--token', token], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await expect.poll(() => /^replay rpl_\w+ (queued|running): /m.test(err), { timeout: 30_000 }).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(1);
    expect(err).toMatch(/cancelling replay (rpl_\w+) \(Ctrl-C again leaves without waiting\)/);
    const id = /cancelling replay (rpl_\w+)/.exec(err)?.[1];
    expect(out).toMatch(new RegExp(`^replay ${String(id)} cancelled; [\\d,]+ of ${SENT} records scanned`));
    const got = await call('GET', `/event_subscriptions/${subscription}/replays/${String(id)}`);
    expect(got.json.state).toBe('cancelled');
  }, 60_000);
});
