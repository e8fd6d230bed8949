// The config log: a compacted Kafka topic materialized in memory by every API replica and worker.
// Writes are transactions (config records, any extra records such as audit events, and a sync marker);
// a write returns after this replica has read its own sync marker back, so it sees its own writes.
import { randomUUID } from 'node:crypto';
import { OPERATOR_ACCOUNT_ID, accountOf } from '../accounts/account.js';
import type { KafkaClient, OutgoingMessage } from '../kafka/seam.js';
import { WholeTopicReader } from '../kafka/whole-topic-reader.js';
import { createLogger } from '../telemetry/logger.js';
import { ConfigWriter, transactionalIdOf, type ExtraRecords } from './config-writer.js';
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

export type { ExtraRecords } from './config-writer.js';

export interface ConfigLogOptions {
  readonly kafka: KafkaClient;
  readonly topic: string;
  /**
   * This writer's identity, stable across restarts (the service's INSTANCE_ID): its transactional id
   * is made from it, so a writer restarted with the same id fences the transaction its predecessor
   * left open, at once. Default: a random id, for one-off writers (tools, tests).
   */
  readonly writerId?: string;
  /** How long a write or sync may take, attempts and read-back included, before it fails. */
  readonly syncTimeoutMs?: number;
}

/**
 * A write that did not complete. `made` says whether the change was made: true when it was committed
 * but this replica did not read it back in time; false when the writer knows it was not (its
 * transaction was aborted); undefined when it could not find out (the broker stayed unreachable).
 */
export class ConfigWriteError extends Error {
  constructor(
    message: string,
    readonly made: boolean | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ConfigWriteError';
  }
}

/**
 * A write for an account that no longer exists, refused (SECURITY.md "Accounts and tenancy"). `made` says
 * whether its records reached the log: readers drop them all the same, as every resource of a deleted account.
 */
export class AccountGoneError extends Error {
  constructor(
    readonly accountId: string,
    readonly made: boolean,
  ) {
    super(`the account ${accountId} no longer exists`);
    this.name = 'AccountGoneError';
  }
}

/** The account of a stored resource; undefined for an account, which owns itself. */
function ownerOf(kind: ConfigKind, data: object): string | undefined {
  return kind === 'account' ? undefined : accountOf(data);
}

/** Attempts of one write whose transactions were aborted (each after a failure and a fresh producer). */
const WRITE_ATTEMPTS = 3;
const RETRY_PAUSE_MS = 500;

type Listener = (change: ConfigChange) => void;

const log = createLogger('config-log');

