// Bearer authentication (src/admin/README.md "Auth"): every admin route needs "Authorization: Bearer <token>" naming a
// live API key of a live account. The index maps token hashes to key ids and their accounts and follows
// the config log live, so a key deleted on another replica stops working here as soon as the deletion
// is applied.
import type { FastifyRequest } from 'fastify';
import { OPERATOR_ACCOUNT_ID, accountContext, accountOf } from '../accounts/account.js';
import type { ConfigLog } from '../configlog/config-log.js';
import type { Principal } from '../events/envelope.js';
import { hashToken, sameHash } from './api-keys/tokens.js';
import type { StoredApiKey } from './api-keys/api-key-view.js';
import { ApiError } from './errors.js';

/** RFC 6750 2.1: credentials = "Bearer" 1*SP b64token, where b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=". */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** The token of an `Authorization: Bearer <token>` header, or undefined when the header is not one. */
export function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}

/** A live key: its id and its account's. */
export interface KeyHolder {
  readonly id: string;
  readonly accountId: string;
}

export class ApiKeyIndex {
  private readonly byHash = new Map<string, { id: string; hash: string; accountId: string }>();

  /** Call before the config log starts, so the initial load is indexed too. */
  constructor(private readonly configLog: ConfigLog) {
    for (const v of configLog.list('api_key')) this.add(v.data as unknown as StoredApiKey);
    configLog.onChange((c) => {
      if (c.kind !== 'api_key') return;
      if (c.before !== undefined) this.byHash.delete((c.before.data as unknown as StoredApiKey).token_sha256);
      if (c.after !== undefined) this.add(c.after.data as unknown as StoredApiKey);
    });
  }

  get size(): number {
    return this.byHash.size;
  }

  /**
   * The key of a token, or undefined. A key whose account is gone (deleted on another replica while the
   * key was made here) is no key: deleting an account deletes its keys, and this covers a race with it.
   */
  lookup(token: string): KeyHolder | undefined {
    const hash = hashToken(token);
    const hit = this.byHash.get(hash);
    // The map lookup is on the hash, not the token; the final check is constant-time regardless.
    if (hit === undefined || !sameHash(hit.hash, hash)) return undefined;
    const live = hit.accountId === OPERATOR_ACCOUNT_ID || this.configLog.get(hit.accountId)?.kind === 'account';
    return live ? { id: hit.id, accountId: hit.accountId } : undefined;
  }

  private add(key: StoredApiKey): void {
    this.byHash.set(key.token_sha256, { id: key.id, hash: key.token_sha256, accountId: accountOf(key) });
  }
}

/** The onRequest hook of authenticated routes: sets req.principal or answers 401. */
export function bearerAuth(index: ApiKeyIndex, uri: (path: string) => string) {
  return async (req: FastifyRequest): Promise<void> => {
    const header = req.headers.authorization;
    let reason: string;
    if (header === undefined || header === '') {
      reason = 'the Authorization header is missing';
    } else {
      const token = bearerToken(header);
      const key = token === undefined ? undefined : index.lookup(token);
      if (key !== undefined) {
        const principal: Principal = { type: 'api_key', id: key.id, uri: uri(`/api_keys/${key.id}`) };
        req.principal = principal;
        req.account = accountContext(key.accountId);
        return;
      }
      reason = token === undefined ? 'the Authorization header is not "Bearer <token>"' : 'the token is not a live API key';
    }
    throw new ApiError('unauthorized', { reason });
  };
}
