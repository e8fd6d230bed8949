import { PassThrough } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { TapSession } from '../../../src/tap/tap-session.js';

/** A response that records what is written: enough of ServerResponse for a session. */
function response(): { raw: ServerResponse; text: () => string; status: () => number | undefined } {
  const stream = new PassThrough();
  let body = '';
  let status: number | undefined;
  stream.on('data', (c: Buffer) => (body += c.toString('utf8')));
  const raw = Object.assign(stream, {
    writeHead: (code: number) => {
      status = code;
      return raw;
    },
  }) as unknown as ServerResponse;
  return { raw, text: () => body, status: () => status };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('a tap session', () => {
  it('should send at most 100 events in a second, end at its limit, and say how many it skipped', async () => {
    const r = response();
    let ended = 0;
    const session = new TapSession(r.raw, { tap: 'tap_1', limit: 150, seconds: 30, onEnd: () => ended++ });
    session.begin();
    session.waitFor(['m1']);
    session.ack('m1');
    for (let i = 0; i < 130; i++) session.event(Buffer.from(`{"n":${i}}`));
    session.skipped(5);
    session.end('done');
    await tick();
    const lines = r.text().split('\n').filter((l) => l !== '');
    expect(r.status()).toBe(200);
    expect(lines.filter((l) => l.startsWith('data: '))).toHaveLength(100);
    expect(lines).toContain(': listening on 1 of 1 workers');
    expect(lines).toContain(': skipped 35 events (over 100 events/s)');
    expect(lines.at(-1)).toBe(': the tap ended: done');
    expect(ended).toBe(1);
  });

  it('should end at once, saying why, when no worker of the group is running', async () => {
    const r = response();
    const session = new TapSession(r.raw, { tap: 'tap_2', limit: 10, seconds: 30, onEnd: () => undefined });
    session.begin();
    session.waitFor([]);
    await tick();
    expect(r.text()).toContain(': the tap ended: no worker of the consumer group is running');
  });

  it('should keep events that came before it began and send them first, up to its limit', async () => {
    const r = response();
    const session = new TapSession(r.raw, { tap: 'tap_3', limit: 2, seconds: 30, onEnd: () => undefined });
    for (let i = 0; i < 3; i++) session.event(Buffer.from(`{"n":${i}}`));
    session.begin();
    await tick();
    expect(r.text().split('\n').filter((l) => l.startsWith('data: '))).toEqual(['data: {"n":0}', 'data: {"n":1}']);
    expect(r.text()).toContain('limit of 2 events was reached');
  });
});
