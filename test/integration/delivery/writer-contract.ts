// The shared conformance suite every destination writer passes against its real service: open and
// close, batches, limits, lossless delivery through a reconnect, and a clean shutdown.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryItem, DestinationWriter, WriteOutcome } from '../../../src/delivery/contract.js';
import type { DeadLetter, DeadLetterSink } from '../../../src/delivery/dead-letter.js';
import { DestinationRunner } from '../../../src/delivery/destination-runner.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import type { Settlement } from '../../../src/delivery/runner-options.js';
import { makeEnvelope, type Envelope } from '../../../src/events/envelope.js';

/** One destination under test, backed by its real service. */
export interface ContractTarget {
  /** A writer for a fresh, empty destination. */
  createWriter(): Promise<DestinationWriter>;
  /** Everything delivered so far (duplicates kept), waiting up to a few seconds for at least `atLeast` events. */
  readBack(atLeast: number): Promise<Envelope[]>;
  /** Makes the destination unreachable for the writer; restore() brings it back. */
  disrupt(): Promise<void>;
  restore(): Promise<void>;
  cleanup(): Promise<void>;
}

let offset = 0;

/** An event and its delivery item, as the pipeline would build them. `pad` grows the payload. */
export function testItem(pad = 0): { item: DeliveryItem; envelope: Envelope } {
  const envelope = makeEnvelope('tcp_connection_closed.v0', {
    conn: { client_ip: '192.0.2.7', server_port: 443, bytes_in: offset * 10 },
    note: 'p'.repeat(pad),
  });
  const item = {
    eventId: envelope.event_id,
    payload: Buffer.from(JSON.stringify(envelope)),
    envelope,
    source: { topic: 'edge.traffic.tcp_connection_closed.v0', partition: 0, offset: offset++ },
  };
  return { item, envelope };
}

export function testItems(n: number, pad = 0): DeliveryItem[] {
  return Array.from({ length: n }, () => testItem(pad).item);
}

export class RecordingDeadLetters implements DeadLetterSink {
  readonly letters: DeadLetter[] = [];
  async send(letters: readonly DeadLetter[]): Promise<void> {
    this.letters.push(...letters);
  }
  async close(): Promise<void> {}
}

