// A reader of one whole topic in a consumer group of its own: every process reads every message from the
// beginning (read-committed) and follows live; nothing is committed. The config log, the destination
// status board and the live tap's two sides read their topics this way.
import type { GroupConsumer, IncomingMessage, KafkaClient } from './seam.js';

export interface WholeTopicReaderOptions {
  /** A group id no other process uses, e.g. with a random suffix. */
  readonly groupId: string;
  readonly topic: string;
  /** How long the broker may hold a fetch waiting for records. */
  readonly maxWaitMs: number;
}

export class WholeTopicReader {
  private readonly consumer: GroupConsumer;

  constructor(kafka: KafkaClient, opts: WholeTopicReaderOptions) {
    this.consumer = kafka.groupConsumer({ groupId: opts.groupId, topics: [opts.topic], sessionTimeoutMs: 30_000, heartbeatIntervalMs: 3_000, maxWaitMs: opts.maxWaitMs });
  }

  /** Joins and starts reading; `onMessage` gets each message in offset order per partition. */
  async start(onMessage: (message: IncomingMessage) => void): Promise<void> {
    await this.consumer.start(async ({ messages }, scope) => {
      for (const m of messages) onMessage(m);
      const last = messages[messages.length - 1];
      if (last !== undefined) scope.resolve(last.offset);
    });
  }

  async stop(): Promise<void> {
    await this.consumer.stop();
  }
}
