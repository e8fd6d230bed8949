// The API's view of the history topics: every worker's records of closed minutes and hours, read from the
// beginning and followed, added into the store (history-store.ts), which drops what is past its retention
// and the series of deleted destinations. As with the status board, workers publish and the API only reads.
import { randomUUID } from 'node:crypto';
import type { HistorySource } from '../../admin/history/history-routes.js';
import type { KafkaClient } from '../../kafka/seam.js';
import { WholeTopicReader } from '../../kafka/whole-topic-reader.js';
import { createLogger, type Logger } from '../../telemetry/logger.js';
import { decodeRecord } from './history-record.js';
import { HistoryStore, type HistoryPoint, type HistoryTiming, type Resolution } from './history-store.js';

export interface HistoryBoardOptions {
  readonly kafka: KafkaClient;
  /** The minute and the hour topics (TOPIC_HISTORY, and the same with ".hours"). */
  readonly topics: { readonly minutes: string; readonly hours: string };
  readonly timing: HistoryTiming;
  /** Whether a destination still exists (the config log): a deleted one's history goes with it. */
  readonly exists: (destinationId: string) => boolean;
  readonly logger?: Logger;
  readonly now?: () => number;
}

/** How often points past their retention are dropped, in minute points. */
const PRUNE_EVERY_MINUTES = 10;

export class HistoryBoard implements HistorySource {
  readonly store: HistoryStore;
  readonly minuteMs: number;
  readonly minuteRetentionMs: number;
  readonly hourRetentionMs: number;
  private readonly readers: WholeTopicReader[];
  private readonly log: Logger;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private skipped = 0;

  constructor(private readonly opts: HistoryBoardOptions) {
    this.store = new HistoryStore(opts.timing);
    ({ minuteMs: this.minuteMs, minuteRetentionMs: this.minuteRetentionMs, hourRetentionMs: this.hourRetentionMs } = opts.timing);
    this.log = opts.logger ?? createLogger('delivery-history');
    this.now = opts.now ?? Date.now;
    this.readers = [opts.topics.minutes, opts.topics.hours].map(
      (topic) => new WholeTopicReader(opts.kafka, { groupId: `edge-history-reader-${randomUUID()}`, topic, maxWaitMs: 500 }),
    );
  }

  async start(): Promise<void> {
    for (const reader of this.readers) await reader.start((m) => this.apply(m.value));
    this.timer = setInterval(() => this.prune(), PRUNE_EVERY_MINUTES * this.opts.timing.minuteMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    for (const reader of this.readers) await reader.stop().catch(() => undefined);
  }

  query(destination: string, subscription: string | undefined, from: number, to: number, resolution: Resolution): HistoryPoint[] {
    return this.store.query(destination, subscription, from, to, resolution, this.now());
  }

  prune(): void {
    this.store.prune(this.now(), this.opts.exists);
  }

  private apply(value: Buffer | null): void {
    const record = value === null ? undefined : decodeRecord(value);
    if (record === undefined || !this.store.apply(record, this.now())) this.skip();
  }

  /** A record of another format or period length: skipped, said once, then counted quietly. */
  private skip(): void {
    if (this.skipped++ === 0) this.log.warn('A delivery history record could not be read, or has another period length, and was skipped; later ones are skipped without a line.');
  }
}
