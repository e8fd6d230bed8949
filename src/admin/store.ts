// The admin API's store: reads the ConfigLog's materialized view, and commits config changes together
// with their audit events.
//
// How a resource module uses it (route handlers):
//
//   const stored = ctx.store.get<StoredThing>('event_destination', id);           // read (undefined = absent)
//   const page = ctx.store.page<StoredThing>('event_destination', req.query);      // list, newest first
//   await ctx.store.exclusive(async () => {                                        // check-then-write
//     ...validate against the current view (references, conflicts)...
//     await ctx.store.commit(
//       [{ kind: 'event_destination', id, data: stored }],                         // data null = delete
//       [{ kind: 'event_destination', action: 'created', key: id, object: view }], // view = API response, secrets redacted
//       principalOf(req),
//     );
//   });
//
// commit() writes the config records AND the audit envelopes in ONE Kafka transaction
// (ConfigLog.write), so a change is never visible without its audit event and an audit event never
// describes a change that did not happen. It returns once the broker acknowledged the transaction and
// this replica's view has applied it (read-your-writes).
import { accountOf, type Owned } from '../accounts/account.js';
import { TrafficOwners } from '../accounts/traffic-owners.js';
import type { AuditAction, AuditKind } from '../events/catalog.js';
import { makeEnvelope, type Principal } from '../events/envelope.js';
import { AccountGoneError, ConfigWriteError, type ConfigLog, type ConfigWrite } from '../configlog/config-log.js';
import type { ConfigKind } from '../configlog/format.js';
import { createLogger } from '../telemetry/logger.js';
import { ApiError } from './errors.js';
import { LIST_LIMIT_DEFAULT } from './schemas.js';

const log = createLogger('admin-store');

/** One audit event: `<kind>_<action>.v0` with `object`, keyed by `key` (the resource id) on the audit topic. */
export interface AuditRecord {
  readonly kind: AuditKind;
  readonly action: AuditAction;
  readonly key: string;
  /** The resource exactly as the API returns it, secrets redacted. */
  readonly object: Record<string, unknown>;
}

export interface PageQuery {
  readonly limit?: number;
  readonly before_id?: string;
}

export interface Page<T> {
  /** Newest first. */
  readonly items: T[];
  /** The id to pass as before_id for the next page, or undefined on the last page. */
  readonly nextBeforeId: string | undefined;
}

export interface AdminStoreOptions {
  readonly configLog: ConfigLog;
  readonly auditTopic: string;
}

export class AdminStore {
  /** Check-then-write sections queue behind each other on this replica. */
  private lock: Promise<unknown> = Promise.resolve();
  private trafficOwners: TrafficOwners | undefined;

  constructor(private readonly opts: AdminStoreOptions) {}

  /**
   * Who may list which hostport, and who owns which name (src/accounts/traffic-owners.ts), following this
   * replica's view: what the TCP edge and address routes check against. Made at its first use.
   */
  owners(): TrafficOwners {
    if (this.trafficOwners === undefined) {
      this.trafficOwners = new TrafficOwners();
      this.trafficOwners.follow(this.opts.configLog);
    }
    return this.trafficOwners;
  }

  get<T extends { id: string }>(kind: ConfigKind, id: string): T | undefined {
    const v = this.opts.configLog.get(id);
    return v !== undefined && v.kind === kind ? (v.data as unknown as T) : undefined;
  }

  /** Every live resource of a kind, oldest first (ids sort by creation time). */
  all<T extends { id: string }>(kind: ConfigKind): T[] {
    return this.opts.configLog.list(kind).map((v) => v.data as unknown as T);
  }

  /** How many live resources of a kind an account holds. */
  countOf(kind: ConfigKind, accountId: string): number {
    let n = 0;
    for (const v of this.opts.configLog.list(kind)) if (accountOf(v.data as unknown as Owned) === accountId) n++;
    return n;
  }

  /** One page, newest first: ids below before_id (when given), at most `limit`, optionally filtered. */
  page<T extends { id: string }>(kind: ConfigKind, q: PageQuery, filter?: (item: T) => boolean): Page<T> {
    const limit = q.limit ?? LIST_LIMIT_DEFAULT;
    const items: T[] = [];
    const all = this.all<T>(kind);
    for (let i = all.length - 1; i >= 0; i--) {
      const item = all[i] as T;
      if (q.before_id !== undefined && !(item.id < q.before_id)) continue;
      if (filter !== undefined && !filter(item)) continue;
      if (items.length === limit) return { items, nextBeforeId: items[items.length - 1]?.id };
      items.push(item);
    }
    return { items, nextBeforeId: undefined };
  }

  /**
   * Runs `fn` alone among this replica's writers, so a check against the view (a reference exists, a CIDR
   * is not taken) still holds when its write lands. Replicas do not lock each other: two replicas can
   * race on the same check, and the later write wins (see src/admin/README.md "Concurrency").
   */
  exclusive<R>(fn: () => Promise<R>): Promise<R> {
    const run = this.lock.then(fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  /** Writes the config changes and their audit events in one transaction; see the top of this file. */
  async commit(writes: readonly ConfigWrite[], audits: readonly AuditRecord[], principal: Principal | null): Promise<void> {
    const messages = audits.map((a) => ({
      key: a.key,
      value: JSON.stringify(makeEnvelope(`${a.kind}_${a.action}.v0`, a.object, { principal })),
      headers: { 'content-type': 'application/json' },
    }));
    try {
      await this.opts.configLog.write(writes, messages.length > 0 ? [{ topic: this.opts.auditTopic, messages }] : []);
    } catch (err) {
      if (err instanceof AccountGoneError) {
        log.info({ account: err.accountId, ids: writes.map((w) => w.id), made: err.made }, 'A write for a deleted account was refused.');
        throw new ApiError('account_deleted', { account_id: err.accountId });
      }
      const made = err instanceof ConfigWriteError ? err.made : undefined;
      const ids = writes.map((w) => w.id);
      // Committed but not yet read back here: the change stands, and answering an error would invite
      // the client to make it again (a second resource, for a create).
      if (made === true) {
        log.warn({ err, ids }, 'A config write was made but this replica has not read it back yet.');
        return;
      }
      if (made === false) {
        log.error({ err, ids }, 'A config write failed; the change was not made.');
        throw new ApiError('unavailable', { reason: 'the config log did not accept the write' });
      }
      log.error({ err, ids }, 'A config write could not be confirmed; the change may or may not have been made.');
      throw new ApiError('unavailable', { reason: 'the config log did not confirm the write, which may have been made; read before retrying' });
    }
  }
}
