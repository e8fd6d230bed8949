// Unit tests of the lazily connected producer against a fake client seam (no broker needed).
import { describe, expect, it } from 'vitest';
import { LazyProducer } from '../../../src/kafka/lazy-producer.js';
import type { IdempotentProducer, IdempotentProducerOptions, KafkaClient } from '../../../src/kafka/seam.js';

const RETRY = { retries: 2 };

/** A fake producer whose connect waits until the test lets it finish, and succeeds or fails as told. */
class FakeProducer implements IdempotentProducer {
  connects = 0;
  closes = 0;
  private finish: ((err?: Error) => void) | undefined;

  constructor(
    readonly options: IdempotentProducerOptions,
    private readonly manual: boolean,
    private readonly failWith?: Error,
  ) {}

  connect(): Promise<void> {
    this.connects++;
    if (this.failWith !== undefined) return Promise.reject(this.failWith);
    if (!this.manual) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.finish = (err) => (err === undefined ? resolve() : reject(err));
    });
  }

  /** Ends a connect started in manual mode. */
  finishConnect(): void {
    if (this.finish === undefined) throw new Error('No connect is waiting.');
    this.finish();
  }

  send(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.closes++;
    return Promise.resolve();
  }
}

/** A fake client handing out FakeProducers; `failures` makes the next connects fail in turn. */
function fakeKafka(options: { manual?: boolean; failures?: Error[] } = {}): { kafka: KafkaClient; made: FakeProducer[] } {
  const made: FakeProducer[] = [];
  const failures = [...(options.failures ?? [])];
  const kafka = {
    idempotentProducer: (o: IdempotentProducerOptions) => {
      const producer = new FakeProducer(o, options.manual ?? false, failures.shift());
      made.push(producer);
      return producer;
    },
  } as unknown as KafkaClient;
  return { kafka, made };
}

describe('LazyProducer', () => {
  it('should create no producer until first asked, then an idempotent one with the given retries', async () => {
    const { kafka, made } = fakeKafka();
    const lazy = new LazyProducer(kafka, { ...RETRY });
    expect(made).toHaveLength(0);
    const producer = await lazy.get();
    expect(made).toHaveLength(1);
    expect(producer).toBe(made[0]);
    expect(made[0]!.options).toEqual(RETRY);
    expect(made[0]!.connects).toBe(1);
  });

  it('should give every later caller the same connected producer', async () => {
    const { kafka, made } = fakeKafka();
    const lazy = new LazyProducer(kafka, { ...RETRY });
    const first = await lazy.get();
    expect(await lazy.get()).toBe(first);
    expect(made).toHaveLength(1);
    expect(made[0]!.connects).toBe(1);
  });

  it('should share one connect among callers that ask while it is in flight', async () => {
    const { kafka, made } = fakeKafka({ manual: true });
    const lazy = new LazyProducer(kafka, { ...RETRY });
    const asked = [lazy.get(), lazy.get(), lazy.get()];
    await Promise.resolve();
    expect(made).toHaveLength(1);
    made[0]!.finishConnect();
    const got = await Promise.all(asked);
    expect(new Set(got).size).toBe(1);
    expect(made[0]!.connects).toBe(1);
  });

  it('should close a producer whose connect failed and connect a fresh one on the next call', async () => {
    const refused = new Error('connect ECONNREFUSED');
    const { kafka, made } = fakeKafka({ failures: [refused] });
    const lazy = new LazyProducer(kafka, { ...RETRY });
    await expect(lazy.get()).rejects.toBe(refused);
    expect(made[0]!.closes).toBe(1);
    const producer = await lazy.get();
    expect(made).toHaveLength(2);
    expect(producer).toBe(made[1]);
  });

  it('should reject a failed connect with the error connectError makes of it', async () => {
    const refused = new Error('connect ECONNREFUSED');
    const { kafka } = fakeKafka({ failures: [refused] });
    const lazy = new LazyProducer(kafka, { ...RETRY, connectError: (err) => new Error('mapped', { cause: err }) });
    await expect(lazy.get()).rejects.toMatchObject({ message: 'mapped', cause: refused });
  });

  it('should close the producer on reset and connect a new one on the next call', async () => {
    const { kafka, made } = fakeKafka();
    const lazy = new LazyProducer(kafka, { ...RETRY });
    const first = await lazy.get();
    await lazy.reset();
    expect(made[0]!.closes).toBe(1);
    const second = await lazy.get();
    expect(second).not.toBe(first);
    expect(made).toHaveLength(2);
  });

  it('should do nothing on reset before anything connected', async () => {
    const { kafka, made } = fakeKafka();
    const lazy = new LazyProducer(kafka, { ...RETRY });
    await lazy.reset();
    expect(made).toHaveLength(0);
  });

  it('should close the producer on close, allow a second close and refuse every later call', async () => {
    const { kafka, made } = fakeKafka();
    const lazy = new LazyProducer(kafka, { ...RETRY });
    await lazy.get();
    await lazy.close();
    await lazy.close();
    expect(made[0]!.closes).toBe(1);
    await expect(lazy.get()).rejects.toThrow('The producer is closed.');
    expect(made).toHaveLength(1);
  });

  it('should reject calls after close with the error closedError makes', async () => {
    const { kafka } = fakeKafka();
    const lazy = new LazyProducer(kafka, { ...RETRY, closedError: () => new Error('writer closed') });
    await lazy.close();
    await expect(lazy.get()).rejects.toThrow('writer closed');
  });

  it('should close a producer whose connect finished after close and reject its callers as closed', async () => {
    const { kafka, made } = fakeKafka({ manual: true });
    const lazy = new LazyProducer(kafka, { ...RETRY, closedError: () => new Error('writer closed') });
    const asked = lazy.get();
    await Promise.resolve();
    await lazy.close();
    made[0]!.finishConnect();
    await expect(asked).rejects.toThrow('writer closed');
    expect(made[0]!.closes).toBe(1);
  });
});
