import { describe, expect, it } from 'vitest';
import type { DeliveryItem } from '../../../../src/delivery/contract.js';
import { DestinationRunner } from '../../../../src/delivery/destination-runner.js';
import { DeliveryError } from '../../../../src/delivery/errors.js';
import { decodeRecord, type HistoryRecord } from '../../../../src/delivery/history/history-record.js';
import { HistoryRecorder } from '../../../../src/delivery/history/history-recorder.js';
import { InFlightBudget } from '../../../../src/delivery/in-flight-budget.js';
import { eventIdOf } from '../../../../src/ids.js';
import type { KafkaClient, OutgoingMessage } from '../../../../src/kafka/seam.js';
import { createRootLogger } from '../../../../src/telemetry/logger.js';
import { FakeWriter, RecordingDeadLetterSink, VirtualClock } from '../fakes.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const D = 'ed_01JD3000000000000000000001';
const S = 'esb_01JD3000000000000000000001';

/** Just the producer calls the recorder makes; `down` makes sends fail. */
class RecordingKafka {
  readonly sends: Array<{ topic: string; messages: OutgoingMessage[] }> = [];
  down = false;
  idempotentProducer() {
    return {
      connect: async () => undefined,
      close: async () => undefined,
      send: async (topic: string, messages: readonly OutgoingMessage[]) => {
        if (this.down) throw new Error('the broker is down');
        this.sends.push({ topic, messages: [...messages] });
      },
    };
  }
  records(topic: string): HistoryRecord[] {
    return this.sends.filter((s) => s.topic === topic).flatMap((s) => s.messages.map((m) => decodeRecord(m.value as Buffer) as HistoryRecord));
  }
}

let offset = 0;
/** A consumed record's delivery, its record stamped `recordTime`. */
const consumed = (recordTime: number): DeliveryItem => {
  const o = offset++;
  return { eventId: eventIdOf(recordTime, 't', 0, o, S, D), payload: Buffer.from('"0123456789"'), source: { topic: 't', partition: 0, offset: o, reading: 1 }, subscriptionId: S };
};

function setup() {
  const kafka = new RecordingKafka();
  const clock = new VirtualClock();
  clock.t = 1_000 * HOUR + 5 * MINUTE;
  const recorder = new HistoryRecorder({
    kafka: kafka as unknown as KafkaClient,
    topics: { minutes: 'edge.history', hours: 'edge.history.hours' },
    workerId: 'w1',
    minuteMs: MINUTE,
    clock,
    logger: createRootLogger({ write: () => undefined }, 'info'),
  });
  return { kafka, clock, recorder };
}

