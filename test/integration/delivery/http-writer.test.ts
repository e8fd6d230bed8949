import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryItem } from '../../../src/delivery/contract.js';
import { KafkaDeadLetterSink, type DeadLetterSink } from '../../../src/delivery/dead-letter.js';
import { DestinationRunner } from '../../../src/delivery/destination-runner.js';
import { HttpWriter } from '../../../src/delivery/destinations/http/http-writer.js';
import { SIGNATURE_HEADER, verifySignature } from '../../../src/delivery/destinations/http/signature.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import type { Settlement } from '../../../src/delivery/runner-options.js';
import { TEST_EGRESS } from '../../support/writer-deps.js';
import { consumeUntil, createTopics, testClient, uniqueName } from '../../support/kafka.js';
import { HttpReceiver } from './http-receiver.js';
import { RecordingDeadLetters, SpyWriter, describeWriterContract, idsOf, testItems } from './writer-contract.js';

describeWriterContract('http', async () => {
  const receiver = new HttpReceiver();
  await receiver.start();
  return {
    createWriter: async () => new HttpWriter({ url: receiver.url, timeout_ms: 2000 }, { egress: TEST_EGRESS }),
    readBack: async () => receiver.delivered(),
    disrupt: () => receiver.stop(),
    restore: () => receiver.start(),
    cleanup: () => receiver.stop(),
  };
});

