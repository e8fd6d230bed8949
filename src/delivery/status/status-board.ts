// The API's view of the status topic: every worker's latest report per destination, read from the
// beginning and followed live, and the destination's status over them (status-aggregate.ts). Workers
// publish; the API only reads, so no worker is ever called by the API.
import { randomUUID } from 'node:crypto';
import type { KafkaClient } from '../../kafka/seam.js';
import { WholeTopicReader } from '../../kafka/whole-topic-reader.js';
import { createLogger, type Logger } from '../../telemetry/logger.js';
import { aggregateStatus, UNKNOWN_STATUS, type DestinationStatusSummary, type StatusTiming } from './status-aggregate.js';
import { decodeReport, parseReportKey, type StatusReport } from './status-report.js';

export interface StatusBoardOptions {
  readonly kafka: KafkaClient;
  readonly topic: string;
  readonly timing: StatusTiming;
  readonly logger?: Logger;
  readonly now?: () => number;
}

export class StatusBoard {
  /** destination id → worker id → its latest report. */
  private readonly reports = new Map<string, Map<string, StatusReport>>();
  private readonly consumer: WholeTopicReader;
  private readonly log: Logger;
  private readonly now: () => number;
  private skipped = 0;
  private next = 0;

  constructor(private readonly opts: StatusBoardOptions) {
    this.log = opts.logger ?? createLogger('destination-status');
    this.now = opts.now ?? Date.now;
    // A group of its own, as the config log's readers: every API replica reads the whole topic; nothing is committed.
    this.consumer = new WholeTopicReader(opts.kafka, { groupId: `edge-status-reader-${randomUUID()}`, topic: opts.topic, maxWaitMs: 200 });
  }

  /** Subscribes and starts reading; answers from what it has read so far (unknown before the first report). */
  async start(): Promise<void> {
    await this.consumer.start((m) => {
      this.apply(m.key, m.value);
      this.next = Number(m.offset) + 1;
    });
  }

  /** The offset after the last report read (of the topic's first partition, the one the service creates). */
  get readOffset(): number {
    return this.next;
  }

  async stop(): Promise<void> {
    await this.consumer.stop().catch(() => undefined);
  }

  status(destinationId: string): DestinationStatusSummary {
    const byWorker = this.reports.get(destinationId);
    return byWorker === undefined ? UNKNOWN_STATUS : aggregateStatus(byWorker.values(), this.now(), this.opts.timing);
  }

  private apply(key: Buffer | null, value: Buffer | null): void {
    const parsed = key === null ? undefined : parseReportKey(key.toString('utf8'));
    if (parsed === undefined) return this.skip();
    const { destination, worker } = parsed;
    if (value === null) {
      const byWorker = this.reports.get(destination);
      byWorker?.delete(worker);
      if (byWorker?.size === 0) this.reports.delete(destination);
      return;
    }
    const report = decodeReport(value);
    if (report === undefined || report.destination !== destination || report.worker !== worker) return this.skip();
    let byWorker = this.reports.get(destination);
    if (byWorker === undefined) this.reports.set(destination, (byWorker = new Map()));
    byWorker.set(worker, report);
  }

  /** A record of another format (a newer version's) is skipped; said once, then counted quietly. */
  private skip(): void {
    if (this.skipped++ === 0) this.log.warn({ topic: this.opts.topic }, 'A status record could not be read and was skipped; later ones are skipped without a line.');
  }
}
