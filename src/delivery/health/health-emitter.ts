// The one emitter of destination health events in a fleet (ARCHITECTURE.md "Health events"). Every API
// process is a candidate: each joins one consumer group on the health topic, which has one partition, and
// the member assigned it emits. On taking over, the emitter opens the fleet's one transactional id, which
// fences any earlier emitter's producer, then reads the health topic to a marker of its own: it then
// knows every event emitted before it. Each tick it compares every destination's state over all workers
// (the status board) with the state its last event gave, and writes the new events to the audit topic
// together with their states on the health topic, in one transaction: an event is emitted once, whoever
// emits it and whenever leadership moves.
import { randomUUID } from 'node:crypto';
import { DESTINATION_HEALTH_EVENT_TYPE } from '../../events/catalog.js';
import { eventIdOf } from '../../ids.js';
import { heartbeatFor } from '../../kafka/group-session.js';
import type { BatchScope, GroupConsumer, KafkaClient, OutgoingMessage, PartitionBatch, TopicMessages, TransactionalProducer } from '../../kafka/seam.js';
import { createLogger, type Logger } from '../../telemetry/logger.js';
import type { DestinationStatusSummary } from '../status/status-aggregate.js';
import {
  decodeHealthRecord,
  encodeHealthRecord,
  healthPayload,
  healthStateOf,
  nextStep,
  type HealthDestination,
  type HealthRecord,
  type HealthState,
} from './health-transition.js';

/** What the emitter reads of the status board (src/delivery/status/status-board.ts). */
export interface HealthBoard {
  status(destinationId: string): DestinationStatusSummary;
  readonly readOffset: number;
}

export interface HealthEmitterOptions {
  readonly kafka: KafkaClient;
  /** Compacted, one partition: each destination's last emitted state, and the election (TOPIC_HEALTH). */
  readonly healthTopic: string;
  /** Where the events go, to be routed as audit events are (TOPIC_AUDIT). */
  readonly auditTopic: string;
  /** The status topic the board reads: the emitter starts once the board has read what it held. */
  readonly statusTopic: string;
  /** The candidates' group: the same for every API process of the fleet. */
  readonly groupId: string;
  readonly board: HealthBoard;
  /** Every destination in the config now. */
  readonly destinations: () => Iterable<HealthDestination>;
  /** At most one event per destination per this interval (HEALTH_EVENT_INTERVAL_MS). */
  readonly minIntervalMs: number;
  readonly sessionTimeoutMs: number;
  readonly tickMs?: number;
  readonly now?: () => number;
  readonly logger?: Logger;
}

const SYNC_PREFIX = '__sync/';
const TRANSACTION_TIMEOUT_MS = 10_000;
/** The board is given this long to read the status topic's end before the emitter starts anyway. */
const BOARD_WAIT_MS = 10_000;
const RETRY_TAKEOVER_MS = 1_000;
const FAILURE_LINE_EVERY_MS = 60_000;

interface Observed {
  state: HealthState;
  /** Changes of state seen since the destination's last event. */
  changes: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms).unref());