describe('http writer against a real receiver', () => {
  const secret = 'contract-test-secret-0123456789';
  let receiver: HttpReceiver;
  beforeEach(async () => {
    receiver = new HttpReceiver();
    await receiver.start();
  });
  afterEach(async () => {
    await receiver.stop();
  });

  function run(writer: SpyWriter, deadLetter: DeadLetterSink = new RecordingDeadLetters(), destinationId = 'ed_http_test') {
    const settled = new Map<DeliveryItem, Settlement>();
    const runner = new DestinationRunner({
      destinationId,
      writer,
      budget: new InFlightBudget(),
      deadLetter,
      onSettled: (item, s) => settled.set(item, s),
      batching: { lingerMs: 5 },
      retry: { baseDelayMs: 50, maxDelayMs: 200 },
    });
    runner.start();
    return { runner, settled };
  }

  it('should POST a JSON array with content-type application/json and a signature the receiver verifies', async () => {
    const writer = new HttpWriter({ url: receiver.url, secret }, { egress: TEST_EGRESS });
    const items = testItems(3);
    await writer.write(items);
    await writer.write(testItems(2));
    expect(receiver.requests).toHaveLength(2);
    for (const r of receiver.requests) {
      expect(r.method).toBe('POST');
      expect(r.headers['content-type']).toBe('application/json');
      expect(verifySignature(secret, r.headers[SIGNATURE_HEADER] as string, r.body)).toBe(true);
      expect(verifySignature('some-other-secret-000000', r.headers[SIGNATURE_HEADER] as string, r.body)).toBe(false);
    }
    expect(JSON.parse(receiver.requests[0]!.body.toString())).toEqual(items.map((i) => i.envelope));
  });

  it('should send no signature header when no secret is set', async () => {
    await new HttpWriter({ url: receiver.url }, { egress: TEST_EGRESS }).write(testItems(1));
    expect(receiver.requests[0]?.headers[SIGNATURE_HEADER]).toBeUndefined();
  });

  it('should retry a 429 no sooner than its Retry-After, then deliver', async () => {
    receiver.script = ({ n }) => (n === 0 ? { status: 429, headers: { 'retry-after': '1' } } : undefined);
    const spy = new SpyWriter(new HttpWriter({ url: receiver.url }, { egress: TEST_EGRESS }));
    const { runner, settled } = run(spy);
    const items = testItems(4);
    items.forEach((i) => runner.enqueue(i));
    await runner.flush();
    expect(spy.failures).toEqual(['DESTINATION_THROTTLED']);
    const [first, second] = receiver.requests;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
    expect(items.every((i) => settled.get(i) === 'acked')).toBe(true);
    expect(idsOf(receiver.delivered())).toEqual(new Set(items.map((i) => i.eventId)));
    await runner.close();
  });

  it('should retry 503 answers until the receiver accepts', async () => {
    receiver.script = ({ n }) => (n < 3 ? { status: 503 } : undefined);
    const spy = new SpyWriter(new HttpWriter({ url: receiver.url }, { egress: TEST_EGRESS }));
    const { runner, settled } = run(spy);
    const items = testItems(10);
    items.forEach((i) => runner.enqueue(i));
    await runner.flush();
    expect(spy.failures).toEqual(['DESTINATION_SERVER_ERROR', 'DESTINATION_SERVER_ERROR', 'DESTINATION_SERVER_ERROR']);
    expect(items.every((i) => settled.get(i) === 'acked')).toBe(true);
    expect(idsOf(receiver.delivered())).toEqual(new Set(items.map((i) => i.eventId)));
    await runner.close();
  });

  it('should retry a request that times out', async () => {
    receiver.script = ({ n }) => (n === 0 ? { status: 200, delayMs: 1500 } : undefined);
    const spy = new SpyWriter(new HttpWriter({ url: receiver.url, timeout_ms: 300 }, { egress: TEST_EGRESS }));
    const { runner, settled } = run(spy);
    const items = testItems(5);
    items.forEach((i) => runner.enqueue(i));
    await runner.flush();
    expect(spy.failures).toEqual(['DESTINATION_TIMEOUT']);
    expect(items.every((i) => settled.get(i) === 'acked')).toBe(true);
    await runner.close();
  });

  it('should dead-letter a 400 to the dead-letter topic with its source, error and destination headers, without retrying', async () => {
    const kafka = testClient('http-dlq-test');
    const dlqTopic = uniqueName('edge.dlq');
    await createTopics(kafka, [{ topic: dlqTopic }]);
    const deadLetter = new KafkaDeadLetterSink({ kafka: testClient('http-dlq-test'), topic: dlqTopic });
    receiver.script = () => ({ status: 400 });
    const spy = new SpyWriter(new HttpWriter({ url: receiver.url }, { egress: TEST_EGRESS }));
    const { runner, settled } = run(spy, deadLetter, 'ed_http_400');
    const items = testItems(3);
    items.forEach((i) => runner.enqueue(i));
    await runner.flush();
    expect(receiver.requests).toHaveLength(1);
    expect(items.every((i) => settled.get(i) === 'dead_lettered')).toBe(true);
    const letters = await consumeUntil(kafka, { topics: [dlqTopic], until: (got) => got.length >= 3 });
    expect(letters.map((l) => l.key).sort()).toEqual(items.map((i) => i.eventId).sort());
    for (const l of letters) {
      const item = items.find((i) => i.eventId === l.key)!;
      expect(l.value).toBe(item.payload.toString());
      expect(l.headers).toMatchObject({
        'x-source-topic': item.source!.topic,
        'x-source-partition': String(item.source!.partition),
        'x-source-offset': String(item.source!.offset),
        'x-error-code': 'DESTINATION_REJECTED',
        'x-destination-id': 'ed_http_400',
      });
      expect(l.headers['x-error-message']).toContain('400');
    }
    await runner.close();
    await deadLetter.close();
  });

  it('should not follow a redirect, and dead-letter the batch instead', async () => {
    receiver.script = () => ({ status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } });
    const writer = new HttpWriter({ url: receiver.url }, { egress: TEST_EGRESS });
    await expect(writer.write(testItems(1))).rejects.toMatchObject({ code: 'DESTINATION_REDIRECTED', retryable: false, status: 302 });
  });

  it('should report a refused connection as retryable and fail its health check', async () => {
    const writer = new HttpWriter({ url: receiver.url }, { egress: TEST_EGRESS });
    await writer.healthcheck();
    await receiver.stop();
    await expect(writer.write(testItems(1))).rejects.toMatchObject({ code: 'DESTINATION_UNREACHABLE', retryable: true });
    await expect(writer.healthcheck()).rejects.toMatchObject({ code: 'DESTINATION_UNHEALTHY' });
  });
});
