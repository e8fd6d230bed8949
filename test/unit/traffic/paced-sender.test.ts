// Tests of the paced sender: exact counts, the rate as an upper bound, time limits, aborts and failures.
import { describe, expect, it } from 'vitest';
import { sendPaced } from '../../../src/traffic/paced-sender.js';

function counter(): { next: () => number; sent: number[]; send: (b: number[]) => Promise<void> } {
  let i = 0;
  const sent: number[] = [];
  return {
    next: () => i++,
    sent,
    send: async (b) => {
      await new Promise((r) => setTimeout(r, 1));
      sent.push(...b);
    },
  };
}

describe('paced sender', () => {
  it('should send exactly the count, in order, in batches no larger than asked', async () => {
    const c = counter();
    const sizes: number[] = [];
    const summary = await sendPaced({ next: c.next, count: 1234, batchSize: 100, maxInFlight: 1, send: (b) => (sizes.push(b.length), c.send(b)) });
    expect(summary).toMatchObject({ sent: 1234, target: 1234, stoppedBy: 'count' });
    expect(c.sent).toEqual(Array.from({ length: 1234 }, (_, i) => i));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(100);
  });

  it('should not send faster than the rate', async () => {
    const c = counter();
    const started = performance.now();
    const summary = await sendPaced({ next: c.next, send: c.send, count: 300, rate: 1000 });
    // 300 records at 1000/s: the last one is due 299 ms after the start.
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(summary.sent).toBe(300);
  });

  it('should stop at the time limit before the count when the rate cannot reach it', async () => {
    const c = counter();
    const summary = await sendPaced({ next: c.next, send: c.send, count: 1_000_000, rate: 500, maxDurationMs: 200 });
    expect(summary.stoppedBy).toBe('time');
    expect(summary.sent).toBeGreaterThan(0);
    expect(summary.sent).toBeLessThanOrEqual(101 + 1);
  });

  it('should stop when aborted and wait for the batches already sent', async () => {
    const c = counter();
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 50);
    const summary = await sendPaced({ next: c.next, send: c.send, count: 1_000_000, rate: 2000, signal: stop.signal });
    expect(summary.stoppedBy).toBe('signal');
    expect(c.sent.length).toBe(summary.sent);
    expect(summary.sent).toBeLessThan(1_000_000);
  });

  it('should reject with the sink error and send nothing after it', async () => {
    let calls = 0;
    const run = sendPaced({
      next: () => 0,
      count: 10_000,
      batchSize: 10,
      maxInFlight: 1,
      send: async () => {
        calls++;
        if (calls === 3) throw new Error('broker down');
      },
    });
    await expect(run).rejects.toThrow('broker down');
    expect(calls).toBe(3);
  });
});