describe('history recorder', () => {
  it("should count a runner's deliveries into the open minute, and publish each closed minute and hour", async () => {
    const { kafka, clock, recorder } = setup();
    const writer = new FakeWriter(undefined, [new DeliveryError('DESTINATION_SERVER_ERROR', 'HTTP 503'), 'ok', (batch) => ({ failed: batch.map((item) => ({ item, error: new DeliveryError('DESTINATION_REJECTED', 'HTTP 400') })) })]);
    const runner = new DestinationRunner({
      destinationId: D,
      writer,
      budget: new InFlightBudget({ maxDeliveries: 100, maxBytes: 1 << 20 }),
      deadLetter: new RecordingDeadLetterSink(),
      onSettled: () => undefined,
      clock,
      random: () => 0,
      batching: { lingerMs: 0 },
      tally: recorder.forDestination(D),
    });
    runner.start();
    const recordTime = clock.t - 300;
    runner.enqueue(consumed(recordTime));
    runner.enqueue(consumed(recordTime));
    await runner.flush();
    runner.enqueue(consumed(recordTime));
    await runner.flush();
    const minuteStart = Math.floor(clock.t / MINUTE) * MINUTE;

    // Nothing goes out while the minute is open.
    await recorder.publish();
    expect(kafka.sends).toEqual([]);

    clock.t = minuteStart + MINUTE;
    await recorder.publish();
    const [minute] = kafka.records('edge.history');
    expect(minute).toMatchObject({ worker: 'w1', start: minuteStart, lengthMs: MINUTE });
    const c = minute?.points[0]?.counters;
    expect(minute?.points.map((p) => [p.destination, p.subscription])).toEqual([[D, S]]);
    expect({ matched: c?.matched, delivered: c?.delivered, bytes: c?.deliveredBytes, dead: c?.deadLettered, failures: Object.fromEntries(c?.failures ?? []) }).toEqual({
      matched: 3,
      delivered: 2,
      bytes: 24,
      dead: 1,
      failures: { DESTINATION_SERVER_ERROR: 2, DESTINATION_REJECTED: 1 },
    });
    // Record time to acknowledgement: 300 ms, in the bucket up to 500.
    expect(c?.quantile(0.5)).toBe(500);
    expect(kafka.records('edge.history.hours')).toEqual([]);

    // The hour goes out once it has ended, with every minute of it.
    runner.enqueue(consumed(clock.t));
    await runner.flush();
    clock.t = Math.ceil(clock.t / HOUR) * HOUR;
    await recorder.publish();
    const [hour] = kafka.records('edge.history.hours');
    expect(hour).toMatchObject({ start: clock.t - HOUR, lengthMs: HOUR });
    expect(hour?.points[0]?.counters.matched).toBe(4);
    await runner.close(1_000);
  });

  it('should count parked deliveries, and re-driven ones apart from the matched', async () => {
    const { kafka, clock, recorder } = setup();
    const writer = new FakeWriter(undefined, [], new DeliveryError('DESTINATION_UNREACHABLE', 'connection refused'));
    const runner = new DestinationRunner({
      destinationId: D,
      writer,
      budget: new InFlightBudget({ maxDeliveries: 100, maxBytes: 1 << 20 }),
      deadLetter: new RecordingDeadLetterSink(),
      onSettled: () => undefined,
      clock,
      random: () => 0,
      batching: { lingerMs: 0 },
      retry: { maxAttempts: 1 },
      onBudgetExhausted: async () => 'parked',
      tally: recorder.forDestination(D),
    });
    runner.start();
    runner.enqueue(consumed(clock.t));
    runner.enqueue(consumed(clock.t));
    await runner.flush();
    // A re-driven delivery: its source is the retry topic, no reading of a consumed partition.
    writer.fallback = 'ok';
    const parked = consumed(clock.t - 5_000);
    runner.enqueue({ ...parked, source: { topic: 'edge.retry.ed_1', partition: 0, offset: 0 } });
    await runner.flush();
    clock.t = Math.floor(clock.t / MINUTE) * MINUTE + MINUTE;
    await recorder.publish();
    const c = kafka.records('edge.history')[0]?.points[0]?.counters;
    expect({ matched: c?.matched, parked: c?.parked, redriven: c?.redriven, delivered: c?.delivered, failures: Object.fromEntries(c?.failures ?? []) }).toEqual({
      matched: 2,
      parked: 2,
      redriven: 1,
      delivered: 1,
      failures: { DESTINATION_UNREACHABLE: 2 },
    });
    // Its latency counts from its record's time, 5 s before, parking included.
    expect(c?.quantile(0.5)).toBe(5_000);
    await runner.close(1_000);
  });

  it('should keep closed minutes while the topic cannot be written, and send them once it can', async () => {
    const { kafka, clock, recorder } = setup();
    const tally = recorder.forDestination(D);
    kafka.down = true;
    tally.queued(consumed(clock.t));
    clock.t += MINUTE;
    await recorder.publish();
    tally.queued(consumed(clock.t));
    clock.t += MINUTE;
    await recorder.publish();
    expect(kafka.sends).toEqual([]);
    kafka.down = false;
    await recorder.publish();
    expect(kafka.records('edge.history').map((r) => r.points[0]?.counters.matched)).toEqual([1, 1]);
  });

  it('should not send a topic its periods again when only the other topic refused its send', async () => {
    const { kafka, clock, recorder } = setup();
    const tally = recorder.forDestination(D);
    tally.queued(consumed(clock.t));
    clock.t = Math.ceil(clock.t / HOUR) * HOUR;
    const send = kafka.idempotentProducer().send;
    let hourDown = true;
    kafka.idempotentProducer = () => ({
      connect: async () => undefined,
      close: async () => undefined,
      send: async (topic: string, messages: readonly OutgoingMessage[]) => {
        if (topic === 'edge.history.hours' && hourDown) throw new Error('the hour topic is away');
        return send(topic, messages);
      },
    });
    await recorder.publish();
    hourDown = false;
    await recorder.publish();
    expect(kafka.records('edge.history').map((r) => r.points[0]?.counters.matched)).toEqual([1]);
    expect(kafka.records('edge.history.hours').map((r) => r.points[0]?.counters.matched)).toEqual([1]);
  });

  it('should send the open minute and hour when it stops', async () => {
    const { kafka, clock, recorder } = setup();
    recorder.forDestination(D).queued(consumed(clock.t));
    await recorder.stop();
    expect(kafka.records('edge.history').map((r) => r.points[0]?.counters.matched)).toEqual([1]);
    expect(kafka.records('edge.history.hours').map((r) => r.points[0]?.counters.matched)).toEqual([1]);
  });
});
