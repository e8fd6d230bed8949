// The re-driver's own bookkeeping at a stop, with a consumer fake that hands it one batch of a retry
// topic and records what it resolves and commits (the real broker's side is in the integration tests).
import { describe, expect, it } from 'vitest';
import type { DeliveryItem, WriteOutcome } from '../../../../src/delivery/contract.js';
import { DestinationRunner } from '../../../../src/delivery/destination-runner.js';
import { DeliveryError } from '../../../../src/delivery/errors.js';
import { InFlightBudget } from '../../../../src/delivery/in-flight-budget.js';
import { toParkedMessage } from '../../../../src/delivery/parking/parked-record.js';
import { ReDriver, type ReDriverOptions } from '../../../../src/delivery/parking/re-driver.js';
import type { BatchHandler, GroupConsumer, GroupListener, IncomingMessage, KafkaClient } from '../../../../src/kafka/seam.js';
import { FakeWriter, RecordingDeadLetterSink, item } from '../fakes.js';

/** A consumer of one retry topic partition: joins with it, runs the batch handler once and lets stop wait for it. */
class OneBatchConsumer implements GroupConsumer {
  listener: GroupListener | undefined;
  readonly resolved: string[] = [];
  readonly commits: string[] = [];
  running = true;
  batch: Promise<void> | undefined;
  readonly connected = true;
  private handler: BatchHandler | undefined;

  async start(handler: BatchHandler): Promise<void> {
    this.handler = handler;
    this.join([0]);
  }
  /** A group join that gives this member `partitions` of the retry topic. */
  join(partitions: number[]): void {
    this.listener?.onJoin?.({ 'edge.retry.ed_test': partitions }, { memberId: 'm' });
  }
  async commit(_topic: string, _partition: number, offset: number): Promise<void> {
    this.commits.push(String(offset));
  }
  async stop(): Promise<void> {
    this.running = false;
    await this.batch;
  }

  deliver(topic: string, messages: IncomingMessage[]): void {
    this.batch = this.handler?.(
      { topic, partition: 0, messages, highWatermark: String(messages.length), reading: 0 },
      { heartbeat: async () => undefined, isStale: () => !this.running, resolve: (o) => this.resolved.push(o), holdNext: () => undefined },
    );
  }
}

function parked(items: readonly DeliveryItem[]): IncomingMessage[] {
  const error = new DeliveryError('DESTINATION_UNREACHABLE', 'down');
  return items.map((i, n) => {
    const m = toParkedMessage(i, 'ed_test', error, 1_000);
    return { key: Buffer.from(String(m.key)), value: m.value as Buffer, headers: m.headers, offset: String(n), timestamp: '1000' };
  });
}

/** A re-driver of one retry topic feeding a real runner with `writer`, its consumer handing batches by hand. */
async function setup(writer: FakeWriter, opts: Partial<ReDriverOptions> = {}): Promise<{ reDriver: ReDriver; runner: DestinationRunner; consumer: OneBatchConsumer }> {
  const consumer = new OneBatchConsumer();
  const reDriver: ReDriver = new ReDriver({
    kafka: {
      groupConsumer: (_options: unknown, listener: GroupListener) => {
        consumer.listener = listener;
        return consumer;
      },
    } as unknown as KafkaClient,
    destinationId: 'ed_test',
    topic: 'edge.retry.ed_test',
    groupId: 'g',
    runner: () => runner,
    exists: () => true,
    healthcheck: async () => undefined,
    deadLetter: new RecordingDeadLetterSink(),
    ...opts,
  });
  const runner = new DestinationRunner({
    destinationId: 'ed_test',
    writer,
    budget: new InFlightBudget(),
    deadLetter: new RecordingDeadLetterSink(),
    onSettled: (i, s) => reDriver.settle(i, s),
    batching: { lingerMs: 0 },
  });
  runner.start();
  await reDriver.start();
  return { reDriver, runner, consumer };
}

describe('re-driver', () => {
  it('should neither resolve nor commit re-driven deliveries that were still in flight when it stopped', async () => {
    // The destination takes the batch and never answers.
    const writer = new FakeWriter(undefined, [], () => new Promise<WriteOutcome>(() => undefined));
    const { reDriver, runner, consumer } = await setup(writer);
    consumer.deliver('edge.retry.ed_test', parked([item(), item(), item()]));
    while (writer.batches.length === 0) await new Promise((r) => setTimeout(r, 5));

    await reDriver.stop();
    expect({ resolved: consumer.resolved, commits: consumer.commits }).toEqual({ resolved: [], commits: [] });
    void runner.close(0);
  });

  it('should check the destination again at once when woken by a config change, instead of waiting out its backoff', async () => {
    const writer = new FakeWriter();
    let fixed = false;
    let checks = 0;
    const { reDriver, runner, consumer } = await setup(writer, {
      healthcheck: async () => {
        checks++;
        if (!fixed) throw new DeliveryError('DESTINATION_MISCONFIGURED', 'the secret cannot be opened');
      },
      // A minute between health checks: only a wake-up can make the next one come within the test.
      backoff: { baseDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    consumer.deliver('edge.retry.ed_test', parked([item(), item()]));
    while (checks === 0) await new Promise((r) => setTimeout(r, 5));
    fixed = true;
    reDriver.wake();
    const started = Date.now();
    await consumer.batch;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(writer.written).toHaveLength(2);
    expect(consumer.commits).toEqual(['2']);
    await reDriver.stop();
    await runner.close(0);
  });

  it('should not commit a partition the group gave to another member while its deliveries were in flight', async () => {
    // Issue 22, finding 8: the re-driver committed without checking it still owned the partition.
    let answer = (): void => undefined;
    const writer = new FakeWriter(undefined, [() => new Promise<WriteOutcome>((r) => (answer = () => r({ failed: [] })))]);
    const { reDriver, runner, consumer } = await setup(writer);
    consumer.deliver('edge.retry.ed_test', parked([item(), item()]));
    while (writer.batches.length === 0) await new Promise((r) => setTimeout(r, 5));
    // A join moves partition 0 elsewhere; the deliveries then settle.
    consumer.join([]);
    answer();
    await consumer.batch;
    expect(consumer.commits).toEqual([]);
    await reDriver.stop();
    await runner.close(0);
  });
});
