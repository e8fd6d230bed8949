// The API side of live taps (ARCHITECTURE.md "Live tap"): opens and closes taps on the requests topic,
// and reads the events topic, handing each message to the stream of this process that opened its tap.
import { randomUUID } from 'node:crypto';
import { LazyProducer } from '../kafka/lazy-producer.js';
import type { KafkaAdmin, KafkaClient } from '../kafka/seam.js';
import { WholeTopicReader } from '../kafka/whole-topic-reader.js';
import { createLogger } from '../telemetry/logger.js';
import { TAP_KIND_HEADER, type TapAck, type TapOpen, type TapRequest, type TapSkipped } from './tap-protocol.js';

const log = createLogger('tap');

/** What a stream hears of its tap. */
export interface TapListener {
  /** An event's payload (the envelope's JSON bytes). */
  event(payload: Buffer): void;
  /** A worker did not send this many events, over its share of the rate. */
  skipped(count: number): void;
  /** A worker applied the tap; `member` is its id in the ingest group. */
  ack(member: string | undefined): void;
}

export interface TapStreamsOptions {
  readonly kafka: KafkaClient;
  readonly requestsTopic: string;
  readonly eventsTopic: string;
  /** The workers' consumer group: its members are the workers a tap waits for. */
  readonly consumerGroup: string;
}

export class TapStreams {
  private readonly listeners = new Map<string, TapListener>();
  /** The account that opened each open tap, and the filter work per record of its sources. */
  private readonly openers = new Map<string, { readonly account: string; readonly cost: number }>();
  private readonly consumer: WholeTopicReader;
  private readonly producer: LazyProducer;
  private admin: KafkaAdmin | undefined;

  constructor(private readonly opts: TapStreamsOptions) {
    // Every API process reads every message and keeps those of its own taps; offsets are never committed.
    this.consumer = new WholeTopicReader(opts.kafka, { groupId: `edge-tap-streams-${randomUUID()}`, topic: opts.eventsTopic, maxWaitMs: 100 });
    this.producer = new LazyProducer(opts.kafka, { retries: 3 });
  }

  get open(): number {
    return this.listeners.size;
  }

  /** The taps `account` opened that are still open. */
  openBy(account: string): number {
    let n = 0;
    for (const o of this.openers.values()) if (o.account === account) n++;
    return n;
  }

  /** The filter work per record of the taps `account` opened that are still open. */
  costOf(account: string): number {
    let cost = 0;
    for (const o of this.openers.values()) if (o.account === account) cost += o.cost;
    return cost;
  }

  async start(): Promise<void> {
    // From the beginning (the topic keeps minutes): nothing produced after a tap opens can be missed.
    await this.consumer.start((message) => {
      const tap = message.key?.toString('utf8');
      const listener = tap === undefined ? undefined : this.listeners.get(tap);
      if (listener !== undefined && message.value !== null) this.dispatch(listener, String(message.headers?.[TAP_KIND_HEADER] ?? ''), message.value);
    });
  }

  async stop(): Promise<void> {
    const open = [...this.listeners.keys()];
    this.listeners.clear();
    this.openers.clear();
    await Promise.allSettled(open.map((tap) => this.send({ v: 1, op: 'close', tap })));
    await Promise.allSettled([this.consumer.stop(), this.producer.close(), this.admin?.close()]);
  }

  /**
   * Opens a tap `openedBy` an account, whose filters cost `cost` per record: the listener hears of it
   * from now on. Resolves to the member ids of the workers in the group, or undefined when they could
   * not be listed.
   */
  async openTap(request: TapOpen, listener: TapListener, openedBy: string, cost = 0): Promise<string[] | undefined> {
    this.listeners.set(request.tap, listener);
    this.openers.set(request.tap, { account: openedBy, cost });
    try {
      await this.send(request);
    } catch (err) {
      this.listeners.delete(request.tap);
      this.openers.delete(request.tap);
      throw err;
    }
    return this.workers();
  }

  /** Closes a tap (its end, or its client went away); the workers drop it. */
  closeTap(tap: string): void {
    this.openers.delete(tap);
    if (!this.listeners.delete(tap)) return;
    this.send({ v: 1, op: 'close', tap }).catch((err: unknown) => {
      // The workers drop the tap at its expiry anyway.
      log.warn({ err, tap }, 'A tap could not be closed on the workers; they drop it when it expires.');
    });
  }

  private dispatch(listener: TapListener, kind: string, value: Buffer): void {
    try {
      if (kind === 'event') listener.event(value);
      else if (kind === 'skipped') listener.skipped(Number((JSON.parse(value.toString('utf8')) as TapSkipped).skipped) || 0);
      else if (kind === 'ack') listener.ack((JSON.parse(value.toString('utf8')) as TapAck).member);
    } catch (err) {
      log.warn({ err, kind }, 'A tap message could not be read and was skipped.');
    }
  }

  private async send(request: TapRequest): Promise<void> {
    const producer = await this.producer.get();
    try {
      await producer.send(this.opts.requestsTopic, [{ key: request.tap, value: JSON.stringify(request) }]);
    } catch (err) {
      await this.producer.reset();
      throw err;
    }
  }

  /** The member ids of the workers in the group now. */
  private async workers(): Promise<string[] | undefined> {
    try {
      this.admin ??= this.opts.kafka.admin();
      return await this.admin.groupMembers(this.opts.consumerGroup);
    } catch (err) {
      log.warn({ err }, 'The workers of the group could not be listed; the tap does not wait for them.');
      return undefined;
    }
  }
}
