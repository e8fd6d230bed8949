// Every process's view of the replay progress topic (compacted, keyed <replay>/<topic>/<partition>): the
// latest checkpoint of each partition of each replay, read from the beginning and followed live, as the
// status board reads the status topic. The API answers a replay's progress from it; workers resume from it.
import { randomUUID } from 'node:crypto';
import type { KafkaClient } from '../kafka/seam.js';
import { WholeTopicReader } from '../kafka/whole-topic-reader.js';
import { createLogger } from '../telemetry/logger.js';
import { decodeProgress, type ReplayProgressReport } from './replay-record.js';

const log = createLogger('replay-board');

export class ReplayBoard {
  /** replay id -> progress key -> latest report. */
  private readonly byReplay = new Map<string, Map<string, ReplayProgressReport>>();
  private readonly reader: WholeTopicReader;
  private readonly listeners = new Set<(replay: string) => void>();
  private skipped = 0;

  constructor(kafka: KafkaClient, private readonly topic: string) {
    this.reader = new WholeTopicReader(kafka, { groupId: `edge-replay-reader-${randomUUID()}`, topic, maxWaitMs: 200 });
  }

  async start(): Promise<void> {
    await this.reader.start((m) => this.apply(m.key, m.value));
  }

  async stop(): Promise<void> {
    await this.reader.stop().catch(() => undefined);
  }

  /** The latest report of each partition of the replay that has one. */
  reports(replay: string): ReadonlyMap<string, ReplayProgressReport> {
    return this.byReplay.get(replay) ?? EMPTY;
  }

  /** Called with the replay's id after each report of it is applied; returns the unsubscribe. */
  onReport(fn: (replay: string) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Applies a report written by this process at once, before it is read back. */
  apply(key: Buffer | string | null, value: Buffer | null): void {
    const k = key === null ? '' : key.toString();
    const replay = k.slice(0, k.indexOf('/'));
    if (replay === '') return this.skip();
    if (value === null) {
      const reports = this.byReplay.get(replay);
      reports?.delete(k);
      if (reports?.size === 0) this.byReplay.delete(replay);
    } else {
      const report = decodeProgress(value);
      if (report === undefined || report.replay !== replay) return this.skip();
      let reports = this.byReplay.get(replay);
      if (reports === undefined) this.byReplay.set(replay, (reports = new Map()));
      const before = reports.get(k);
      // A late write of an older checkpoint (a worker that lost the partition) never moves progress back.
      if (before !== undefined && before.next > report.next && before.error === undefined) return;
      reports.set(k, report);
    }
    for (const fn of this.listeners) fn(replay);
  }

  private skip(): void {
    if (this.skipped++ === 0) log.warn({ topic: this.topic }, 'A replay progress record could not be read and was skipped; later ones are skipped without a line.');
  }
}

const EMPTY: ReadonlyMap<string, ReplayProgressReport> = new Map();
