// Collects every message of some topics from the beginning, for tests that count what a worker delivered.
import type { KafkaClient } from '../../src/kafka/seam.js';
import { readTopics } from './kafka-tools.js';

export interface Collected {
  readonly topic: string;
  readonly key: string | null;
  readonly value: string;
}

export class TopicCollector {
  readonly messages: Collected[] = [];
  private reader: Awaited<ReturnType<typeof readTopics>> | undefined;

  constructor(
    private readonly kafka: KafkaClient,
    private readonly topics: string[],
  ) {}

  async start(): Promise<void> {
    this.reader = await readTopics(this.kafka, { topics: this.topics }, (m) => {
      this.messages.push({ topic: m.topic, key: m.key, value: m.value ?? 'null' });
    });
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
    await this.reader?.stop();
  }
}
