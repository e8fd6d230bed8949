// Accounts (SECURITY.md "Accounts and tenancy"): every resource and every event belongs to one. The operator's account
// is fixed and has powers the others lack; a resource stored before accounts existed is the operator's.
import { ID_PREFIXES } from '../ids.js';

/**
 * The operator account's id. It is fixed (its time and random parts are zeros, so it sorts first):
 * replicas that start together on an empty config topic create the same account rather than two, and a
 * resource written before accounts existed, which has no account_id, can name its owner without a rewrite.
 */
export const OPERATOR_ACCOUNT_ID = `${ID_PREFIXES.account}_${'0'.repeat(26)}`;

/**
 * The account a request acts for: the admin API scopes every resource to it, and the destination kinds
 * receive it in parse() and verify() (src/delivery/destination-kind.ts).
 */
export interface AccountContext {
  readonly accountId: string;
  /**
   * The operator account: it alone manages accounts and other accounts' API keys, and its subscriptions
   * receive every account's events (and the events that belong to nobody).
   */
  readonly isOperator: boolean;
}

export function accountContext(accountId: string): AccountContext {
  return { accountId, isOperator: accountId === OPERATOR_ACCOUNT_ID };
}

export const OPERATOR: AccountContext = accountContext(OPERATOR_ACCOUNT_ID);

/** What every stored resource has: the account that owns it, absent on resources written before accounts existed. */
export interface Owned {
  readonly account_id?: string;
}

/** The account a stored resource belongs to. */
export function accountOf(stored: Owned): string {
  return stored.account_id ?? OPERATOR_ACCOUNT_ID;
}
