// The send loop that parking and dead-lettering share, against a fake cluster that checks each produce
// against the topic's max.message.bytes as a broker does (one record batch per produce, framing included).
import { describe, expect, it } from 'vitest';
import { RECORD_BATCH_OVERHEAD_BYTES, recordBytes } from '../../../src/kafka/record-limits.js';
import type { IdempotentProducer, KafkaClient, KafkaErrorKind, OutgoingMessage } from '../../../src/kafka/seam.js';
import { SendEnded, TopicSender } from '../../../src/delivery/topic-sender.js';
import { createLogger } from '../../../src/telemetry/logger.js';
import { VirtualClock } from './fakes.js';

class BrokerError extends Error {
  constructor(readonly apiId: string) {
    super(apiId);
  }
}

/**
 * A cluster with one topic: `limit` is the max.message.bytes it reports, `enforced` what its produces are
 * held to (the same unless a test changes one); `refuse` answers every produce with that Kafka error.
 */
class FakeCluster {
  limit = 1_000;
  enforced: number | undefined;
  limitReads = 0;
  sends = 0;
  refuse: string | undefined;
  readonly produced: OutgoingMessage[][] = [];

  client(): KafkaClient {
    const producer: IdempotentProducer = {
      connect: async () => undefined,
      close: async () => undefined,
      send: async (_topic, messages) => {
        this.sends++;
        if (this.refuse !== undefined) throw new BrokerError(this.refuse);
        if (messages.reduce((n, m) => n + recordBytes(m), RECORD_BATCH_OVERHEAD_BYTES) > (this.enforced ?? this.limit)) throw new BrokerError('MESSAGE_TOO_LARGE');
        this.produced.push([...messages]);
      },
    };
    const kinds: Record<string, KafkaErrorKind> = { MESSAGE_TOO_LARGE: 'too_large', TOPIC_AUTHORIZATION_FAILED: 'refused', NOT_LEADER_OR_FOLLOWER: 'other' };
    return {
      idempotentProducer: () => producer,
      admin: () => ({ close: async () => undefined }),
      errorKind: (err: unknown) => kinds[(err as BrokerError).apiId] ?? 'other',
      describeError: (err: unknown) => ({ code: (err as BrokerError).apiId, message: 'the broker said no' }),
    } as unknown as KafkaClient;
  }

  sender(clock = new VirtualClock()): TopicSender {
    return new TopicSender({
      kafka: this.client(),
      limitOf: async () => {
        this.limitReads++;
        return this.limit;
      },
      clock,
      log: createLogger('topic-sender-test'),
      what: 'the test topic',
    });
  }
}

const messages = (sizes: readonly number[]): OutgoingMessage[] => sizes.map((n, i) => ({ key: String(i), value: Buffer.alloc(n) }));

describe('topic sender', () => {
  it("should send what a single produce could not take in produces within the topic's limit, and hand back what is over it alone", async () => {
    const cluster = new FakeCluster();
    const sent = messages([300, 300, 300, 300, 300, 5_000, 300]);
    // Together they are over the limit: one produce of them all would be refused as too large.
    expect(sent.reduce((n, m) => n + recordBytes(m), RECORD_BATCH_OVERHEAD_BYTES)).toBeGreaterThan(cluster.limit);
    const oversize = await cluster.sender().send('t', sent);
    expect(oversize.map((o) => o.message.key)).toEqual(['5']);
    expect(oversize[0]).toMatchObject({ limit: 1_000 });
    expect(oversize[0]?.bytes).toBeGreaterThan(1_000);
    expect(cluster.produced.flat().map((m) => m.key)).toEqual(['0', '1', '2', '3', '4', '6']);
    expect(cluster.produced.length).toBeGreaterThan(1);
  });

  it('should not retry a write the broker refuses for good, and name what was not written', async () => {
    const cluster = new FakeCluster();
    cluster.refuse = 'TOPIC_AUTHORIZATION_FAILED';
    const sent = messages([100, 100]);
    const failure = await cluster
      .sender()
      .send('t', sent)
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SendEnded);
    expect(failure).toMatchObject({ reason: 'refused', unsent: sent });
    expect((failure as Error).message).toContain('TOPIC_AUTHORIZATION_FAILED');
    expect(cluster.sends).toBe(1);
  });

  it('should read the limit again after a too-large answer, and give up when the same limit refuses again', async () => {
    const cluster = new FakeCluster();
    const sender = cluster.sender();
    await sender.send('t', messages([100]));
    expect(cluster.limitReads).toBe(1);
    // The topic's limit shrank after it was read: one produce of both is refused, then each goes alone.
    cluster.limit = 400;
    cluster.produced.length = 0;
    expect(await sender.send('t', messages([300, 300]))).toEqual([]);
    expect(cluster.limitReads).toBe(2);
    expect(cluster.produced.map((chunk) => chunk.map((m) => m.key))).toEqual([['0'], ['1']]);
    // A broker stricter than the limit it reports: the same answer at the same limit is final, not retried for ever.
    cluster.enforced = 200;
    const failure = await sender.send('t', messages([300])).catch((err: unknown) => err);
    expect(failure).toMatchObject({ reason: 'refused' });
    expect((failure as Error).message).toContain('MESSAGE_TOO_LARGE');
    expect(cluster.limitReads).toBe(3);
  });

  it('should keep acknowledged chunks acknowledged when a later one fails, and stop when told', async () => {
    const cluster = new FakeCluster();
    const clock = new VirtualClock();
    const sender = cluster.sender(clock);
    let produces = 0;
    const client = cluster.client();
    const real = client.idempotentProducer({ retries: 0 });
    const flaky: IdempotentProducer = {
      ...real,
      send: async (topic, chunk) => {
        // The second produce fails retryably, every time.
        if (++produces >= 2) throw new BrokerError('NOT_LEADER_OR_FOLLOWER');
        return real.send(topic, chunk);
      },
    };
    (sender as unknown as { producer: { get: () => Promise<IdempotentProducer>; reset: () => Promise<void> } }).producer = { get: async () => flaky, reset: async () => undefined };
    const stop = new AbortController();
    const sending = sender.send('t', messages([400, 400, 400, 400]), stop.signal).catch((err: unknown) => err);
    while (produces < 4) await new Promise((r) => setTimeout(r, 1));
    stop.abort();
    const failure = await sending;
    expect(failure).toMatchObject({ reason: 'stopped' });
    expect(cluster.produced.flat().map((m) => m.key)).toEqual(['0', '1']);
    expect((failure as SendEnded<OutgoingMessage>).unsent.map((m) => m.key)).toEqual(['2', '3']);
  });
});
