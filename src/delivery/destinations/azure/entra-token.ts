// Microsoft Entra ID access tokens for an app registration (OAuth 2.0 client credentials, the v2.0 token
// endpoint), for the Azure kinds: fetched on first use, kept until shortly before they expire, and fetched
// again early when the resource answers 401. Failures are DeliveryErrors in the customer's words.
import { DeliveryError } from '../../errors.js';
import { ERROR_ANSWER_BYTES, jsonOf, VendorClient } from '../vendor-http/vendor-client.js';
import { parseRetryAfter } from '../http/retry-after.js';

/** Entra ID's authority in Azure's public cloud; AZURE_AUTHORITY_URL replaces it (tests). */
export const ENTRA_AUTHORITY = 'https://login.microsoftonline.com';

/** A token is fetched again this long before it expires, or halfway through a shorter life. */
const REFRESH_BEFORE_MS = 5 * 60 * 1000;

export interface ClientCredentials {
  readonly tenantId: string;
  readonly clientId: string;
  /** Held in memory only; never logged. */
  readonly clientSecret: string;
}

export interface EntraTokenOptions {
  /** Absent: ENTRA_AUTHORITY. */
  readonly authorityUrl?: string | undefined;
  readonly timeoutMs: number;
  readonly now?: () => number;
  /** Names the fields in messages: "target.azure_logs_ingestion". */
  readonly fieldPrefix: string;
}

/** Entra ID's own words for a refused token request, the cause of its DeliveryError: its OAuth error and AADSTS code. */
export interface EntraRefusal {
  readonly error: string;
  readonly aadsts?: number;
}

/** Tokens of one app registration for one scope. */
export class EntraTokenSource {
  readonly tokenUrl: URL;
  private readonly http: VendorClient;
  private readonly now: () => number;
  private cached: { readonly token: string; readonly refreshAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(
    private readonly creds: ClientCredentials,
    private readonly scope: string,
    private readonly opts: EntraTokenOptions,
  ) {
    const authority = (opts.authorityUrl ?? ENTRA_AUTHORITY).replace(/\/+$/, '');
    this.tokenUrl = new URL(`${authority}/${encodeURIComponent(creds.tenantId)}/oauth2/v2.0/token`);
    this.http = new VendorClient({ timeoutMs: opts.timeoutMs, maxAnswerBytes: ERROR_ANSWER_BYTES, longerAnswer: 'cut', vendor: 'Microsoft Entra ID' });
    this.now = opts.now ?? Date.now;
  }

  /** A token still good for a while: the cached one, or a new one (one fetch at a time). */
  token(): Promise<string> {
    if (this.cached !== undefined && this.now() < this.cached.refreshAt) return Promise.resolve(this.cached.token);
    this.pending ??= this.fetch().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** The resource refused `token` (401): the next token() fetches a new one. */
  invalidate(token: string): void {
    if (this.cached?.token === token) this.cached = undefined;
  }

  close(): void {
    this.http.close();
  }

  private async fetch(): Promise<string> {
    const form = new URLSearchParams({ client_id: this.creds.clientId, client_secret: this.creds.clientSecret, scope: this.scope, grant_type: 'client_credentials' });
    const started = this.now();
    const answer = await this.http.call({
      method: 'POST',
      url: this.tokenUrl,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: Buffer.from(form.toString()),
    });
    const json = jsonOf(answer) as { access_token?: unknown; expires_in?: unknown; error?: unknown; error_codes?: unknown } | undefined;
    if (answer.status === 200 && typeof json?.access_token === 'string' && json.access_token !== '') {
      const lifeMs = (typeof json.expires_in === 'number' ? json.expires_in : Number(json.expires_in ?? 0)) * 1000;
      const life = Number.isFinite(lifeMs) && lifeMs > 0 ? lifeMs : 0;
      this.cached = { token: json.access_token, refreshAt: started + life - Math.min(REFRESH_BEFORE_MS, life / 2) };
      return json.access_token;
    }
    const retryAfterMs = parseRetryAfter(header(answer.headers['retry-after']), this.now());
    if (answer.status === 429) throw new DeliveryError('DESTINATION_THROTTLED', 'Microsoft Entra ID is throttling token requests (429); asked again later.', { status: 429, ...(retryAfterMs !== undefined && { retryAfterMs }) });
    if (answer.status >= 500) throw new DeliveryError('DESTINATION_SERVER_ERROR', `Microsoft Entra ID answered ${answer.status}, an error on its side; the token is asked for again.`, { status: answer.status });
    const error = typeof json?.error === 'string' ? json.error : undefined;
    const aadsts = Array.isArray(json?.error_codes) && typeof json.error_codes[0] === 'number' ? json.error_codes[0] : undefined;
    const vendor: EntraRefusal = { error: error ?? `HTTP ${answer.status}`, ...(aadsts !== undefined && { aadsts }) };
    throw new DeliveryError('DESTINATION_AUTH_FAILED', this.refusal(answer.status, error, aadsts), { status: answer.status, cause: vendor });
  }

  /** Why Entra ID gave no token, with what to fix, from its error and AADSTS code (Entra ID's "error codes" reference). */
  private refusal(status: number, error: string | undefined, aadsts: number | undefined): string {
    const p = this.opts.fieldPrefix;
    const code = `${error ?? `HTTP ${status}`}${aadsts === undefined ? '' : `, AADSTS${aadsts}`}`;
    const head = `Microsoft Entra ID gave no token for the app ${this.creds.clientId} in the tenant ${this.creds.tenantId} (${code})`;
    switch (aadsts) {
      case 7000215:
        return `${head}: the client secret is not valid. Set ${p}.client_secret to the secret's Value (shown once when it is created), not its Secret ID.`;
      case 7000222:
        return `${head}: the client secret has expired. Create a new one for the app and set ${p}.client_secret to its Value.`;
      case 700016:
        return `${head}: the tenant has no application with that client ID. Check ${p}.client_id (the Application (client) ID) and ${p}.tenant_id (the Directory (tenant) ID).`;
      case 90002:
        return `${head}: the tenant does not exist. Check ${p}.tenant_id (the Directory (tenant) ID).`;
      default:
        return `${head}. Check ${p}.tenant_id, ${p}.client_id and ${p}.client_secret.`;
    }
  }
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
