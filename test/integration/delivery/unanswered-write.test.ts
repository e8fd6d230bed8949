// The retry budget bounds how long a delivery holds its partition (ARCHITECTURE.md "Isolation"): a write
// that is never answered (a receiver that accepts the connection and stays silent, within a long
// timeout_ms) fails with DESTINATION_TIMEOUT once the budget is spent, and its deliveries are parked then,
// not when the write's own timeout ends; yet a destination back but slow still gets its writes' time.
import { createServer, type IncomingMessage } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { DestinationRunner } from '../../../src/delivery/destination-runner.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import { createWriter } from '../../../src/delivery/writer-registry.js';
import { OPERATOR } from '../../../src/accounts/account.js';
import { closeNow, listenOnLoopback } from '../../support/loopback-server.js';
import { writerDeps } from '../../support/writer-deps.js';
import { RecordingDeadLetters, testItems } from './writer-contract.js';

const silent = createServer((req: IncomingMessage) => {
  // Read the request, never answer.
  req.resume();
});
afterEach(() => closeNow(silent));

it('should park the deliveries of a write never answered once the retry budget is spent, not when the write times out', async () => {
  const port = await listenOnLoopback(silent);
  const writer = createWriter({ http: { url: `http://127.0.0.1:${port}/hook`, timeout_ms: 300_000 } }, writerDeps(), OPERATOR);
  const settled = new Map<string, string>();
  const parkedAfter: number[] = [];
  const started = Date.now();
  const runner = new DestinationRunner({
    destinationId: 'ed_silent',
    writer,
    budget: new InFlightBudget(),
    deadLetter: new RecordingDeadLetters(),
    onSettled: (item, settlement) => settled.set(item.eventId, settlement),
    retry: { maxAttempts: 10, maxElapsedMs: 2_000 },
    onBudgetExhausted: async (ctx) => {
      parkedAfter.push(Date.now() - started);
      expect(ctx.lastError.code).toBe('DESTINATION_TIMEOUT');
      return 'parked';
    },
  });
  runner.start();
  const items = testItems(3);
  for (const i of items) runner.enqueue(i);
  void runner.flush();
  const deadline = Date.now() + 20_000;
  while (settled.size < items.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect([...settled.values()]).toEqual(['parked', 'parked', 'parked']);
  // The 2-second budget, and scheduling slack; the write's own timeout was five minutes.
  expect(parkedAfter).toHaveLength(1);
  expect(parkedAfter[0]).toBeLessThan(10_000);
  await runner.close(1_000);
});

it('should still deliver through a destination back from an outage whose writes take longer than a second, once its budget was spent', async () => {
  let down = true;
  const slow = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (down) res.writeHead(503).end('down');
      else setTimeout(() => res.writeHead(200).end('ok'), 1_500);
    });
  });
  const port = await listenOnLoopback(slow);
  try {
    const writer = createWriter({ http: { url: `http://127.0.0.1:${port}/hook`, timeout_ms: 30_000 } }, writerDeps(), OPERATOR);
    const settled = new Map<string, string>();
    const runner = new DestinationRunner({
      destinationId: 'ed_slow',
      writer,
      budget: new InFlightBudget(),
      deadLetter: new RecordingDeadLetters(),
      onSettled: (item, settlement) => settled.set(item.eventId, settlement),
      retry: { maxAttempts: 100, maxElapsedMs: 2_000, baseDelayMs: 20, maxDelayMs: 100 },
      onBudgetExhausted: async () => 'parked',
    });
    runner.start();
    const first = testItems(2);
    for (const i of first) runner.enqueue(i);
    void runner.flush();
    const wait = async (items: readonly { eventId: string }[], ms: number): Promise<void> => {
      const deadline = Date.now() + ms;
      while (items.some((i) => !settled.has(i.eventId)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    };
    await wait(first, 10_000);
    expect(first.map((i) => settled.get(i.eventId))).toEqual(['parked', 'parked']);
    // Back, answering in 1.5 s: past the spent budget, a write still gets its time.
    down = false;
    const next = testItems(2);
    for (const i of next) runner.enqueue(i);
    void runner.flush();
    await wait(next, 15_000);
    expect(next.map((i) => settled.get(i.eventId))).toEqual(['acked', 'acked']);
    await runner.close(1_000);
  } finally {
    await closeNow(slow);
  }
});
