import { describe, expect, it } from 'vitest';
import { DELIVERED, type DeliveryItem, type WriteOutcome } from '../../../src/delivery/contract.js';
import { DestinationRunner } from '../../../src/delivery/destination-runner.js';
import { DeadLetterError } from '../../../src/delivery/dead-letter.js';
import { DeliveryError } from '../../../src/delivery/errors.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import type { DestinationRunnerOptions, OnBudgetExhausted, Settlement } from '../../../src/delivery/runner-options.js';
import { systemClock } from '../../../src/delivery/clock.js';
import { deliveries } from '../../../src/telemetry/metrics.js';
import { FakeWriter, RecordingDeadLetterSink, VirtualClock, item } from './fakes.js';

let destinationSeq = 0;

function setup(writer: FakeWriter, overrides: Partial<DestinationRunnerOptions> = {}) {
  const settled: Array<{ item: DeliveryItem; settlement: Settlement }> = [];
  const clock = new VirtualClock();
  const budget = new InFlightBudget({ maxDeliveries: 1000, maxBytes: 1 << 20 });
  const deadLetter = new RecordingDeadLetterSink();
  const destinationId = `ed_test${++destinationSeq}`;
  const runner = new DestinationRunner({
    destinationId,
    writer,
    budget,
    deadLetter,
    onSettled: (i, settlement) => settled.push({ item: i, settlement }),
    clock,
    random: () => 0.999,
    batching: { lingerMs: 0 },
    ...overrides,
  });
  runner.start();
  return { runner, settled, clock, budget, deadLetter, destinationId };
}

async function count(destination: string, outcome: string): Promise<number> {
  const metric = await deliveries.get();
  return metric.values.find((v) => v.labels.destination === destination && v.labels.outcome === outcome)?.value ?? 0;
}

const unreachable = () => new DeliveryError('DESTINATION_UNREACHABLE', 'connection refused');

/** The destination takes one batch (it is back), then fails again for the next one. */
async function deliverOnceThenFail(writer: FakeWriter, runner: DestinationRunner): Promise<void> {
  writer.fallback = 'ok';
  runner.enqueue(item());
  await runner.flush();
  writer.fallback = unreachable();
  runner.enqueue(item());
  await runner.flush();
}

