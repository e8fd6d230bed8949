// A worker's side of the delivery history: each destination runner counts into its tally (the open
// minute's counters per subscription), and the recorder publishes every closed minute to the minute topic
// and every closed hour to the hour topic, one record per period and up to POINTS_PER_RECORD series. All a
// worker holds is the open minute's and the open hour's counters of the series with activity, and what it
// could not publish yet (at most MAX_PENDING_PERIODS periods).
import { LazyProducer } from '../../kafka/lazy-producer.js';
import type { KafkaClient, OutgoingMessage } from '../../kafka/seam.js';
import { eventTimeOf } from '../../ids.js';
import { createLogger, type Logger } from '../../telemetry/logger.js';
import { systemClock, type Clock } from '../clock.js';
import { holdsItsPartition, payloadSize, type DeliveryItem, type ItemFailure } from '../contract.js';
import type { Settlement } from '../runner-options.js';
import { Counters } from './counters.js';
import { encodeRecord, POINTS_PER_RECORD, type SeriesPoint } from './history-record.js';
import { MINUTES_PER_HOUR } from './history-store.js';

/** What a destination runner tells the history, per delivery (destination-runner.ts). */
export interface DeliveryTally {
  /** Queued: matched from a consumed record, or re-driven from the retry topic. */
  queued(item: DeliveryItem): void;
  /** One attempt's failed deliveries, each with its error. */
  failed(failures: readonly ItemFailure[]): void;
  settled(item: DeliveryItem, settlement: Settlement): void;
}

