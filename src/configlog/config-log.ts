// The config log: a compacted Kafka topic materialized in memory by every API replica and worker.
// Writes are transactions (config records, any extra records such as audit events, and a sync marker);
// a write returns after this replica has read its own sync marker back, so it sees its own writes.
import { randomUUID } from 'node:crypto';
import type { Consumer, Kafka, Message, Producer } from 'kafkajs';
import { createLogger } from '../telemetry/logger.js';
import {
  SYNC_KEY_PREFIX,
  decodeConfigRecord,
  encodeConfigValue,
  type ConfigKind,
  type ConfigValue,
} from './format.js';

export interface ConfigChange {
  readonly id: string;
  readonly kind: ConfigKind;
  readonly before: ConfigValue | undefined;
  readonly after: ConfigValue | undefined;
}

export interface ConfigWrite {
  readonly id: string;
  readonly kind: ConfigKind;
  /** The stored resource, or null to delete it. */
  readonly data: object | null;
}

export interface ExtraRecords {
  readonly topic: string;
  readonly messages: Message[];
}

export interface ConfigLogOptions {
  readonly kafka: Kafka;
  readonly topic: string;
  /** How long a write or sync may wait for its marker before failing. */
  readonly syncTimeoutMs?: number;
}

type Listener = (change: ConfigChange) => void;

const log = createLogger('config-log');

export class ConfigLog {
  private readonly state = new Map<string, ConfigValue>();
  private readonly listeners = new Set<Listener>();
  private readonly waiters = new Map<string, () => void>();
  private readonly instance = randomUUID();
  private readonly consumer: Consumer;
  private readonly producer: Producer;
  private syncCounter = 0;
  private started = false;
  /** kafkajs allows one open transaction per producer: writes queue behind each other. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: ConfigLogOptions) {
    this.consumer = opts.kafka.consumer({
      // A group of its own so that every replica reads the whole topic; offsets are never committed.
      groupId: `edge-config-reader-${this.instance}`,
      maxWaitTimeInMs: 100,
      readUncommitted: false,
    });
    this.producer = opts.kafka.producer({
      transactionalId: `edge-config-writer-${this.instance}`,
      idempotent: true,
      maxInFlightRequests: 1,
    });
  }

  /** Connects, reads the topic from the beginning, and resolves once everything written before is applied. */
  async start(): Promise<void> {
    await this.producer.connect();
    await this.consumer.connect();
    await this.consumer.subscribe({ topic: this.opts.topic, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachMessage: async ({ message }) => this.apply(message.key, message.value),
    });
    this.started = true;
    await this.sync();
    log.info({ resources: this.state.size }, 'The config log is loaded.');
  }

  async stop(): Promise<void> {
    this.started = false;
    await Promise.allSettled([this.consumer.disconnect(), this.producer.disconnect()]);
  }

  get size(): number {
    return this.state.size;
  }

  get(id: string): ConfigValue | undefined {
    return this.state.get(id);
  }

  /** Every live resource of a kind, in id order (ids sort by creation time). */
  list(kind: ConfigKind): ConfigValue[] {
    const out: ConfigValue[] = [];
    for (const v of this.state.values()) if (v.kind === kind) out.push(v);
    return out.sort((a, b) => String(a.data.id).localeCompare(String(b.data.id)));
  }

  /** Calls the listener on every change applied from now on; returns a function that removes it. */
  onChange(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Writes config records and any extra records (audit events) in one Kafka transaction, so either all
   * become visible or none do, then waits until this replica has applied them.
   */
  async write(writes: readonly ConfigWrite[], extra: readonly ExtraRecords[] = []): Promise<void> {
    const messages: Message[] = writes.map((w) => ({
      key: w.id,
      value: w.data === null ? null : encodeConfigValue(w.kind, w.data),
      partition: 0,
    }));
    await this.transact([{ topic: this.opts.topic, messages }, ...extra]);
  }

  /** Resolves once every record committed to the topic before this call is applied here. */
  async sync(): Promise<void> {
    await this.transact([]);
  }

  private transact(records: readonly ExtraRecords[]): Promise<void> {
    const run = this.queue.then(() => this.transactNow(records));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async transactNow(records: readonly ExtraRecords[]): Promise<void> {
    if (!this.started) throw new Error('the config log is not started');
    const markerKey = `${SYNC_KEY_PREFIX}${this.instance}/${++this.syncCounter}`;
    const applied = this.waitForMarker(markerKey);
    const tx = await this.producer.transaction();
    try {
      for (const r of records) if (r.messages.length > 0) await tx.send({ topic: r.topic, messages: r.messages });
      // The marker goes last to the same single partition, so reading it back means the writes are applied.
      await tx.send({ topic: this.opts.topic, messages: [{ key: markerKey, value: null, partition: 0 }] });
      await tx.commit();
    } catch (err) {
      this.waiters.delete(markerKey);
      await tx.abort().catch(() => undefined);
      throw err;
    }
    await applied;
  }

  private waitForMarker(key: string): Promise<void> {
    const timeoutMs = this.opts.syncTimeoutMs ?? 30_000;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(key);
        reject(new Error(`the config log did not read back its own write within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(key, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private apply(key: Buffer | null, value: Buffer | null): void {
    const rec = decodeConfigRecord(key, value);
    switch (rec.type) {
      case 'sync': {
        const done = this.waiters.get(rec.id);
        if (done) {
          this.waiters.delete(rec.id);
          done();
        }
        return;
      }
      case 'invalid':
        log.warn({ id: rec.id, reason: rec.reason }, 'A config record was skipped because it cannot be read.');
        return;
      case 'delete': {
        const before = this.state.get(rec.id);
        if (before === undefined) return;
        this.state.delete(rec.id);
        this.emit({ id: rec.id, kind: before.kind, before, after: undefined });
        return;
      }
      case 'put': {
        const before = this.state.get(rec.id);
        this.state.set(rec.id, rec.value);
        this.emit({ id: rec.id, kind: rec.value.kind, before, after: rec.value });
        return;
      }
    }
  }

  private emit(change: ConfigChange): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch (err) {
        log.error({ err, id: change.id }, 'A config change listener failed.');
      }
    }
  }
}