/** Wraps a writer to see every batch it is handed and every failure it reports. */
export class SpyWriter implements DestinationWriter {
  readonly batches: Array<{ records: number; bytes: number }> = [];
  readonly failures: string[] = [];
  constructor(readonly inner: DestinationWriter) {}
  get kind(): string {
    return this.inner.kind;
  }
  get limits() {
    return this.inner.limits;
  }
  connect(): Promise<void> {
    return this.inner.connect();
  }
  async write(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    const overhead = this.inner.limits.recordOverheadBytes;
    this.batches.push({ records: batch.length, bytes: batch.reduce((n, i) => n + i.payload.length + overhead, 0) });
    try {
      const outcome = await this.inner.write(batch);
      for (const f of outcome.failed) this.failures.push(f.error.code);
      return outcome;
    } catch (err) {
      this.failures.push((err as { code?: string }).code ?? String(err));
      throw err;
    }
  }
  healthcheck(): Promise<void> {
    return this.inner.healthcheck();
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

export function idsOf(envelopes: readonly Envelope[]): Set<string> {
  return new Set(envelopes.map((e) => e.event_id));
}

function runnerFor(writer: DestinationWriter, deadLetter: DeadLetterSink = new RecordingDeadLetters()) {
  const settled = new Map<DeliveryItem, Settlement>();
  const runner = new DestinationRunner({
    destinationId: 'ed_contract',
    writer,
    budget: new InFlightBudget(),
    deadLetter,
    onSettled: (item, s) => settled.set(item, s),
    batching: { maxRecords: 100_000, maxBytes: 64 * 1024 * 1024, lingerMs: 20 },
    retry: { baseDelayMs: 50, maxDelayMs: 400 },
  });
  runner.start();
  return { runner, settled };
}

export function describeWriterContract(kind: string, setup: () => Promise<ContractTarget>): void {
  describe(`${kind} writer contract`, () => {
    let target: ContractTarget;
    beforeEach(async () => {
      target = await setup();
    });
    afterEach(async () => {
      await target.cleanup();
    });

    it('should open, pass its health check, close twice and refuse writes after close', async () => {
      const writer = await target.createWriter();
      await writer.connect();
      await writer.healthcheck();
      await writer.close();
      await writer.close();
      await expect(writer.write(testItems(1))).rejects.toMatchObject({ code: 'WRITER_CLOSED', retryable: true });
    });

    it('should have every event of several batches delivered, intact, when write() resolves', async () => {
      const writer = await target.createWriter();
      await writer.connect();
      const sent = [testItems(1), testItems(17), testItems(250)];
      for (const batch of sent) expect((await writer.write(batch)).failed).toEqual([]);
      const expected = sent.flat().map((i) => i.envelope);
      const got = await target.readBack(expected.length);
      const byId = new Map(got.map((e) => [e.event_id, e]));
      expect(byId.size).toBe(expected.length);
      for (const e of expected) expect(byId.get(e!.event_id)).toEqual(e);
      await writer.close();
    });

    it('should take batches at its limits and never be handed more, dead-lettering a record over the per-record limit', async () => {
      const spy = new SpyWriter(await target.createWriter());
      const deadLetter = new RecordingDeadLetters();
      const { runner, settled } = runnerFor(spy, deadLetter);
      const { limits } = runner;
      // Count-bound: tiny records, twice the count limit and one more.
      const small = testItems(limits.maxRecords * 2 + 1);
      // Byte-bound: records of about 40% of the byte limit, so at most two fit a batch.
      const bigPad = Math.min(Math.floor(limits.maxBytes * 0.4), limits.maxRecordBytes - 1000);
      const big = testItems(5, bigPad);
      const tooBig = testItem(limits.maxRecordBytes + 1).item;
      for (const i of [...small, ...big, tooBig]) runner.enqueue(i);
      await runner.flush();
      for (const b of spy.batches) {
        expect(b.records).toBeLessThanOrEqual(limits.maxRecords);
        expect(b.bytes).toBeLessThanOrEqual(limits.maxBytes);
      }
      // Where the count limit cannot be reached with real envelopes before the byte limit (CloudWatch Logs:
      // 10,000 events in 1 MiB), the small records must fill batches to the byte limit instead.
      const smallSize = (small[0]?.payload.length ?? 0) + limits.recordOverheadBytes;
      if (limits.maxRecords * smallSize <= limits.maxBytes) {
        expect(spy.batches.some((b) => b.records === limits.maxRecords)).toBe(true);
      } else {
        expect(spy.batches.some((b) => b.bytes > limits.maxBytes - smallSize - 16)).toBe(true);
      }
      expect(deadLetter.letters.map((l) => [l.key, l.errorCode])).toEqual([[tooBig.eventId, 'RECORD_TOO_LARGE']]);
      expect(settled.get(tooBig)).toBe('dead_lettered');
      const delivered = [...small, ...big];
      expect(delivered.every((i) => settled.get(i) === 'acked')).toBe(true);
      const got = idsOf(await target.readBack(delivered.length));
      expect(delivered.filter((i) => !got.has(i.eventId))).toEqual([]);
      expect(got.has(tooBig.eventId)).toBe(false);
      await runner.close();
    });

    it('should lose nothing when the destination goes away mid-stream and comes back', async () => {
      const spy = new SpyWriter(await target.createWriter());
      const { runner, settled } = runnerFor(spy);
      const items = testItems(300);
      const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
      for (const i of items.slice(0, 100)) runner.enqueue(i);
      await runner.flush();
      await target.disrupt();
      for (const [n, i] of items.slice(100, 200).entries()) {
        runner.enqueue(i);
        if (n % 25 === 0) await pause(50);
      }
      // Let the writer hit the outage and retry before the destination returns.
      const deadline = Date.now() + 20_000;
      while (spy.failures.length < 2 && Date.now() < deadline) await pause(50);
      expect(spy.failures.length).toBeGreaterThanOrEqual(2);
      await target.restore();
      for (const i of items.slice(200)) runner.enqueue(i);
      await runner.flush();
      expect(items.filter((i) => settled.get(i) !== 'acked')).toEqual([]);
      const got = idsOf(await target.readBack(items.length));
      expect(items.filter((i) => !got.has(i.eventId)).map((i) => i.eventId)).toEqual([]);
      await runner.close();
    });

    it('should drain everything queued on close before it resolves', async () => {
      const spy = new SpyWriter(await target.createWriter());
      const settled = new Map<DeliveryItem, Settlement>();
      const runner = new DestinationRunner({
        destinationId: 'ed_contract_close',
        writer: spy,
        budget: new InFlightBudget(),
        deadLetter: new RecordingDeadLetters(),
        onSettled: (item, s) => settled.set(item, s),
        // A linger far beyond the test: only close() can make these batches go.
        batching: { maxRecords: 1000, lingerMs: 600_000 },
      });
      runner.start();
      const items = testItems(120);
      for (const i of items) runner.enqueue(i);
      expect(await runner.close(30_000)).toEqual({ drained: true, abandoned: 0 });
      expect(items.every((i) => settled.get(i) === 'acked')).toBe(true);
      const got = idsOf(await target.readBack(items.length));
      expect(items.filter((i) => !got.has(i.eventId))).toEqual([]);
      await expect(spy.write(testItems(1))).rejects.toMatchObject({ code: 'WRITER_CLOSED' });
    });
  });
}
