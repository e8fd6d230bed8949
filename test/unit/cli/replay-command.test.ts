import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/command.js';
import { barLine, parseReplayArgs, parseTime, progressText, RateMeter, replayRefusal, runReplay, summaryLine, type Replay } from '../../../src/cli/replay-command.js';

const env = { EDGE_EVENTS_TOKEN: 'tok', EDGE_EVENTS_URL: 'http://api.test:9000/' };
const NOW = new Date('2026-12-02T06:00:00.000Z');

function replay(over: Partial<Omit<Replay, 'progress'>> & { progress?: Partial<Replay['progress']> } = {}): Replay {
  return {
    id: 'rpl_1',
    uri: '/event_subscriptions/esb_1/replays/rpl_1',
    state: 'running',
    from: '2026-12-02T05:00:00.000Z',
    to: '2026-12-02T06:00:00.000Z',
    created_at: '2026-12-02T06:00:00.000Z',
    finished_at: null,
    error: null,
    ...over,
    progress: { records_scanned: 250, records_total: 1000, events_delivered: 40, fraction: 0.25, estimated_done_at: '2026-12-02T06:00:30.000Z', ...over.progress },
  };
}

describe('edge-events replay arguments', () => {
  it('should take RFC 3339 as typed, "now", and durations ago', () => {
    expect(parseTime('from', '2026-12-01T05:00:00+01:00', NOW)).toBe('2026-12-01T05:00:00+01:00');
    expect(parseTime('from', '1h', NOW)).toBe('2026-12-02T05:00:00.000Z');
    expect(parseTime('from', '24h', NOW)).toBe('2026-12-01T06:00:00.000Z');
    expect(parseTime('from', '90s ago', NOW)).toBe('2026-12-02T05:58:30.000Z');
    expect(parseTime('from', '7d', NOW)).toBe('2026-11-25T06:00:00.000Z');
    expect(parseTime('to', 'now', NOW)).toBe(NOW.toISOString());
  });

  it('should refuse a time that is neither, naming the option and the forms it takes', () => {
    expect(() => parseTime('from', 'yesterday', NOW)).toThrow(/--from "yesterday" is not a time: give RFC 3339/);
    expect(() => parseTime('to', '2026-12-02 05:00', NOW)).toThrow(UsageError);
    expect(() => parseTime('from', '1w', NOW)).toThrow(UsageError);
  });

  it('should build the request from the subscription, the range, the destinations and the sources', () => {
    const o = parseReplayArgs(['esb_1', '--from', '1h', '--destination', 'ed_a', '--destination', 'ed_b', '--source', 'tcp_connection_closed.v0'], env, NOW);
    expect(o.url).toBe('http://api.test:9000');
    expect(o.subscription).toBe('esb_1');
    expect(o.body).toEqual({ from: '2026-12-02T05:00:00.000Z', destination_ids: ['ed_a', 'ed_b'], sources: ['tcp_connection_closed.v0'] });
    expect(parseReplayArgs(['esb_1', '--from', '2h', '--to', '1h'], env, NOW).body).toEqual({ from: '2026-12-02T04:00:00.000Z', to: '2026-12-02T05:00:00.000Z' });
  });

  it('should refuse no subscription, two, and no --from', () => {
    expect(() => parseReplayArgs(['--from', '1h'], env, NOW)).toThrow(/give the subscription id/);
    expect(() => parseReplayArgs(['esb_1', 'esb_2', '--from', '1h'], env, NOW)).toThrow(/one subscription id, got 2/);
    expect(() => parseReplayArgs(['esb_1'], env, NOW)).toThrow(/--from is required/);
  });
});

