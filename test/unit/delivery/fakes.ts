// Fakes for the delivery unit tests: a scriptable writer, a recording dead-letter sink and a virtual clock.
import type { Clock } from '../../../src/delivery/clock.js';
import { DELIVERED, type DeliveryItem, type DestinationWriter, type WriteOutcome, type WriterLimits } from '../../../src/delivery/contract.js';
import type { DeadLetter, DeadLetterSink } from '../../../src/delivery/dead-letter.js';
import { DeliveryError } from '../../../src/delivery/errors.js';

let seq = 0;

/** An item whose payload is exactly `size` bytes (a JSON string, so it stays valid JSON). */
export function item(size = 20, source?: { topic: string; partition: number; offset: number }): DeliveryItem {
  const eventId = `ev_${String(++seq).padStart(8, '0')}`;
  return { eventId, payload: Buffer.from(`"${'x'.repeat(Math.max(0, size - 2))}"`), ...(source && { source }) };
}

export type Step = 'ok' | DeliveryError | ((batch: readonly DeliveryItem[]) => WriteOutcome | Promise<WriteOutcome>);

/** A writer that records each batch and answers from a script; once the script is used up it succeeds. */
export class FakeWriter implements DestinationWriter {
  readonly kind = 'fake';
  readonly batches: DeliveryItem[][] = [];
  connects = 0;
  closes = 0;
  constructor(
    readonly limits: WriterLimits = { maxRecords: 1000, maxBytes: 1 << 20, maxRecordBytes: 1 << 20, recordOverheadBytes: 0 },
    private readonly script: Step[] = [],
    public fallback: Step = 'ok',
  ) {}

  async connect(): Promise<void> {
    this.connects++;
  }

  async write(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    this.batches.push([...batch]);
    const step = this.script.shift() ?? this.fallback;
    if (step === 'ok') return DELIVERED;
    if (step instanceof DeliveryError) throw step;
    return step(batch);
  }

  async healthcheck(): Promise<void> {}

  async close(): Promise<void> {
    this.closes++;
  }

  /** Every item handed to write(), in order, including retries. */
  get written(): DeliveryItem[] {
    return this.batches.flat();
  }
}

export class RecordingDeadLetterSink implements DeadLetterSink {
  readonly letters: DeadLetter[] = [];
  async send(letters: readonly DeadLetter[], _signal?: AbortSignal): Promise<void> {
    this.letters.push(...letters);
  }
  async close(): Promise<void> {}
}

/**
 * Virtual time for runner tests: a pending sleep fires only once the test's async work has settled
 * (a few event-loop turns), and then the clock jumps to its due time. Earlier-due sleeps fire first, so
 * backoff waits, linger and drain deadlines interleave as they would in real time, without waiting.
 */
export class VirtualClock implements Clock {
  t = 1_000_000;
  /** Every requested wait, in call order. */
  readonly sleeps: number[] = [];
  private timers: Array<{ due: number; fire: () => void }> = [];
  private pumping = false;

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) return Promise.resolve();
    this.sleeps.push(ms);
    return new Promise((resolve) => {
      const onAbort = (): void => {
        this.timers = this.timers.filter((x) => x !== timer);
        resolve();
      };
      const timer = {
        due: this.t + Math.max(0, ms),
        fire: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      this.timers.push(timer);
      signal?.addEventListener('abort', onAbort, { once: true });
      void this.pump();
    });
  }

  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    while (this.timers.length > 0) {
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
      if (this.timers.length === 0) break;
      const next = this.timers.reduce((a, b) => (b.due < a.due ? b : a));
      this.timers = this.timers.filter((x) => x !== next);
      this.t = Math.max(this.t, next.due);
      next.fire();
    }
    this.pumping = false;
  }
}
