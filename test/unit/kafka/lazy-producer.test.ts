// Unit tests of the lazily connected producer against a fake kafkajs client (no broker needed).
import type { Kafka, Producer, ProducerConfig } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { LazyProducer } from '../../../src/kafka/lazy-producer.js';

const RETRY = { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 };

/** A fake producer whose connect waits until the test lets it finish, and succeeds or fails as told. */
class FakeProducer {
  connects = 0;
  disconnects = 0;
  private finish: ((err?: Error) => void) | undefined;

  constructor(
    readonly config: ProducerConfig,
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

  disconnect(): Promise<void> {
    this.disconnects++;
    return Promise.resolve();
  }
}

/** A fake kafkajs client handing out FakeProducers; `failures` makes the next connects fail in turn. */
function fakeKafka(options: { manual?: boolean; failures?: Error[] } = {}): { kafka: Kafka; made: FakeProducer[] } {
  const made: FakeProducer[] = [];
  const failures = [...(options.failures ?? [])];
  const kafka = {
    producer: (config: ProducerConfig) => {
      const producer = new FakeProducer(config, options.manual ?? false, failures.shift());
      made.push(producer);
      return producer as unknown as Producer;
    },
  } as unknown as Kafka;
  return { kafka, made };
}

describe('LazyProducer', () => {
  it('should create no producer until first asked, then an idempotent one with the given retries', async () => {
    const { kafka, made } = fakeKafka();
    const lazy = new LazyProducer(kafka, { retry: RETRY });
    expect(made).toHaveLength(0);
    const producer = await lazy.get();
    expect(made).toHaveLength(1);
    expect(producer).toBe(made[0]);
    expect(made[0]!.config).toMatchObject({ idempotent: true, maxInFlightRequests: 1, retry: RETRY });
    expect(made[0]!.config.createPartitioner).toBeTypeOf('function');
    expect(made[0]!.connects).toBe(1);
  });

  it('should give every later caller the same connected producer', async () => {
    const { kafka, made } = fakeKafka();
    const lazy = new LazyProducer(kafka, { retry: RETRY });
    const first = await lazy.get();
    expect(await lazy.get()).toBe(first);
    expect(made).toHaveLength(1);
    expect(made[0]!.connects).toBe(1);
  });

  it('should share one connect among callers that ask while it is in flight', async () => {
    const { kafka, made } = fakeKafka({ manual: true });
    const lazy = new LazyProducer(kafka, { retry: RETRY });
    const asked = [lazy.get(), lazy.get(), lazy.get()];
    await Promise.resolve();
    expect(made).toHaveLength(1);
    made[0]!.finishConnect();
    const got = await Promise.all(asked);
    expect(new Set(got).size).toBe(1);
    expect(made[0]!.connects).toBe(1);
  });

  it('should disconnect a producer whose connect failed and connect a fresh one on the next call', async () => {
    const refused = new Error('connect ECONNREFUSED');
    const { kafka, made } = fakeKafka({ failures: [refused] });
    const lazy = new LazyProducer(kafka, { retry: RETRY });
    await expect(lazy.get()).rejects.toBe(refused);
    expect(made[0]!.disconnects).toBe(1);
    const producer = await lazy.get();
    expect(made).toHaveLength(2);
    expect(producer).toBe(made[1]);
  });

  it('should reject a failed connect with the error connectError makes of it', async () => {
    const refused = new Error('connect ECONNREFUSED');
    const { kafka } = fakeKafka({ failures: [refused] });
    const lazy = new LazyProducer(kafka, { retry: RETRY, connectError: (err) => new Error('mapped', { cause: err }) });
    await expect(lazy.get()).rejects.toMatchObject({ message: 'mapped', cause: refused });
  });

  it('should disconnect the producer on reset and connect a new one on the next call', async () => {
    const { kafka, made } = fakeKafka();
    const lazy = new LazyProducer(kafka, { retry: RETRY });
    const first = await lazy.get();
    await lazy.reset();
    expect(made[0]!.disconnects).toBe(1);
    const second = await lazy.get();
    expect(second).not.toBe(first);
    expect(made).toHaveLength(2);
  });

  it('should do nothing on reset before anything connected', async () => {
    const { kafka, made } = fakeKafka();
    const lazy = new LazyProducer(kafka, { retry: RETRY });
    await lazy.reset();
    expect(made).toHaveLength(0);
  });

  it('should disconnect on close, allow a second close and refuse every later call', async () => {
    const { kafka, made } = fakeKafka();
    const lazy = new LazyProducer(kafka, { retry: RETRY });
    await lazy.get();
    await lazy.close();
    await lazy.close();
    expect(made[0]!.disconnects).toBe(1);
    await expect(lazy.get()).rejects.toThrow('The producer is closed.');
    expect(made).toHaveLength(1);
  });

  it('should reject calls after close with the error closedError makes', async () => {
    const { kafka } = fakeKafka();
    const lazy = new LazyProducer(kafka, { retry: RETRY, closedError: () => new Error('writer closed') });
    await lazy.close();
    await expect(lazy.get()).rejects.toThrow('writer closed');
  });

  it('should disconnect a producer whose connect finished after close and reject its callers as closed', async () => {
    const { kafka, made } = fakeKafka({ manual: true });
    const lazy = new LazyProducer(kafka, { retry: RETRY, closedError: () => new Error('writer closed') });
    const asked = lazy.get();
    await Promise.resolve();
    await lazy.close();
    made[0]!.finishConnect();
    await expect(asked).rejects.toThrow('writer closed');
    expect(made[0]!.disconnects).toBe(1);
  });
});
