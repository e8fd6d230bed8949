import { describe, expect, it, onTestFinished } from 'vitest';
import { KafkaDeadLetterSink } from '../../../src/delivery/dead-letter.js';
import { BrokerProxy } from '../../support/broker-proxy.js';
import { consumeUntil, createTopics, testBrokers, testClient, uniqueName } from '../../support/kafka.js';

/** A proxy in front of the broker that the test can take down (broker-proxy.ts), stopped after the test. */
async function breakableBroker(): Promise<BrokerProxy> {
  const proxy = await BrokerProxy.start(testBrokers());
  onTestFinished(() => proxy.stop());
  return proxy;
}

describe('kafka dead-letter sink', () => {
  it('should write bad input records with their source and error headers', async () => {
    const kafka = testClient();
    const topic = uniqueName('edge.dlq');
    await createTopics(kafka, [{ topic }]);
    const sink = new KafkaDeadLetterSink({ kafka: testClient(), topic });
    await sink.send([
      {
        value: Buffer.from([0xde, 0xad]),
        key: 'k1',
        source: { topic: 'edge.traffic.http_request_complete.v0', partition: 4, offset: 1234 },
        errorCode: 'DECODE_FAILED',
        errorMessage: 'not Avro',
        headers: { 'content-type': 'avro/binary' },
      },
    ]);
    await sink.close();
    const [letter] = await consumeUntil(kafka, { topics: [topic], until: (m) => m.length >= 1 });
    expect(letter?.key).toBe('k1');
    expect(letter?.headers).toEqual({
      'content-type': 'avro/binary',
      'x-source-topic': 'edge.traffic.http_request_complete.v0',
      'x-source-partition': '4',
      'x-source-offset': '1234',
      'x-error-code': 'DECODE_FAILED',
      'x-error-message': 'not Avro',
    });
  });

  it('should keep retrying through a broker outage and deliver once it ends', async () => {
    const topic = uniqueName('edge.dlq.outage');
    await createTopics(testClient(), [{ topic }]);
    const breakable = await breakableBroker();
    const sink = new KafkaDeadLetterSink({ kafka: breakable.client('dlq-outage', { retries: 2, requestTimeoutMs: 5_000 }), topic, retry: { baseDelayMs: 50, maxDelayMs: 300, maxAttempts: 1, maxElapsedMs: 1, maxRetryAfterMs: 1 } });
    await breakable.disrupt();
    let done = false;
    const sending = sink.send([{ value: Buffer.from('{}'), key: 'ev_x', errorCode: 'DESTINATION_REJECTED', errorMessage: '400', destinationId: 'ed_1' }]).then(() => {
      done = true;
    });
    await new Promise((r) => setTimeout(r, 2500));
    expect(done).toBe(false);
    await breakable.restore();
    await sending;
    await sink.close();
    const got = await consumeUntil(testClient(), { topics: [topic], until: (m) => m.length >= 1 });
    expect(got[0]?.headers['x-destination-id']).toBe('ed_1');
  });

  it('should give up with DEAD_LETTER_FAILED only when told to stop, so the record stays uncommitted', async () => {
    const breakable = await breakableBroker();
    await breakable.disrupt();
    const sink = new KafkaDeadLetterSink({ kafka: breakable.client('dlq-abort', { retries: 2, requestTimeoutMs: 5_000 }), topic: uniqueName('edge.dlq.abort') });
    const abort = new AbortController();
    const sending = sink.send([{ value: null, errorCode: 'X', errorMessage: 'y' }], abort.signal);
    setTimeout(() => abort.abort(), 1500);
    await expect(sending).rejects.toMatchObject({ code: 'DEAD_LETTER_FAILED' });
    await sink.close();
  });
});
