// The retry budget bounds how long a delivery holds its partition (ARCHITECTURE.md "Isolation"): a write
// that is never answered (a receiver that accepts the connection and stays silent, within a long
// timeout_ms) fails with DESTINATION_TIMEOUT once the budget is spent, and its deliveries are parked then,
// not when the write's own timeout ends; yet a destination back but slow still gets its writes' time.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import type { DeliveryItem } from '../../../src/delivery/contract.js';
import { DestinationRunner } from '../../../src/delivery/destination-runner.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import type { RetryPolicy } from '../../../src/delivery/backoff.js';
import type { OnBudgetExhausted } from '../../../src/delivery/runner-options.js';
import { createWriter } from '../../../src/delivery/writer-registry.js';
import { OPERATOR } from '../../../src/accounts/account.js';
import { closeNow, listenOnLoopback } from '../../support/loopback-server.js';
import { writerDeps } from '../../support/writer-deps.js';
import { RecordingDeadLetters, testItems } from './writer-contract.js';

const receivers: Server[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map(closeNow));
});

/** A runner of an http destination at `receiver` (on loopback), and how each of its deliveries settled. */
async function runnerTo(receiver: Server, timeoutMs: number, retry: Partial<RetryPolicy>, onBudgetExhausted: OnBudgetExhausted) {
  receivers.push(receiver);
  const port = await listenOnLoopback(receiver);
  const settled = new Map<string, string>();
  const runner = new DestinationRunner({
    destinationId: 'ed_unanswered',
    writer: createWriter({ http: { url: `http://127.0.0.1:${port}/hook`, timeout_ms: timeoutMs } }, writerDeps(), OPERATOR),
    budget: new InFlightBudget(),
    deadLetter: new RecordingDeadLetters(),
    onSettled: (item, settlement) => settled.set(item.eventId, settlement),
    retry,
    onBudgetExhausted,
  });
  runner.start();
  /** Sends `items` and waits until each is settled, or `ms` passed; answers how each was settled. */
  const deliver = async (items: readonly DeliveryItem[], ms: number): Promise<(string | undefined)[]> => {
    for (const i of items) runner.enqueue(i);
    void runner.flush();
    const deadline = Date.now() + ms;
    while (items.some((i) => !settled.has(i.eventId)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    return items.map((i) => settled.get(i.eventId));
  };
  return { runner, deliver };
}

it('should park the deliveries of a write never answered once the retry budget is spent, not when the write times out', async () => {
  // Reads the request, never answers.
  const silent = createServer((req: IncomingMessage) => req.resume());
  const parkedAfter: number[] = [];
  const started = Date.now();
  const { runner, deliver } = await runnerTo(silent, 300_000, { maxAttempts: 10, maxElapsedMs: 2_000 }, async (ctx) => {
    parkedAfter.push(Date.now() - started);
    expect(ctx.lastError.code).toBe('DESTINATION_TIMEOUT');
    return 'parked';
  });
  expect(await deliver(testItems(3), 20_000)).toEqual(['parked', 'parked', 'parked']);
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
  const { runner, deliver } = await runnerTo(slow, 30_000, { maxAttempts: 100, maxElapsedMs: 2_000, baseDelayMs: 20, maxDelayMs: 100 }, async () => 'parked');
  expect(await deliver(testItems(2), 10_000)).toEqual(['parked', 'parked']);
  // Back, answering in 1.5 s: past the spent budget, a write still gets its time.
  down = false;
  expect(await deliver(testItems(2), 15_000)).toEqual(['acked', 'acked']);
  await runner.close(1_000);
});
