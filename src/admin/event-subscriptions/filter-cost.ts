// The filter work one record may cost an account: its subscriptions' filters and its open taps' together,
// bounded by ACCOUNT_FILTER_COST_LIMIT before a change that adds work is stored (SECURITY.md "Limits").
//
// A record is matched against its owner's filters only (src/cel/matcher-index.ts), so this bound is
// the filter work any one account can make a worker do per record. The operator account is not bound.
import { OPERATOR_ACCOUNT_ID, accountOf } from '../../accounts/account.js';
import { compile } from '../../cel/compile.js';
import type { StoredSource, StoredSubscription } from '../../configlog/resources.js';
import { isTrafficEventType } from '../../events/catalog.js';
import type { AdminContext } from '../context.js';
import { ApiError } from '../errors.js';

/** Costs by type and filter text, so a check does not compile every filter of the account again. */
const known = new Map<string, number>();
const KNOWN_MAX = 20_000;

/** The work bound of one evaluation of a source's filter (src/cel/compiler/work.ts); 0 for none. */
export function sourceCost(source: StoredSource): number {
  const filter = source.filter ?? '';
  if (filter.trim() === '' || !isTrafficEventType(source.type)) return 0;
  const key = `${source.type}\u0000${filter}`;
  let cost = known.get(key);
  if (cost === undefined) {
    const compiled = compile(filter, source.type);
    // A stored filter that no longer compiles is matched by no worker either.
    cost = compiled.ok ? compiled.filter.cost : 0;
    if (known.size >= KNOWN_MAX) known.clear();
    known.set(key, cost);
  }
  return cost;
}

export const sourcesCost = (sources: readonly StoredSource[]): number => sources.reduce((sum, s) => sum + sourceCost(s), 0);

/**
 * Refuses (409 filter_cost_limit) a change that gives `account` filters costing `adding` per record,
 * when with its other subscriptions (all but `replacing`) and its open taps they would pass the limit.
 * Call inside the store's exclusive section, with the change's write.
 */
export function checkAccountFilterCost(ctx: AdminContext, account: string, adding: number, replacing?: string): void {
  if (account === OPERATOR_ACCOUNT_ID || adding === 0) return;
  let current = ctx.taps?.costOf(account) ?? 0;
  let replaced = 0;
  // Paused subscriptions count too: resuming one is a change like any other, and is not checked again.
  for (const s of ctx.store.all<StoredSubscription>('event_subscription')) {
    if (accountOf(s) !== account) continue;
    if (s.id === replacing) replaced = sourcesCost(s.sources);
    else current += sourcesCost(s.sources);
  }
  // A change that adds no work passes, even over a limit lowered since.
  if (adding <= replaced) return;
  const limit = ctx.config.accountFilterCostLimit;
  const total = current + adding;
  if (total > limit) throw new ApiError('filter_cost_limit', { account_id: account, total, current, cost: adding, limit });
}