describe('destination runner', () => {
  it('should cut batches by the record count and acknowledge every item in order', async () => {
    const writer = new FakeWriter();
    const { runner, settled } = setup(writer, { batching: { maxRecords: 3, lingerMs: 1000 } });
    const items = Array.from({ length: 7 }, () => item());
    items.forEach((i) => runner.enqueue(i));
    await runner.flush();
    expect(writer.batches.map((b) => b.length)).toEqual([3, 3, 1]);
    expect(settled.map((s) => s.item)).toEqual(items);
    expect(settled.every((s) => s.settlement === 'acked')).toBe(true);
  });

  it('should cut batches by bytes within the writer limits, counting the per-record overhead', async () => {
    const writer = new FakeWriter({ maxRecords: 100, maxBytes: 100, maxRecordBytes: 100, recordOverheadBytes: 1 });
    const { runner, settled } = setup(writer, { batching: { maxBytes: 10_000 } });
    for (let i = 0; i < 10; i++) runner.enqueue(item(30));
    await runner.flush();
    // 3 records of 31 counted bytes fit in 100; a fourth would not.
    expect(writer.batches.map((b) => b.length)).toEqual([3, 3, 3, 1]);
    expect(settled).toHaveLength(10);
  });

  it('should wait for the linger time before writing a batch that is not full', async () => {
    const writer = new FakeWriter();
    const { runner, clock } = setup(writer, { batching: { maxRecords: 10, lingerMs: 250 } });
    const start = clock.now();
    runner.enqueue(item());
    runner.enqueue(item());
    await new Promise((r) => setImmediate(r));
    expect(writer.batches).toHaveLength(0);
    while (writer.batches.length === 0) await new Promise((r) => setImmediate(r));
    expect(clock.now() - start).toBe(250);
    expect(writer.batches[0]).toHaveLength(2);
  });

  it('should retry a failed batch with exponential backoff and full jitter, then acknowledge it', async () => {
    const writer = new FakeWriter(undefined, [unreachable(), unreachable(), unreachable()]);
    const { runner, settled, clock, destinationId } = setup(writer, { retry: { baseDelayMs: 100, maxDelayMs: 300 } });
    runner.enqueue(item());
    await runner.flush();
    // random() = 0.999 of caps 100, 200 and then 400 capped at 300.
    expect(clock.sleeps).toEqual([99, 199, 299]);
    expect(writer.batches).toHaveLength(4);
    expect(settled.map((s) => s.settlement)).toEqual(['acked']);
    expect(await count(destinationId, 'retried')).toBe(3);
    expect(await count(destinationId, 'failed')).toBe(3);
    expect(await count(destinationId, 'ok')).toBe(1);
  });

  it('should wait at least as long as the destination asked in Retry-After', async () => {
    const throttled = new DeliveryError('DESTINATION_THROTTLED', 'slow down', { retryAfterMs: 7000 });
    const writer = new FakeWriter(undefined, [throttled]);
    const { runner, clock } = setup(writer);
    runner.enqueue(item());
    await runner.flush();
    expect(clock.sleeps).toEqual([7000]);
  });

  it('should retry only the failed items of a partial failure and dead-letter the non-retryable ones', async () => {
    const items = Array.from({ length: 4 }, (_, i) => item(20, { topic: 'edge.traffic', partition: 2, offset: 10 + i }));
    const [a, b, c, d] = items as [DeliveryItem, DeliveryItem, DeliveryItem, DeliveryItem];
    const writer = new FakeWriter(undefined, [
      () => ({
        failed: [
          { item: b, error: new DeliveryError('DESTINATION_THROTTLED', 'throttled') },
          { item: c, error: new DeliveryError('DESTINATION_REJECTED', 'bad request') },
        ],
      }),
    ]);
    const { runner, settled, deadLetter, destinationId } = setup(writer);
    items.forEach((i) => runner.enqueue(i));
    await runner.flush();
    expect(writer.batches).toEqual([[a, b, c, d], [b]]);
    const byItem = new Map(settled.map((s) => [s.item, s.settlement]));
    expect([...byItem.entries()]).toHaveLength(4);
    expect(byItem.get(c)).toBe('dead_lettered');
    expect([a, b, d].map((i) => byItem.get(i))).toEqual(['acked', 'acked', 'acked']);
    expect(deadLetter.letters).toHaveLength(1);
    expect(deadLetter.letters[0]).toMatchObject({
      value: c.payload,
      key: c.eventId,
      source: { topic: 'edge.traffic', partition: 2, offset: 12 },
      errorCode: 'DESTINATION_REJECTED',
      destinationId,
    });
  });

  it('should dead-letter a record over the per-record limit without writing it', async () => {
    const writer = new FakeWriter({ maxRecords: 10, maxBytes: 1000, maxRecordBytes: 50, recordOverheadBytes: 0 });
    const { runner, settled, deadLetter, budget } = setup(writer);
    const big = item(51);
    const small = item(50);
    runner.enqueue(big);
    runner.enqueue(small);
    await runner.flush();
    expect(writer.written).toEqual([small]);
    expect(deadLetter.letters.map((l) => [l.key, l.errorCode])).toEqual([[big.eventId, 'RECORD_TOO_LARGE']]);
    expect(settled.find((s) => s.item === big)?.settlement).toBe('dead_lettered');
    expect(budget.usedDeliveries).toBe(0);
  });

  it('should send a record bigger than the preferred batch size alone when the writer takes it', async () => {
    const writer = new FakeWriter({ maxRecords: 10, maxBytes: 1000, maxRecordBytes: 1000, recordOverheadBytes: 0 });
    const { runner, deadLetter } = setup(writer, { batching: { maxBytes: 100 } });
    const [a, big, b] = [item(40), item(300), item(40)];
    for (const i of [a, big, b]) runner.enqueue(i);
    await runner.flush();
    expect(writer.batches).toEqual([[a], [big], [b]]);
    expect(deadLetter.letters).toEqual([]);
  });

  it('should call the budget-exhausted hook after the attempt budget and settle the items as parked', async () => {
    const writer = new FakeWriter(undefined, [], unreachable());
    const calls: number[] = [];
    const { runner, settled, destinationId } = setup(writer, {
      retry: { maxAttempts: 3 },
      onBudgetExhausted: async (ctx) => {
        calls.push(ctx.attempts);
        expect(ctx.lastError.code).toBe('DESTINATION_UNREACHABLE');
        return 'parked';
      },
    });
    runner.enqueue(item());
    runner.enqueue(item());
    await runner.flush();
    expect(calls).toEqual([3]);
    expect(writer.batches).toHaveLength(3);
    expect(settled.map((s) => s.settlement)).toEqual(['parked', 'parked']);
    expect(await count(destinationId, 'parked')).toBe(2);
  });

  it('should dead-letter with its reason an item the budget-exhausted hook could not park, and settle the rest as parked', async () => {
    const writer = new FakeWriter(undefined, [], unreachable());
    const [small, big] = [item(), item(500)];
    const tooLarge = new DeliveryError('RECORD_TOO_LARGE', 'over the retry topic limit');
    const { runner, settled, deadLetter } = setup(writer, {
      retry: { maxAttempts: 1 },
      onBudgetExhausted: async () => ({ parkedExcept: [{ item: big!, error: tooLarge }] }),
    });
    runner.enqueue(small!);
    runner.enqueue(big!);
    await runner.flush();
    expect(settled.map((s) => [s.item.eventId, s.settlement])).toEqual([
      [small!.eventId, 'parked'],
      [big!.eventId, 'dead_lettered'],
    ]);
    expect(deadLetter.letters.map((l) => [l.key, l.errorCode, l.errorMessage])).toEqual([[big!.eventId, 'RECORD_TOO_LARGE', 'over the retry topic limit']]);
  });

  it('should keep retrying past the budget by default and deliver once the destination recovers', async () => {
    const writer = new FakeWriter(undefined, Array.from({ length: 7 }, unreachable));
    const { runner, settled } = setup(writer, { retry: { maxAttempts: 3, maxDelayMs: 1000 } });
    runner.enqueue(item());
    await runner.flush();
    expect(writer.batches).toHaveLength(8);
    expect(settled.map((s) => s.settlement)).toEqual(['acked']);
  });

  it('should not sleep past the time budget even when the destination asks for a longer Retry-After', async () => {
    const throttled = () => new DeliveryError('DESTINATION_THROTTLED', 'slow down', { retryAfterMs: 60_000 });
    const writer = new FakeWriter(undefined, [], throttled());
    let parkedAt: number | undefined;
    const { runner, clock } = setup(writer, {
      retry: { maxAttempts: 100, maxElapsedMs: 5_000, baseDelayMs: 100 },
      onBudgetExhausted: async () => {
        parkedAt = clock.now();
        return 'parked';
      },
    });
    const start = clock.now();
    runner.enqueue(item());
    await runner.flush();
    expect(parkedAt === undefined ? undefined : parkedAt - start).toBe(5_000);
    expect(writer.batches).toHaveLength(2);
  });

  it('should start a new budget window when the elapsed-time budget is spent', async () => {
    const writer = new FakeWriter(undefined, Array.from({ length: 6 }, unreachable));
    let hookCalls = 0;
    const { runner } = setup(writer, {
      retry: { maxAttempts: 100, maxElapsedMs: 1500, baseDelayMs: 1000, maxDelayMs: 1000 },
      onBudgetExhausted: async () => {
        hookCalls++;
        return 'keep_retrying';
      },
    });
    runner.enqueue(item());
    await runner.flush();
    // Each wait is 999 ms: the 3rd failure finds 1998 ms spent and opens a new window at that
    // moment, the 5th finds 1998 ms again; the 6th is only 999 ms into the third window.
    expect(hookCalls).toBe(2);
  });

  it('should park later batches after one attempt while the destination stays down, and give a full budget again after it recovers', async () => {
    const writer = new FakeWriter(undefined, [], unreachable());
    const { runner, settled } = setup(writer, {
      batching: { maxRecords: 1, lingerMs: 0 },
      retry: { maxAttempts: 100, maxElapsedMs: 1000, baseDelayMs: 100 },
      onBudgetExhausted: async () => 'parked',
    });
    for (let i = 0; i < 3; i++) runner.enqueue(item());
    await runner.flush();
    // Waits of 99, 199, 399 and 799 ms put the 5th attempt 1496 ms into the outage.
    expect(writer.batches.map((b) => b.length)).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect(settled.map((s) => s.settlement)).toEqual(['parked', 'parked', 'parked']);
    await deliverOnceThenFail(writer, runner);
    expect(writer.batches).toHaveLength(7 + 1 + 5);
    expect(settled.map((s) => s.settlement)).toEqual(['parked', 'parked', 'parked', 'acked', 'parked']);
  });

  it('should park later batches after one attempt when the attempt budget, not the time budget, parked the first', async () => {
    const writer = new FakeWriter(undefined, [], unreachable());
    const { runner, settled } = setup(writer, {
      batching: { maxRecords: 1, lingerMs: 0 },
      retry: { maxAttempts: 3, maxElapsedMs: 120_000, baseDelayMs: 100 },
      onBudgetExhausted: async () => 'parked',
    });
    runner.enqueue(item());
    await runner.flush();
    expect(writer.batches).toHaveLength(3);
    // Still down, well inside the time budget: one attempt each, as the first's three showed it down.
    for (let i = 0; i < 2; i++) runner.enqueue(item());
    await runner.flush();
    expect(writer.batches).toHaveLength(3 + 2);
    expect(settled.map((s) => s.settlement)).toEqual(['parked', 'parked', 'parked']);
    // Back: a batch that fails after a delivery gets its whole attempt budget again.
    await deliverOnceThenFail(writer, runner);
    expect(writer.batches).toHaveLength(3 + 2 + 1 + 3);
  });

  it('should keep delivering to a healthy destination while another keeps failing', async () => {
    const broken = new FakeWriter(undefined, [], unreachable());
    const healthy = new FakeWriter();
    const clock = new VirtualClock();
    const budget = new InFlightBudget();
    const shared = { budget, clock, deadLetter: new RecordingDeadLetterSink(), onSettled: () => undefined };
    const a = new DestinationRunner({ ...shared, destinationId: 'ed_broken', writer: broken });
    const b = new DestinationRunner({ ...shared, destinationId: 'ed_healthy', writer: healthy, batching: { lingerMs: 0 } });
    a.start();
    b.start();
    for (let i = 0; i < 5; i++) {
      const it = item();
      a.enqueue(it);
      b.enqueue(it);
    }
    await b.flush();
    expect(healthy.written).toHaveLength(5);
    expect(a.queued + broken.batches.length).toBeGreaterThan(0);
    const closed = await a.close(5_000);
    expect(closed).toEqual({ drained: false, abandoned: 5 });
    expect(budget.usedDeliveries).toBe(0);
  });

  it('should drain everything queued when closed, then close the writer and refuse new items', async () => {
    const writer = new FakeWriter(undefined, [unreachable()]);
    const { runner, settled } = setup(writer, { batching: { maxRecords: 2, lingerMs: 60_000 } });
    for (let i = 0; i < 5; i++) runner.enqueue(item());
    const result = await runner.close(30_000);
    expect(result).toEqual({ drained: true, abandoned: 0 });
    expect(settled).toHaveLength(5);
    expect(writer.closes).toBe(1);
    expect(runner.enqueue(item())).toBe(false);
  });

  it('should abandon unsettled deliveries at the close deadline without acknowledging them', async () => {
    const writer = new FakeWriter(undefined, [], unreachable());
    const { runner, settled, budget } = setup(writer, { retry: { maxDelayMs: 1000 } });
    for (let i = 0; i < 3; i++) runner.enqueue(item());
    const result = await runner.close(10_000);
    expect(result).toEqual({ drained: false, abandoned: 3 });
    expect(settled).toHaveLength(0);
    expect(budget.usedDeliveries).toBe(0);
    expect(writer.closes).toBe(1);
  });

  it('should hold in-flight budget until settlement and release it after', async () => {
    let release: (() => void) | undefined;
    const writer = new FakeWriter(undefined, [
      () =>
        new Promise((resolve) => {
          release = () => resolve({ failed: [] });
        }),
    ]);
    const budget = new InFlightBudget({ maxDeliveries: 2, maxBytes: 1 << 20 });
    const { runner } = setup(writer, { budget });
    runner.enqueue(item(10));
    runner.enqueue(item(10));
    expect(budget.usedDeliveries).toBe(2);
    expect(budget.usedBytes).toBe(20);
    expect(budget.hasCapacity()).toBe(false);
    const capacity = budget.whenCapacity();
    while (release === undefined) await new Promise((r) => setImmediate(r));
    release();
    await capacity;
    expect(budget.usedDeliveries).toBe(0);
    expect(budget.hasCapacity()).toBe(true);
  });

  it('should not settle a dead-lettered item before the dead-letter sink accepted it', async () => {
    let accept: (() => void) | undefined;
    const writer = new FakeWriter(undefined, [new DeliveryError('DESTINATION_REJECTED', '400')]);
    const deadLetter = new RecordingDeadLetterSink();
    deadLetter.send = () =>
      new Promise<void>((resolve) => {
        accept = resolve;
      });
    const { runner, settled } = setup(writer, { deadLetter });
    runner.enqueue(item());
    while (accept === undefined) await new Promise((r) => setImmediate(r));
    expect(settled).toHaveLength(0);
    accept();
    await runner.flush();
    expect(settled.map((s) => s.settlement)).toEqual(['dead_lettered']);
  });

  it('should park refused events the dead-letter topic refused for good, settle those it took, and show why on the status', async () => {
    const writer = new FakeWriter(undefined, [new DeliveryError('DESTINATION_REJECTED', 'InvalidArgument (HTTP 400)')]);
    const deadLetter = new RecordingDeadLetterSink();
    const sends: number[] = [];
    deadLetter.send = async (letters) => {
      sends.push(letters.length);
      // The first letter is written, the rest refused for good (a non-retryable broker answer).
      throw new DeadLetterError('The dead-letter topic edge.dlq refused 2 records: TOPIC_AUTHORIZATION_FAILED: no', letters.slice(1), { retryable: false });
    };
    const hooked: Array<{ items: readonly DeliveryItem[]; error: DeliveryError }> = [];
    const { runner, settled } = setup(writer, {
      deadLetter,
      onBudgetExhausted: async (ctx) => {
        hooked.push({ items: ctx.items, error: ctx.lastError });
        return 'parked';
      },
    });
    const items = [item(), item(), item()];
    for (const i of items) runner.enqueue(i);
    await runner.flush();
    // One send, not retried; what it wrote is dead-lettered, the rest parked.
    expect(sends).toEqual([3]);
    expect(settled.map((s) => [s.item, s.settlement])).toEqual([
      [items[0], 'dead_lettered'],
      [items[1], 'parked'],
      [items[2], 'parked'],
    ]);
    expect(hooked[0]?.items).toEqual([items[1], items[2]]);
    expect(hooked[0]?.error.code).toBe('DEAD_LETTER_FAILED');
    const status = runner.health.status;
    expect(status.state).toBe('parked');
    expect(status.lastError?.code).toBe('DEAD_LETTER_FAILED');
    expect(status.lastError?.message).toContain('refused 2 events for good (DESTINATION_REJECTED: InvalidArgument (HTTP 400))');
    expect(status.lastError?.message).toContain('TOPIC_AUTHORIZATION_FAILED');
  });

  it('should park refused events whose dead letters were not acknowledged by the deadline, without waiting longer', async () => {
    const writer = new FakeWriter(undefined, [new DeliveryError('DESTINATION_REJECTED', '400')]);
    const deadLetter = new RecordingDeadLetterSink();
    // A dead-letter topic that never answers; the send gives up when its signal aborts, as the sink does.
    deadLetter.send = (letters, signal) =>
      new Promise<void>((_, reject) =>
        signal?.addEventListener('abort', () => reject(new DeadLetterError('Dead-lettering stopped before the broker acknowledged 1 letters.', letters, { retryable: true }))),
      );
    const { runner, settled } = setup(writer, { deadLetter, clock: systemClock, parkAfterMs: 200, onBudgetExhausted: async () => 'parked' });
    const started = Date.now();
    runner.enqueue(item());
    await runner.flush();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(settled.map((s) => s.settlement)).toEqual(['parked']);
    expect(runner.health.status.lastError?.message).toContain('the dead-letter topic did not acknowledge them within 0.2 s');
  });

  it('should discard queued items of a revoked partition and release their budget', async () => {
    const writer = new FakeWriter();
    const { runner, budget } = setup(writer, { batching: { lingerMs: 60_000, maxRecords: 100 } });
    runner.enqueue(item(20, { topic: 't', partition: 0, offset: 1 }));
    runner.enqueue(item(20, { topic: 't', partition: 1, offset: 1 }));
    expect(runner.discard((i) => i.source?.partition === 1)).toBe(1);
    expect(budget.usedDeliveries).toBe(1);
    await runner.flush();
    expect(writer.written.map((i) => i.source?.partition)).toEqual([0]);
  });

  it('should treat a throwing settlement listener as settled and keep going', async () => {
    const writer = new FakeWriter();
    const { runner, budget } = setup(writer, {
      onSettled: () => {
        throw new Error('listener bug');
      },
    });
    runner.enqueue(item());
    runner.enqueue(item());
    await runner.flush();
    expect(budget.usedDeliveries).toBe(0);
  });

  describe('with parkAfterMs', () => {
    /** A delivery of a consumed record (it holds its partition), or a re-driven one (its source is a retry topic). */
    const consumed = (n: number): DeliveryItem => ({ ...item(), source: { topic: 'edge.tcp', partition: 0, offset: n, reading: 1 } });
    const reDriven = (n: number): DeliveryItem => ({ ...item(), source: { topic: 'edge.retry.ed_x', partition: 0, offset: n } });
    const answerAfter = (ms: number) => () => new Promise<WriteOutcome>((resolve) => setTimeout(() => resolve(DELIVERED), ms));

    function slowSetup(writer: FakeWriter) {
      const hooked: Array<{ items: readonly DeliveryItem[]; error: DeliveryError }> = [];
      const onBudgetExhausted: OnBudgetExhausted = async (ctx) => {
        hooked.push({ items: ctx.items, error: ctx.lastError });
        return 'parked';
      };
      const s = setup(writer, { clock: systemClock, parkAfterMs: 100, onBudgetExhausted });
      const settlementOf = (i: DeliveryItem) => s.settled.find((x) => x.item === i)?.settlement;
      return { ...s, hooked, settlementOf };
    }

    it('should park the deliveries of consumed records in a write not answered in time, and keep re-driven ones waiting for its answer', async () => {
      const writer = new FakeWriter(undefined, [answerAfter(400), answerAfter(400)]);
      const { runner, hooked, settlementOf } = slowSetup(writer);
      const held = [consumed(0), consumed(1)];
      held.forEach((i) => runner.enqueue(i));
      await runner.flush();
      expect(held.map(settlementOf)).toEqual(['parked', 'parked']);
      expect(hooked[0]?.error.code).toBe('DESTINATION_TIMEOUT');
      expect(hooked[0]?.error.message).toContain('PARK_AFTER_MS');
      const started = Date.now();
      const again = [reDriven(0), reDriven(1)];
      again.forEach((i) => runner.enqueue(i));
      await runner.flush();
      expect(again.map(settlementOf)).toEqual(['acked', 'acked']);
      expect(Date.now() - started).toBeGreaterThanOrEqual(350);
      expect(hooked).toHaveLength(1);
    });

    it('should park the deliveries of consumed records rather than wait for a retry that would begin past parkAfterMs', async () => {
      const writer = new FakeWriter(undefined, [], unreachable());
      let parkedAt: number | undefined;
      const { runner, clock, settled } = setup(writer, {
        parkAfterMs: 1_000,
        retry: { maxAttempts: 100, maxElapsedMs: 120_000, baseDelayMs: 100, maxDelayMs: 5_000 },
        onBudgetExhausted: async () => {
          parkedAt = clock.now();
          return 'parked';
        },
      });
      const start = clock.now();
      runner.enqueue(consumed(0));
      await runner.flush();
      // Waits of 99, 199 and 399 ms; the next, 799 ms, would begin the 5th attempt 1,496 ms after the event came.
      expect(parkedAt === undefined ? undefined : parkedAt - start).toBe(697);
      expect(writer.batches).toHaveLength(4);
      expect(settled.map((s) => s.settlement)).toEqual(['parked']);
    });

    it('should park new deliveries of consumed records at once once a write was cut short, probe with them, and write them again once a probe answers in time', async () => {
      const writer = new FakeWriter(undefined, [answerAfter(1_000)]);
      const { runner, settlementOf, hooked } = slowSetup(writer);
      const first = consumed(0);
      runner.enqueue(first);
      await runner.flush();
      expect(settlementOf(first)).toBe('parked');
      // Slow now: the next one is parked without waiting, and written once more as a probe, which answers at once.
      const next = consumed(1);
      runner.enqueue(next);
      await runner.flush();
      expect(settlementOf(next)).toBe('parked');
      expect(hooked[1]?.error.message).toContain('new ones are parked at once');
      while (writer.batches.length < 2) await new Promise((r) => setTimeout(r, 5));
      expect(writer.batches[1]).toEqual([next]);
      await new Promise((r) => setTimeout(r, 20));
      // The probe answered within half of parkAfterMs: new deliveries are written again.
      const after = consumed(2);
      runner.enqueue(after);
      await runner.flush();
      expect(settlementOf(after)).toBe('acked');
      expect(writer.batches[2]).toEqual([after]);
    });

    it('should probe with no more than one write takes, and try again at once when the fail-fast circuit refused the probe', async () => {
      const unhealthy = new DeliveryError('DESTINATION_UNHEALTHY', 'parked: failing fast');
      const writer = new FakeWriter({ maxRecords: 2, maxBytes: 1 << 20, maxRecordBytes: 1 << 20, recordOverheadBytes: 0 }, [answerAfter(1_000), unhealthy]);
      const { runner, settlementOf } = slowSetup(writer);
      runner.enqueue(consumed(0));
      await runner.flush();
      // Five at once: parked together, probed with the two a write takes; the circuit refuses that probe.
      const five = [1, 2, 3, 4, 5].map(consumed);
      five.forEach((i) => runner.enqueue(i));
      await runner.flush();
      while (writer.batches.length < 2) await new Promise((r) => setTimeout(r, 5));
      expect(writer.batches[1]).toEqual(five.slice(0, 2));
      await new Promise((r) => setTimeout(r, 5));
      // Within the probe interval, yet probed again: the refused probe did not reach the destination. It answers now.
      const next = consumed(6);
      runner.enqueue(next);
      await runner.flush();
      expect(settlementOf(next)).toBe('parked');
      while (writer.batches.length < 3) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, 5));
      const after = consumed(7);
      runner.enqueue(after);
      await runner.flush();
      expect(settlementOf(after)).toBe('acked');
    });

    it('should keep parking new deliveries of consumed records at once, unwritten, while its writes stay slow', async () => {
      const writer = new FakeWriter(undefined, [], answerAfter(1_000));
      const { runner, settlementOf } = slowSetup(writer);
      runner.enqueue(consumed(0));
      await runner.flush();
      const later = [consumed(1), consumed(2), consumed(3)];
      for (const i of later) {
        runner.enqueue(i);
        await runner.flush();
      }
      expect(later.map(settlementOf)).toEqual(['parked', 'parked', 'parked']);
      // The cut-short write and one probe (at most one a parkAfterMs): the rest were never written.
      expect(writer.batches).toHaveLength(2);
    });

    it('should give up queued deliveries of consumed records whose park is cut off by a stop, so they are read again', async () => {
      const writer = new FakeWriter(undefined, [answerAfter(5_000)]);
      const abandoned: DeliveryItem[] = [];
      const { runner } = setup(writer, {
        clock: systemClock,
        parkAfterMs: 100,
        onAbandoned: (items) => abandoned.push(...items),
        // A retry topic that does not answer: the park ends only when the stop aborts it.
        onBudgetExhausted: (ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('stopped')))),
      });
      runner.enqueue(reDriven(0));
      while (writer.batches.length === 0) await new Promise((r) => setImmediate(r));
      const queued = [consumed(0), consumed(1)];
      queued.forEach((i) => runner.enqueue(i));
      await new Promise((r) => setTimeout(r, 300));
      const closed = await runner.close(200);
      expect(abandoned).toEqual(expect.arrayContaining(queued));
      expect(closed.drained).toBe(false);
    });

    it('should park queued deliveries of consumed records that waited behind a write, without writing them', async () => {
      const writer = new FakeWriter(undefined, [answerAfter(600)]);
      const { runner, hooked, settlementOf } = slowSetup(writer);
      const first = reDriven(0);
      runner.enqueue(first);
      while (writer.batches.length === 0) await new Promise((r) => setImmediate(r));
      const queued = [consumed(0), consumed(1)];
      queued.forEach((i) => runner.enqueue(i));
      await runner.flush();
      expect(queued.map(settlementOf)).toEqual(['parked', 'parked']);
      expect(settlementOf(first)).toBe('acked');
      expect(writer.batches).toEqual([[first]]);
      expect(hooked.map((h) => h.items)).toEqual([queued]);
      expect(hooked[0]?.error.message).toContain("waited 0.1 s behind the destination's writes");
    });
  });
});