export class HealthEmitter {
  /** Destination id -> the state its last event gave, as the health topic holds it. */
  private readonly last = new Map<string, HealthRecord>();
  /** What this process saw since each destination's last event; memory only, so a new emitter counts afresh. */
  private readonly observed = new Map<string, Observed>();
  private readonly log: Logger;
  private readonly now: () => number;
  private consumer: GroupConsumer | undefined;
  private producer: TransactionalProducer | undefined;
  private timer: NodeJS.Timeout | undefined;
  private joining: Promise<void> | undefined;
  private ticking: Promise<void> | undefined;
  private reading = -1;
  private leading = false;
  private ready = false;
  private stopped = false;
  /** Each takeover's number: a later one, or a loss of the partition, ends an earlier one. */
  private takeovers = 0;
  private syncKey: string | undefined;
  private syncSeen = false;
  private lastFailureLineAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly opts: HealthEmitterOptions) {
    this.log = opts.logger ?? createLogger('destination-health');
    this.now = opts.now ?? Date.now;
  }

  /** True while this process is the fleet's emitter and has read what the emitters before it wrote. */
  get emitting(): boolean {
    return this.ready;
  }

  start(): void {
    const session = this.opts.sessionTimeoutMs;
    const consumer = this.opts.kafka.groupConsumer(
      { groupId: this.opts.groupId, topics: [this.opts.healthTopic], sessionTimeoutMs: session, heartbeatIntervalMs: heartbeatFor(session), maxWaitMs: 200 },
      {
        onJoin: (assignment) => {
          // Every join reads the topic again from the beginning (nothing is committed): start afresh.
          this.forget();
          this.reading = -1;
          this.leading = (assignment[this.opts.healthTopic] ?? []).includes(0);
          if (this.leading) void this.takeOver();
          else this.dropProducer();
        },
      },
    );
    this.consumer = consumer;
    // The service does not wait for the join: a candidate that has not joined yet only emits nothing.
    this.joining = consumer.start((batch, scope) => this.read(batch, scope)).catch((err: unknown) => {
      if (!this.stopped) this.log.error({ err, topic: this.opts.healthTopic }, 'The destination health emitter could not start; this process emits no health events.');
    });
    this.timer = setInterval(() => void this.tick(), this.opts.tickMs ?? 1_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.ready = false;
    this.takeovers++;
    clearInterval(this.timer);
    await this.joining;
    await this.ticking;
    await this.consumer?.stop().catch(() => undefined);
    const producer = this.producer;
    this.producer = undefined;
    await producer?.close().catch(() => undefined);
  }

  /** Runs one comparison now (the ticks do it every tickMs); resolves when its events are written. */
  tick(): Promise<void> {
    this.ticking ??= this.emitDue().finally(() => (this.ticking = undefined));
    return this.ticking;
  }

  private forget(): void {
    this.ready = false;
    this.takeovers++;
    this.last.clear();
    this.syncSeen = false;
  }

  private async read(batch: PartitionBatch, scope: BatchScope): Promise<void> {
    if (batch.reading !== this.reading) {
      // Read again from the beginning without a join (a restart of the stream): what was read goes, and the
      // emitter syncs again before it emits.
      const wasLeading = this.leading && this.reading !== -1;
      this.reading = batch.reading;
      if (wasLeading) {
        this.forget();
        void this.takeOver();
      }
    }
    for (const m of batch.messages) {
      const key = m.key?.toString('utf8');
      if (key === undefined) continue;
      if (key.startsWith(SYNC_PREFIX)) {
        if (key === this.syncKey) this.syncSeen = true;
        continue;
      }
      if (m.value === null) {
        this.last.delete(key);
        continue;
      }
      const record = decodeHealthRecord(m.value);
      const known = this.last.get(key);
      // This emitter's own writes come back after it applied them: an older one never replaces a newer.
      if (record !== undefined && (known === undefined || record.seq >= known.seq)) this.last.set(key, record);
    }
    const end = batch.messages.at(-1);
    if (end !== undefined) scope.resolve(end.offset);
  }

  /** Fences every earlier emitter, reads the health topic up to a marker of its own, waits for the board. */
  private async takeOver(): Promise<void> {
    const turn = ++this.takeovers;
    const current = (): boolean => turn === this.takeovers && this.leading && !this.stopped;
    this.dropProducer();
    const producer = this.opts.kafka.transactionalProducer({ transactionalId: `edge-health-emitter.${this.opts.groupId}.${this.opts.healthTopic}`, transactionTimeoutMs: TRANSACTION_TIMEOUT_MS });
    try {
      await producer.connect();
      if (!current()) throw new Error('superseded');
      this.producer = producer;
      const syncKey = `${SYNC_PREFIX}${randomUUID()}`;
      this.syncKey = syncKey;
      this.syncSeen = false;
      await producer.commitTransaction([{ topic: this.opts.healthTopic, messages: [{ key: syncKey, value: null }] }]);
      const statusEnd = await this.statusEnd();
      const boardDeadline = this.now() + BOARD_WAIT_MS;
      while (current() && (!this.syncSeen || (this.opts.board.readOffset < statusEnd && this.now() < boardDeadline))) await sleep(50);
      if (!current()) return;
      this.ready = true;
      this.log.info({ topic: this.opts.healthTopic, destinations: this.last.size }, 'This process emits the destination health events.');
    } catch (err) {
      if (this.producer !== producer) await producer.close().catch(() => undefined);
      if (!current()) return;
      this.failed(err, 'Taking over the destination health events failed; trying again.');
      await sleep(RETRY_TAKEOVER_MS);
      if (current()) void this.takeOver();
    }
  }

  /** Closes the producer of an earlier takeover (a write of it in flight fails, and is not retried by a non-leader). */
  private dropProducer(): void {
    const old = this.producer;
    this.producer = undefined;
    void old?.close().catch(() => undefined);
  }

  private async statusEnd(): Promise<number> {
    const admin = this.opts.kafka.admin();
    try {
      return (await admin.partitionOffsets(this.opts.statusTopic)).find((p) => p.partition === 0)?.high ?? 0;
    } finally {
      await admin.close().catch(() => undefined);
    }
  }

  private async emitDue(): Promise<void> {
    const producer = this.producer;
    if (!this.ready || producer === undefined) return;
    const turn = this.takeovers;
    const now = this.now();
    const events: OutgoingMessage[] = [];
    const records: OutgoingMessage[] = [];
    const updates = new Map<string, HealthRecord | undefined>();
    const present = new Set<string>();
    for (const d of this.opts.destinations()) {
      present.add(d.id);
      const summary = this.opts.board.status(d.id);
      const state = healthStateOf(summary);
      if (state === undefined) continue;
      const last = this.last.get(d.id);
      let seen = this.observed.get(d.id);
      if (seen === undefined) this.observed.set(d.id, (seen = { state, changes: last !== undefined && last.state !== state ? 1 : 0 }));
      else if (seen.state !== state) {
        seen.state = state;
        seen.changes++;
      }
      const step = nextStep(last, state, now, this.opts.minIntervalMs);
      // Back at the state the last event gave, with the interval past: nothing left to sum up.
      if (step.kind === 'none' && (last === undefined || now - last.emittedAt >= this.opts.minIntervalMs)) seen.changes = 0;
      if (step.kind !== 'baseline' && step.kind !== 'event') continue;
      updates.set(d.id, step.record);
      records.push({ key: d.id, value: encodeHealthRecord(step.record) });
      if (step.kind === 'event') {
        const envelope = {
          event_id: eventIdOf(now, this.opts.healthTopic, 0, step.record.seq, d.id, d.accountId),
          event_type: DESTINATION_HEALTH_EVENT_TYPE,
          event_timestamp: new Date(now).toISOString(),
          principal: null,
          object: healthPayload(d, summary, step.before, state, now, seen.changes),
        };
        // Keyed by destination: its events share a partition of the audit topic, so they are read in order.
        events.push({ key: d.id, value: JSON.stringify(envelope), headers: { 'content-type': 'application/json' } });
      }
    }
    // A deleted destination's state goes with it.
    for (const id of this.last.keys()) {
      if (present.has(id)) continue;
      updates.set(id, undefined);
      records.push({ key: id, value: null });
    }
    for (const id of this.observed.keys()) if (!present.has(id)) this.observed.delete(id);
    if (records.length === 0) return;
    const writes: TopicMessages[] = [{ topic: this.opts.healthTopic, messages: records }];
    if (events.length > 0) writes.push({ topic: this.opts.auditTopic, messages: events });
    try {
      await producer.commitTransaction(writes);
    } catch (err) {
      // Made or not, the health topic tells: fence and sync again (the reading goes on from where it is),
      // and compare again after it.
      this.failed(err, 'Writing destination health events failed; the emitter reads back what was written and tries again.');
      if (turn === this.takeovers && this.leading && !this.stopped) {
        this.ready = false;
        void this.takeOver();
      }
      return;
    }
    if (turn !== this.takeovers) return;
    for (const [id, record] of updates) {
      if (record === undefined) this.last.delete(id);
      else this.last.set(id, record);
      const seen = this.observed.get(id);
      if (seen !== undefined && record !== undefined) seen.changes = 0;
    }
    if (events.length > 0) this.log.info({ events: events.length }, 'Destination health events emitted.');
  }

  private failed(err: unknown, message: string): void {
    const now = this.now();
    if (now - this.lastFailureLineAt < FAILURE_LINE_EVERY_MS) return;
    this.lastFailureLineAt = now;
    this.log.warn({ err, topic: this.opts.healthTopic }, message);
  }
}
