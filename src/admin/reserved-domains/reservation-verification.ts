// Verifying reserved domains (SECURITY.md "Traffic ownership"): the rule that keeps a name to one account,
// the write that makes a reservation verified, and the periodic re-check of pending reservations, so a
// customer who published the record need not call verify.
import { accountContext, accountOf, type AccountContext } from '../../accounts/account.js';
import { DomainChallenges, type ChallengeResult } from '../../accounts/domain-challenge.js';
import { overlaps } from '../../accounts/domain-names.js';
import type { Principal } from '../../events/envelope.js';
import { createLogger } from '../../telemetry/logger.js';
import type { AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { resourceStore } from '../resource-routes.js';
import { domainStatus, reservedDomainResource, type StoredReservedDomain } from './reserved-domain-view.js';

const log = createLogger('reserved-domains');

/** A pending reservation is re-checked for this long after it was made; later only POST .../verify checks it. */
export const RECHECK_DAYS = 7;

/** Lookups the re-check has in flight at most, and of one account's reservations, so names whose DNS never answers hold back no other account. */
const RECHECK_CONCURRENCY = 8;
const RECHECK_CONCURRENCY_PER_ACCOUNT = 4;

/** The accounts' reservations taken in turns (each account's first, then each one's second, …), so one account's many come after the others' first. */
function inTurns(items: readonly StoredReservedDomain[]): StoredReservedDomain[] {
  const byAccount = new Map<string, StoredReservedDomain[]>();
  for (const d of items) {
    const own = byAccount.get(accountOf(d));
    if (own === undefined) byAccount.set(accountOf(d), [d]);
    else own.push(d);
  }
  const out: StoredReservedDomain[] = [];
  for (let turn = 0; out.length < items.length; turn++) {
    for (const own of byAccount.values()) if (turn < own.length) out.push(own[turn] as StoredReservedDomain);
  }
  return out;
}

/** 409 when another account's verified reservation overlaps `domain`, or `acting` reserved it already. Another account's is not named. */
export function checkFree(ctx: AdminContext, domain: string, acting: AccountContext, self?: string): void {
  for (const other of ctx.store.all<StoredReservedDomain>('reserved_domain')) {
    if (other.id === self) continue;
    const own = accountOf(other) === acting.accountId;
    // Another account's pending reservation proves nothing yet, so it blocks no one.
    if (own ? other.domain !== domain : domainStatus(other) !== 'verified' || !overlaps(other.domain, domain)) continue;
    const by = own ? `the reservation ${other.id} of this account` : "another account's reservation";
    throw new ApiError('domain_reserved', { field: 'domain', domain, by, ...(own && { reserved_domain_id: other.id }) });
  }
}

export class ReservationVerifier {
  private readonly challenges: DomainChallenges;
  private readonly audits;
  private timer: NodeJS.Timeout | undefined;
  /** The lookups under way, by reservation id, with the reservation's account. */
  private readonly inFlight = new Map<string, { readonly account: string; readonly lookup: Promise<void> }>();
  /** When each pending reservation was last looked up by the re-check. */
  private readonly lookedUpAt = new Map<string, number>();

  constructor(private readonly ctx: AdminContext) {
    this.challenges = new DomainChallenges(ctx.config.dnsResolver);
    this.audits = resourceStore(ctx, reservedDomainResource(ctx)).audits;
  }

  /** Looks the reservation's TXT challenge up. */
  lookup(d: StoredReservedDomain): Promise<ChallengeResult> {
    return this.challenges.check(d.domain, d.challenge ?? '');
  }

  /**
   * Makes the reservation `find` gives verified, with its audit event, unless it is already; 409 when another
   * account's verified reservation holds a name of it. The store is locked, so `find` reads it afresh.
   */
  markVerified(find: () => StoredReservedDomain, by: 'dns' | 'operator', principal: Principal | null): Promise<StoredReservedDomain> {
    const { store } = this.ctx;
    return store.exclusive(async () => {
      const d = find();
      if (domainStatus(d) === 'verified') return d;
      checkFree(this.ctx, d.domain, accountContext(accountOf(d)), d.id);
      const next: StoredReservedDomain = { ...d, account_id: accountOf(d), status: 'verified', verified_at: new Date().toISOString(), verified_by: by };
      await store.commit([{ kind: 'reserved_domain', id: next.id, data: next }], this.audits('updated', next), principal);
      return next;
    });
  }

  /**
   * Re-checks every pending reservation of the last RECHECK_DAYS days every `intervalMs` (0: never). There
   * are no rounds to wait for: at each tick, lookups start for the reservations not looked up in the last
   * interval, the accounts taking turns, while fewer than RECHECK_CONCURRENCY are in flight, and at most
   * RECHECK_CONCURRENCY_PER_ACCOUNT of one account's. A name whose DNS never answers holds one of its
   * account's, and another account's reservation made meanwhile starts at the next tick.
   */
  start(intervalMs: number): void {
    if (intervalMs === 0) return;
    this.timer = setInterval(() => this.startLookups(intervalMs), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all([...this.inFlight.values()].map((f) => f.lookup));
  }

  private startLookups(intervalMs: number): void {
    const now = Date.now();
    const since = new Date(now - RECHECK_DAYS * 86_400_000).toISOString();
    const pending = this.ctx.store.all<StoredReservedDomain>('reserved_domain').filter((d) => domainStatus(d) === 'pending' && d.created_at >= since);
    // Reservations verified, deleted or too old since their last lookup are forgotten.
    const ids = new Set(pending.map((d) => d.id));
    for (const id of this.lookedUpAt.keys()) if (!ids.has(id)) this.lookedUpAt.delete(id);
    const due = (d: StoredReservedDomain): boolean => !this.inFlight.has(d.id) && now - (this.lookedUpAt.get(d.id) ?? -Infinity) >= intervalMs;
    const perAccount = new Map<string, number>();
    for (const f of this.inFlight.values()) perAccount.set(f.account, (perAccount.get(f.account) ?? 0) + 1);
    for (const d of inTurns(pending.filter(due))) {
      if (this.inFlight.size >= RECHECK_CONCURRENCY) break;
      const account = accountOf(d);
      const own = perAccount.get(account) ?? 0;
      if (own >= RECHECK_CONCURRENCY_PER_ACCOUNT) continue;
      perAccount.set(account, own + 1);
      const lookup = this.recheckOne(d).finally(() => {
        this.inFlight.delete(d.id);
        this.lookedUpAt.set(d.id, Date.now());
      });
      this.inFlight.set(d.id, { account, lookup });
    }
  }

  private async recheckOne(d: StoredReservedDomain): Promise<void> {
    try {
      if (!(await this.lookup(d)).found) return;
      const current = (): StoredReservedDomain => {
        const now = this.ctx.store.get<StoredReservedDomain>('reserved_domain', d.id);
        if (now === undefined) throw new ApiError('not_found', { resource: 'reserved domain', id: d.id });
        return now;
      };
      await this.markVerified(current, 'dns', null);
      log.info({ id: d.id, domain: d.domain }, 'A pending reserved domain was verified: its TXT challenge record was found.');
    } catch (err) {
      // Another account verified an overlapping name first: only its own verify call tells the customer.
      if (err instanceof ApiError && err.code === 'domain_reserved') return;
      log.warn({ err, id: d.id }, 'A pending reserved domain could not be verified now; it is checked again later.');
    }
  }
}