interface Marker {
  readonly key: string;
  /** Resolves once this replica read the marker; rejects at the write's deadline. */
  readonly applied: Promise<void>;
  seen(): boolean;
  /** Stops waiting for it. */
  forget(): void;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class ConfigLog {
  private readonly state = new Map<string, ConfigValue>();
  /** The accounts that exist, the operator's always; a resource of any other is dropped (apply()). */
  private readonly accounts = new Set<string>([OPERATOR_ACCOUNT_ID]);
  /** The ids of each account's resources in `state`, dropped with the account. */
  private readonly owned = new Map<string, Set<string>>();
  private readonly listeners = new Set<Listener>();
  private readonly waiters = new Map<string, () => void>();
  /** Names this process's sync markers and reader group: unique per run, unlike the writer id. */
  private readonly session = randomUUID();
  private readonly consumer: WholeTopicReader;
  private readonly writer: ConfigWriter;
  private syncCounter = 0;
  private started = false;
  /** A transactional producer has one open transaction at a time: writes queue behind each other. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: ConfigLogOptions) {
    // A group of its own so that every replica reads the whole topic (read-committed); offsets are never committed.
    this.consumer = new WholeTopicReader(opts.kafka, { groupId: `edge-config-reader-${this.session}`, topic: opts.topic, maxWaitMs: 100 });
    this.writer = new ConfigWriter(opts.kafka, transactionalIdOf(opts.topic, opts.writerId ?? randomUUID()));
  }

  /** Connects, reads the topic from the beginning, and resolves once everything written before is applied. */
  async start(): Promise<void> {
    await this.consumer.start((m) => this.apply(m.key, m.value));
    this.started = true;
    await this.sync();
    log.info({ resources: this.state.size }, 'The config log is loaded.');
  }

  async stop(): Promise<void> {
    this.started = false;
    await Promise.allSettled([this.consumer.stop(), this.writer.close()]);
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
   *
   * A resource of an account that no longer exists is refused (AccountGoneError): this replica first
   * reads the log up to now, so a deletion made on another replica is seen, and refuses the write before
   * sending it; a deletion committed between that read and the write is seen when the write is read
   * back (readers dropped the records, being behind the deletion or swept by it).
   */
  async write(writes: readonly ConfigWrite[], extra: readonly ExtraRecords[] = []): Promise<void> {
    const messages: OutgoingMessage[] = writes.map((w) => ({
      key: w.id,
      value: w.data === null ? null : encodeConfigValue(w.kind, w.data),
      partition: 0,
    }));
    const owners = new Set<string>();
    for (const w of writes) {
      const owner = w.data === null ? undefined : ownerOf(w.kind, w.data);
      if (owner !== undefined && owner !== OPERATOR_ACCOUNT_ID) owners.add(owner);
    }
    // An account made in this very write exists once it lands.
    for (const w of writes) if (w.kind === 'account') owners.delete(w.id);
    await this.serialized(async () => {
      if (owners.size > 0) {
        await this.transactNow([]);
        this.refuseGone(owners, false);
      }
      await this.transactNow([{ topic: this.opts.topic, messages }, ...extra]);
      this.refuseGone(owners, true);
    });
  }

  /** Resolves once every record committed to the topic before this call is applied here. */
  async sync(): Promise<void> {
    await this.serialized(() => this.transactNow([]));
  }

  private serialized(fn: () => Promise<void>): Promise<void> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private refuseGone(owners: ReadonlySet<string>, made: boolean): void {
    for (const account of owners) if (!this.accounts.has(account)) throw new AccountGoneError(account, made);
  }

  /**
   * One write, made at most once. A failed transaction may still have been committed (its answer lost),
   * so after a failure the writer renews its producer, which ends the transaction for certain, then
   * syncs: once the sync's marker is read, this replica has applied every committed record, so the
   * failed write's marker shows whether it was made. A write known not made is sent again, the same
   * records under the same keys, so a create never becomes two resources.
   */
  private async transactNow(records: readonly ExtraRecords[]): Promise<void> {
    if (!this.started) throw new Error('the config log is not started');
    const deadline = Date.now() + (this.opts.syncTimeoutMs ?? 30_000);
    for (let attempt = 1; ; attempt++) {
      const marker = this.marker(deadline);
      try {
        // The marker goes last to the same single partition, so reading it back means the writes are applied.
        await this.writer.commit([...records, { topic: this.opts.topic, messages: [{ key: marker.key, value: null, partition: 0 }] }]);
      } catch (err) {
        await this.writer.renew();
        if (await this.madeAfterAll(marker, deadline, err)) return;
        if (attempt >= WRITE_ATTEMPTS || Date.now() + RETRY_PAUSE_MS >= deadline) {
          throw new ConfigWriteError(`the config log did not accept the write: ${message(err)}`, false, { cause: err });
        }
        log.warn({ err, attempt }, 'A config write was not made; it is written again.');
        await sleep(RETRY_PAUSE_MS);
        continue;
      }
      await marker.applied.catch((err: unknown) => {
        throw new ConfigWriteError(message(err), true, { cause: err });
      });
      return;
    }
  }

  /** After a failed commit: true once the write's marker was read, false once it is known never to be. */
  private async madeAfterAll(marker: Marker, deadline: number, cause: unknown): Promise<boolean> {
    for (;;) {
      const sync = this.marker(deadline);
      try {
        await this.writer.commit([{ topic: this.opts.topic, messages: [{ key: sync.key, value: null, partition: 0 }] }]);
        await sync.applied;
        marker.forget();
        return marker.seen();
      } catch (err) {
        sync.forget();
        if (marker.seen()) return true;
        if (Date.now() + RETRY_PAUSE_MS >= deadline) {
          marker.forget();
          throw new ConfigWriteError(`the config log could not tell whether a write was made: ${message(err)}`, undefined, { cause });
        }
        await this.writer.renew();
        await sleep(RETRY_PAUSE_MS);
      }
    }
  }

  /** A new sync marker and the wait for it, which fails at the deadline. */
  private marker(deadline: number): Marker {
    const key = `${SYNC_KEY_PREFIX}${this.session}/${++this.syncCounter}`;
    let seen = false;
    let timer: NodeJS.Timeout | undefined;
    const applied = new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => {
        this.waiters.delete(key);
        reject(new ConfigWriteError(`the config log did not read back its own write within ${this.opts.syncTimeoutMs ?? 30_000} ms`, undefined));
      }, Math.max(0, deadline - Date.now()));
      this.waiters.set(key, () => {
        seen = true;
        clearTimeout(timer);
        resolve();
      });
    });
    // Awaited only once the transaction is committed; a failure before that must not go unhandled.
    applied.catch(() => undefined);
    return {
      key,
      applied,
      seen: () => seen,
      forget: () => {
        clearTimeout(timer);
        this.waiters.delete(key);
      },
    };
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
        this.remove(rec.id);
        if (!this.accounts.delete(rec.id)) return;
        // Whatever of the account is left (written on a replica that had not seen its deletion) goes too.
        for (const id of this.owned.get(rec.id) ?? []) this.remove(id);
        this.owned.delete(rec.id);
        return;
      }
      case 'put': {
        const { kind, data } = rec.value;
        const owner = ownerOf(kind, data);
        if (owner !== undefined && !this.accounts.has(owner)) {
          log.info({ id: rec.id, account: owner }, 'A config record of an account that no longer exists was dropped.');
          return;
        }
        if (kind === 'account') this.accounts.add(rec.id);
        if (owner !== undefined) {
          let ids = this.owned.get(owner);
          if (ids === undefined) this.owned.set(owner, (ids = new Set()));
          ids.add(rec.id);
        }
        const before = this.state.get(rec.id);
        this.state.set(rec.id, rec.value);
        this.emit({ id: rec.id, kind, before, after: rec.value });
        return;
      }
    }
  }

  private remove(id: string): void {
    const before = this.state.get(id);
    if (before === undefined) return;
    this.state.delete(id);
    const owner = ownerOf(before.kind, before.data);
    if (owner !== undefined) this.owned.get(owner)?.delete(id);
    this.emit({ id, kind: before.kind, before, after: undefined });
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
