// The seam's group consumer over kafkajs's eachBatch: kafkajs heartbeats only when asked (from inside a
// batch), reads every assigned partition again from its committed offset after a join, and waits for
// running batches before it rejoins or disconnects.
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { CommitTimer, STOP_FLUSH_MS } from '../commit-timer.js';
import type { BatchHandler, GroupConsumer, GroupConsumerOptions, GroupListener } from '../seam.js';

/** The coordinator's answers to a heartbeat that the listener hears about (Kafka's protocol error names). */
const GROUP_ERRORS = new Set(['REBALANCE_IN_PROGRESS', 'ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'FENCED_INSTANCE_ID']);

export class KafkajsGroupConsumer implements GroupConsumer {
  private readonly consumer: Consumer;
  private isConnected = false;
  /** Joins and crashes so far: after either, kafkajs reads every assigned partition again from its committed offset. */
  private reading = 0;
  // At most one commit per partition in flight, the latest offset winning; sent on the next tick, not gathered.
  private readonly commits = new CommitTimer(async (offsets) => {
    await this.consumer.commitOffsets(offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: String(o.offset) })));
  }, 0);

  constructor(
    kafka: Kafka,
    private readonly options: GroupConsumerOptions,
    private readonly listener: GroupListener,
  ) {
    this.consumer = kafka.consumer({
      groupId: options.groupId,
      maxWaitTimeInMs: options.maxWaitMs,
      readUncommitted: false,
      allowAutoTopicCreation: false,
      sessionTimeout: options.sessionTimeoutMs,
      heartbeatInterval: options.heartbeatIntervalMs,
      rebalanceTimeout: options.rebalanceTimeoutMs ?? Math.max(60_000, options.sessionTimeoutMs),
    });
    const c = this.consumer;
    c.on(c.events.GROUP_JOIN, (e) => {
      this.reading++;
      listener.onJoin?.(e.payload.memberAssignment, { memberId: e.payload.memberId, durationMs: e.payload.duration });
    });
    c.on(c.events.CONNECT, () => (this.isConnected = true));
    c.on(c.events.DISCONNECT, () => (this.isConnected = false));
    c.on(c.events.CRASH, (e) => {
      this.reading++;
      listener.onCrash?.(e.payload.error, e.payload.restart);
    });
  }

  get connected(): boolean {
    return this.isConnected;
  }

  async start(handler: BatchHandler): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [...this.options.topics], fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.options.partitionsConcurrently ?? 1,
      eachBatch: (payload) => this.onBatch(payload, handler),
    });
  }

  commit(topic: string, partition: number, offset: number): Promise<void> {
    return this.commits.commit(topic, partition, offset);
  }

  async stop(): Promise<void> {
    await this.commits.flush(STOP_FLUSH_MS);
    await this.consumer.disconnect();
  }

  private async onBatch(payload: EachBatchPayload, handler: BatchHandler): Promise<void> {
    const { batch, heartbeat, isRunning, isStale, resolveOffset } = payload;
    await handler(
      { topic: batch.topic, partition: batch.partition, messages: batch.messages, highWatermark: batch.highWatermark, reading: this.reading },
      {
        heartbeat: () =>
          heartbeat().catch((err: unknown) => {
            const type = (err as { type?: unknown }).type;
            if (typeof type === 'string' && GROUP_ERRORS.has(type)) this.listener.onGroupError?.(type);
          }),
        // isStale() builds a key and looks up the group's seek offsets; callers ask it every few records.
        isStale: () => !isRunning() || isStale(),
        resolve: resolveOffset,
      },
    );
  }
}