describe('edge-events replay progress', () => {
  it('should draw the bar to the fraction with the figures: percent, records scanned of total, events, rate, estimated end', () => {
    const line = barLine(replay(), 1234.4, Date.parse('2026-12-02T06:00:18Z'));
    expect(line).toBe('[██████░░░░░░░░░░░░░░░░░░] running   25.0%  250 / 1,000 records  40 events  1,234 records/s  ends ~06:00:30Z (in 12 s)');
  });

  it('should leave out what is not known yet: the rate, the end', () => {
    const r = replay({ state: 'queued', progress: { records_scanned: 0, fraction: 0, estimated_done_at: null } });
    expect(progressText(r, undefined, NOW.getTime())).toBe('0.0%  0 / 1,000 records  40 events');
  });

  it('should give no rate once the replay has ended: a rate between two polls of a replay that ended between them says nothing', () => {
    const r = replay({ state: 'done', progress: { records_scanned: 1_000, fraction: 1, estimated_done_at: null } });
    expect(progressText(r, 2_947, NOW.getTime())).toBe('100.0%  1,000 / 1,000 records  40 events');
  });

  it('should measure the rate over the samples of the last 10 s', () => {
    const m = new RateMeter();
    m.add(0, 0);
    expect(m.perSecond()).toBeUndefined();
    m.add(1000, 500);
    expect(m.perSecond()).toBe(500);
    for (let t = 2000; t <= 20_000; t += 1000) m.add(t, 500 + (t - 1000) * 2);
    // 2,000 records/s since the first second, the first sample dropped from the window.
    expect(m.perSecond()).toBe(2000);
  });

  it('should end with the state, the counts and the time taken, and why a replay failed', () => {
    const done = replay({ state: 'done', finished_at: '2026-12-02T06:00:12.500Z', progress: { records_scanned: 1000, events_delivered: 160, fraction: 1 } });
    expect(summaryLine(done)).toBe('replay rpl_1 done; 1,000 of 1,000 records scanned, 160 events delivered in 12.5 s.');
    const failed = replay({ state: 'failed', error: { code: 'topic_deleted', message: 'the raw topic was deleted' }, finished_at: '2026-12-02T06:00:01Z' });
    expect(summaryLine(failed)).toBe('replay rpl_1 failed: the raw topic was deleted (topic_deleted); 250 of 1,000 records scanned, 40 events delivered in 1.0 s.');
  });
});

describe('edge-events replay refusals', () => {
  const args = ['esb_1', '--from', '48h', '--destination', 'ed_a', '--destination', 'ed_nope'];

  it("should name the flag, point a caret at the argument the API refused, and say which --from to use when the range is older than the retention", () => {
    const body = { error_code: 'replay_before_retention', status_code: 422, msg: 'The field from is before the raw topics\' retention.', details: { field: 'from', earliest_available: '2026-12-01T07:00:00.000Z' } };
    const out = replayRefusal(422, JSON.stringify(body), { args, subscription: 'esb_1' });
    expect(out).not.toContain('"error_code"');
    const lines = out.split('\n');
    expect(lines[0]).toBe("edge-events replay: --from is before the raw topics' retention. (422 replay_before_retention)");
    expect(lines[1]).toBe('  edge-events replay esb_1 --from 48h --destination ed_a --destination ed_nope');
    expect(lines[2]?.indexOf('^')).toBe(lines[1]?.indexOf('48h'));
    expect(lines[2]?.trim()).toBe('^^^');
    expect(lines[3]).toBe('The earliest time still kept is 2026-12-01T07:00:00.000Z: try --from 2026-12-01T07:00:00.000Z');
  });

  it('should point at the second --destination for destination_ids[1], and at the subscription for a 404', () => {
    const dest = replayRefusal(400, JSON.stringify({ error_code: 'x', msg: 'The field destination_ids[1] is not a destination of this subscription.', details: { field: 'destination_ids[1]' } }), { args, subscription: 'esb_1' });
    const [, cmd, carets] = dest.split('\n');
    expect(carets?.indexOf('^')).toBe(cmd?.indexOf('ed_nope'));
    const missing = replayRefusal(404, JSON.stringify({ error_code: 'not_found', msg: 'No event subscription esb_1.', details: {} }), { args, subscription: 'esb_1' });
    const [, cmd2, carets2] = missing.split('\n');
    expect(carets2?.indexOf('^')).toBe(cmd2?.indexOf('esb_1'));
  });

  it('should point at --to for an empty range, which names no field', () => {
    const a = ['esb_1', '--from', '1h', '--to', '2h'];
    const out = replayRefusal(400, JSON.stringify({ error_code: 'replay_range_invalid', msg: 'The replay range is empty: to must be later than from.', details: {} }), { args: a, subscription: 'esb_1' });
    const [, cmd, carets] = out.split('\n');
    expect(carets?.indexOf('^')).toBe(cmd?.indexOf('2h'));
  });

  it('should show an answer that is not the API error body as its status and text', () => {
    expect(replayRefusal(502, 'Bad Gateway', { args, subscription: 'esb_1' })).toBe('edge-events replay: the API answered 502: Bad Gateway\n');
  });
});