export interface HistoryRecorderOptions {
  readonly kafka: KafkaClient;
  readonly topics: { readonly minutes: string; readonly hours: string };
  /** This process's name in records, a new one per process (as the status reports'). */
  readonly workerId: string;
  /** HISTORY_MINUTE_MS. */
  readonly minuteMs: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/** Closed periods kept while the topic cannot be written; past it the oldest is dropped, with a line. */
const MAX_PENDING_PERIODS = 10;

interface Period {
  readonly topic: string;
  readonly start: number;
  readonly lengthMs: number;
  readonly points: SeriesPoint[];
}

export class HistoryRecorder {
  private readonly producer: LazyProducer;
  private readonly clock: Clock;
  private readonly log: Logger;
  /** Tallies with counters in an open minute. */
  private readonly active = new Set<DestinationTallyImpl>();
  /** The open hours' counters: hour start → destination → subscription → counters. */
  private readonly hours = new Map<number, Map<string, Map<string, Counters>>>();
  private pending: Period[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private dropped = 0;

  constructor(private readonly opts: HistoryRecorderOptions) {
    this.clock = opts.clock ?? systemClock;
    this.log = opts.logger ?? createLogger('delivery-history');
    this.producer = new LazyProducer(opts.kafka, { retries: 2 });
  }

  /** The tally a destination's runner counts into. */
  forDestination(destinationId: string): DeliveryTally {
    return new DestinationTallyImpl(destinationId, this.opts.minuteMs, this.clock, this.active);
  }

  start(): void {
    // A closed minute goes out within a quarter of a minute point (a second at most).
    this.timer = setInterval(() => void this.publish(), Math.min(1_000, Math.max(50, this.opts.minuteMs / 4)));
    this.timer.unref();
  }

  /** Closes the periods that ended and sends what is pending; one send at a time. */
  publish(): Promise<void> {
    this.running ??= this.closeAndSend(false).finally(() => (this.running = undefined));
    return this.running;
  }

  /** Closes the open minute and hour early (a stopping worker's counts are not lost) and sends them. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await this.closeAndSend(true);
    await this.producer.close();
  }

  private async closeAndSend(all: boolean): Promise<void> {
    const now = this.clock.now();
    const minute = Math.floor(now / this.opts.minuteMs);
    const hourMs = this.opts.minuteMs * MINUTES_PER_HOUR;
    const minutes = new Map<number, SeriesPoint[]>();
    for (const tally of [...this.active]) {
      for (const closed of tally.take(all ? Number.POSITIVE_INFINITY : minute)) {
        let points = minutes.get(closed.minute);
        if (points === undefined) minutes.set(closed.minute, (points = []));
        for (const [subscription, counters] of closed.counters) {
          points.push({ destination: tally.destinationId, subscription, counters });
          this.addToHour(Math.floor((closed.minute * this.opts.minuteMs) / hourMs) * hourMs, tally.destinationId, subscription, counters);
        }
      }
    }
    for (const [index, points] of [...minutes].sort((a, b) => a[0] - b[0])) {
      this.queue({ topic: this.opts.topics.minutes, start: index * this.opts.minuteMs, lengthMs: this.opts.minuteMs, points });
    }
    for (const [start, byDest] of [...this.hours].sort((a, b) => a[0] - b[0])) {
      if (!all && start + hourMs > now) continue;
      this.hours.delete(start);
      const points: SeriesPoint[] = [];
      for (const [destination, bySub] of byDest) for (const [subscription, counters] of bySub) points.push({ destination, subscription, counters });
      this.queue({ topic: this.opts.topics.hours, start, lengthMs: hourMs, points });
    }
    await this.send();
  }

  private addToHour(start: number, destination: string, subscription: string, counters: Counters): void {
    let byDest = this.hours.get(start);
    if (byDest === undefined) this.hours.set(start, (byDest = new Map()));
    let bySub = byDest.get(destination);
    if (bySub === undefined) byDest.set(destination, (bySub = new Map()));
    const have = bySub.get(subscription);
    if (have === undefined) {
      const c = new Counters();
      c.add(counters);
      bySub.set(subscription, c);
    } else have.add(counters);
  }

  private queue(period: Period): void {
    this.pending.push(period);
    if (this.pending.length <= MAX_PENDING_PERIODS) return;
    this.pending.shift();
    if (this.dropped++ === 0) this.log.warn({ topic: period.topic }, 'Delivery history could not be published for a while; its oldest unpublished period was dropped.');
  }

  private async send(): Promise<void> {
    if (this.pending.length === 0) return;
    const byTopic = new Map<string, OutgoingMessage[]>();
    for (const p of this.pending) {
      let messages = byTopic.get(p.topic);
      if (messages === undefined) byTopic.set(p.topic, (messages = []));
      for (let i = 0; i < p.points.length; i += POINTS_PER_RECORD) {
        const value = encodeRecord({ worker: this.opts.workerId, start: p.start, lengthMs: p.lengthMs, points: p.points.slice(i, i + POINTS_PER_RECORD) });
        messages.push({ key: `${this.opts.workerId}/${p.start}`, value });
      }
    }
    try {
      const producer = await this.producer.get();
      for (const [topic, messages] of byTopic) await producer.send(topic, messages);
    } catch (err) {
      // Sent again at the next tick; a topic that took its part may get it twice (at least once).
      await this.producer.reset();
      this.log.warn({ err }, 'Publishing delivery history failed; it is sent again shortly.');
      return;
    }
    this.pending = [];
    this.dropped = 0;
  }
}

class DestinationTallyImpl implements DeliveryTally {
  private minute = Number.NEGATIVE_INFINITY;
  private open = new Map<string, Counters>();
  /** Minutes that ended before the recorder's tick took them (an event of the next minute came first). */
  private ended: ClosedMinute[] = [];

  constructor(
    readonly destinationId: string,
    private readonly minuteMs: number,
    private readonly clock: Clock,
    private readonly active: Set<DestinationTallyImpl>,
  ) {}

  queued(item: DeliveryItem): void {
    const c = this.counters(item);
    if (holdsItsPartition(item)) c.matched++;
    else c.redriven++;
  }

  failed(failures: readonly ItemFailure[]): void {
    for (const { item, error } of failures) this.counters(item).fail(error.code);
  }

  settled(item: DeliveryItem, settlement: Settlement): void {
    const c = this.counters(item);
    const now = this.clock.now();
    if (settlement === 'acked') c.deliveredOne(payloadSize(item), now - (eventTimeOf(item.eventId) ?? now));
    else if (settlement === 'parked') c.parked++;
    else c.deadLettered++;
  }

  /** The minutes that ended before `minute` (all, when it is infinite), taken away, oldest first. */
  take(minute: number): ClosedMinute[] {
    const out = this.ended;
    this.ended = [];
    if (this.open.size > 0 && this.minute < minute) {
      out.push({ minute: this.minute, counters: this.open });
      this.open = new Map();
    }
    if (this.open.size === 0) this.active.delete(this);
    return out;
  }

  private counters(item: DeliveryItem): Counters {
    const minute = Math.floor(this.clock.now() / this.minuteMs);
    // A clock that stepped back counts into the open minute.
    if (minute > this.minute) {
      if (this.open.size > 0) this.ended.push({ minute: this.minute, counters: this.open });
      this.open = new Map();
      this.minute = minute;
    }
    const sub = item.subscriptionId ?? '';
    let c = this.open.get(sub);
    if (c === undefined) {
      this.open.set(sub, (c = new Counters()));
      this.active.add(this);
    }
    return c;
  }
}

interface ClosedMinute {
  readonly minute: number;
  readonly counters: Map<string, Counters>;
}
