import { describe, expect, it, onTestFinished } from 'vitest';
import { DLQ_HEADERS, DeadLetterError, KafkaDeadLetterSink, type DeadLetter } from '../../../src/delivery/dead-letter.js';
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

  it("should write letters that together exceed the topic's max.message.bytes in pieces within it, and one over it alone without its value", async () => {
    const kafka = testClient();
    const topic = uniqueName('edge.dlq.small');
    const limit = 16 * 1024;
    await createTopics(kafka, [{ topic, config: { 'max.message.bytes': String(limit) } }]);
    const letter = (i: number, bytes: number): DeadLetter => ({
      value: Buffer.alloc(bytes, 'x'),
      key: `ev_${i}`,
      source: { topic: 'edge.http', partition: 0, offset: i },
      errorCode: 'DESTINATION_REJECTED',
      errorMessage: 'InvalidArgument (HTTP 400)',
      destinationId: 'ed_1',
    });
    // 200 letters of about 500 bytes: 100 KB, six times what one produce may carry; and one of 20 KB.
    const letters = [...Array.from({ length: 200 }, (_, i) => letter(i, 400)), letter(200, 20 * 1024)];
    const sink = new KafkaDeadLetterSink({ kafka: testClient(), topic });
    await sink.send(letters);
    await sink.close();
    const got = await consumeUntil(kafka, { topics: [topic], until: (m) => m.length >= letters.length });
    expect(got.map((m) => m.key)).toEqual(letters.map((l) => l.key));
    const big = got.find((m) => m.key === 'ev_200');
    expect(big?.value).toBeNull();
    expect(big?.headers[DLQ_HEADERS.sourceOffset]).toBe('200');
    expect(big?.headers[DLQ_HEADERS.errorCode]).toBe('DESTINATION_REJECTED');
    expect(big?.headers[DLQ_HEADERS.valueOmitted]).toMatch(new RegExp(`^\\d+ bytes with its headers; ${topic} takes at most ${limit} \\(max.message.bytes\\)$`));
  });

  it('should not retry letters the broker refuses for good, and name them', async () => {
    const kafka = testClient();
    const topic = uniqueName('edge.dlq.compacted');
    // A compacted topic refuses a record without a key with INVALID_RECORD, which no retry cures.
    await createTopics(kafka, [{ topic, compacted: true }]);
    const sink = new KafkaDeadLetterSink({ kafka: testClient(), topic });
    const keyless: DeadLetter = { value: Buffer.from('{}'), errorCode: 'DECODE_FAILED', errorMessage: 'not JSON' };
    const started = Date.now();
    const failure = await sink.send([keyless]).catch((err: unknown) => err);
    await sink.close();
    expect(failure).toBeInstanceOf(DeadLetterError);
    expect(failure).toMatchObject({ code: 'DEAD_LETTER_FAILED', retryable: false, unwritten: [keyless] });
    // The broker's own words (its answer carries INVALID_RECORD and UNKNOWN_SERVER_ERROR).
    expect((failure as Error).message).toContain('Compacted topic cannot accept message without key');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