/** A stand-in API for the follow loop's unit test; the command against the real service is test/integration/cli/replay-cli.test.ts. */
describe('edge-events replay following a replay', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve()))));

  async function api(handle: (req: IncomingMessage, body: string) => { status: number; json: unknown }): Promise<string> {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const a = handle(req, body);
        res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.json));
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  function capture(): { io: never; out: () => string; err: () => string } {
    let out = '';
    let err = '';
    const w = (f: (s: string) => void): Writable => new Writable({ write: (c: Buffer, _e, cb) => (f(c.toString()), cb()) });
    return { io: { stdout: w((s) => (out += s)), stderr: w((s) => (err += s)) } as never, out: () => out, err: () => err };
  }

  it('should redraw the bar in place at a terminal and end with the counts on stdout and 0 on done', async () => {
    let polls = 0;
    const url = await api((req) => {
      if (req.method === 'POST') return { status: 201, json: replay({ state: 'queued', progress: { records_scanned: 0, fraction: 0 } }) };
      polls++;
      return polls < 3
        ? { status: 200, json: replay({ progress: { records_scanned: polls * 400, fraction: polls * 0.4 } }) }
        : { status: 200, json: replay({ state: 'done', finished_at: '2026-12-02T06:00:03Z', progress: { records_scanned: 1000, fraction: 1, estimated_done_at: null } }) };
    });
    const c = capture();
    ((c.io as unknown as { stderr: { isTTY?: boolean } }).stderr).isTTY = true;
    expect(await runReplay(['esb_1', '--from', '1h', '--url', url, '--token', 't'], c.io, { pollMs: 20 })).toBe(0);
    const draws = c.err().split('\r\x1b[K').slice(1);
    expect(draws.map((d) => d.slice(0, 26))).toEqual(['[░░░░░░░░░░░░░░░░░░░░░░░░]', '[██████████░░░░░░░░░░░░░░]', '[███████████████████░░░░░]', '[████████████████████████]']);
    expect(draws[draws.length - 1]).toMatch(/^\[█+\] done {6}100\.0% {2}1,000 \/ 1,000 records {2}40 events/);
    expect(c.out()).toBe('replay rpl_1 done; 1,000 of 1,000 records scanned, 40 events delivered in 3.0 s.\n');
  });

  it('should cancel with DELETE on the first interrupt and end non-zero on cancelled', async () => {
    let state: Replay['state'] = 'running';
    const seen: string[] = [];
    const url = await api((req) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.method === 'POST') return { status: 201, json: replay({ state: 'queued' }) };
      if (req.method === 'DELETE') state = 'cancelled';
      return { status: 200, json: replay({ state, ...(state === 'cancelled' && { finished_at: '2026-12-02T06:00:02Z' }) }) };
    });
    const cancel = new AbortController();
    const leave = new AbortController();
    const c = capture();
    const done = runReplay(['esb_1', '--from', '1h', '--url', url, '--token', 't'], c.io, { pollMs: 20, interrupts: { cancel: cancel.signal, leave: leave.signal } });
    await new Promise((r) => setTimeout(r, 100));
    cancel.abort();
    expect(await done).toBe(1);
    expect(seen[0]).toBe('POST /event_subscriptions/esb_1/replays');
    expect(seen).toContain('DELETE /event_subscriptions/esb_1/replays/rpl_1');
    expect(c.err()).toContain('cancelling replay rpl_1');
    expect(c.out()).toBe('replay rpl_1 cancelled; 250 of 1,000 records scanned, 40 events delivered in 2.0 s.\n');
  });
});
