// Collects every message of some topics from the beginning, for tests that count what a worker delivered.
import type { Consumer, Kafka } from 'kafkajs';
import { uniqueName } from './kafka.js';

export interface Collected {
  readonly topic: string;
  readonly key: string | null;
  readonly value: string;
}

export class TopicCollector {
  readonly messages: Collected[] = [];
  private consumer: Consumer | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly topics: string[],
  ) {}

  async start(): Promise<void> {
    const consumer = this.kafka.consumer({ groupId: uniqueName('collector'), maxWaitTimeInMs: 250 });
    await consumer.connect();
    await consumer.subscribe({ topics: this.topics, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic, message }) => {
        this.messages.push({ topic, key: message.key === null ? null : String(message.key), value: String(message.value) });
      },
    });
    this.consumer = consumer;
  }

  /** Waits until at least `min` messages arrived and then none for `quietMs`; fails after `timeoutMs`. */
  async settled(min: number, quietMs = 2_000, timeoutMs = 90_000): Promise<void> {
    const start = Date.now();
    while (this.messages.length < min) {
      if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms with ${this.messages.length} of at least ${min} messages`);
      await new Promise((r) => setTimeout(r, 200));
    }
    for (let seen = -1; seen !== this.messages.length; ) {
      seen = this.messages.length;
      await new Promise((r) => setTimeout(r, quietMs));
    }
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}
