// Google service-account keys and the access tokens made from them, by the flow Google's "Using OAuth 2.0
// for Server to Server Applications" documents: a JWT signed with the key (RS256) naming the account as
// its issuer, the scope, the token endpoint as its audience and an hour's lifetime, exchanged at the token
// endpoint (grant_type urn:ietf:params:oauth:grant-type:jwt-bearer) for a bearer token, which is cached
// until shortly before it expires.
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { DeliveryError } from '../../errors.js';
import { StoreError, storeAnswerError, storeCallError } from '../objects/store-writer.js';
import type { VendorClient } from '../vendor-http/vendor-client.js';

/** Google's token endpoint, the one audience a key's JWT may name (keys carry it as token_uri). */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Read and write of objects, no more (Cloud Storage's "OAuth 2.0 scopes"). */
export const STORAGE_SCOPE = 'https://www.googleapis.com/auth/devstorage.read_write';
/** A token is renewed once less than this is left of it. */
const RENEW_BEFORE_MS = 5 * 60_000;

export interface ServiceAccountKey {
  readonly clientEmail: string;
  readonly privateKeyId: string | undefined;
  readonly privateKey: KeyObject;
}

/** Why a key's JSON text is not a service-account key this service can use, or the key. */
export function parseServiceAccountKey(text: string): ServiceAccountKey | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'must be the JSON text of a service-account key (the file the console downloads)';
  }
  const k = (json ?? {}) as Record<string, unknown>;
  if (k.type !== 'service_account') return 'must be a service-account key ("type": "service_account")';
  if (typeof k.client_email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(k.client_email)) return 'must hold the account\'s client_email';
  // A key names Google's token endpoint; the service sends its JWTs nowhere else (a key is a customer's text, SECURITY.md "Egress").
  if (k.token_uri !== undefined && k.token_uri !== GOOGLE_TOKEN_URL) return `must name Google's token endpoint as token_uri (${GOOGLE_TOKEN_URL})`;
  if (typeof k.private_key !== 'string') return 'must hold the private_key (PEM)';
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(k.private_key);
  } catch {
    return 'must hold a private_key in PEM that can be read';
  }
  if (privateKey.asymmetricKeyType !== 'rsa') return 'must hold an RSA private_key (RS256)';
  return { clientEmail: k.client_email, privateKeyId: typeof k.private_key_id === 'string' ? k.private_key_id : undefined, privateKey };
}

const base64url = (b: Buffer | string): string => Buffer.from(b).toString('base64url');

/** The signed assertion: header {alg: RS256, typ: JWT, kid}, claims {iss, scope, aud, iat, exp (an hour later)}. */
export function assertion(key: ServiceAccountKey, now: number, scope = STORAGE_SCOPE): string {
  const iat = Math.floor(now / 1000);
  const header = { alg: 'RS256', typ: 'JWT', ...(key.privateKeyId !== undefined && { kid: key.privateKeyId }) };
  const claims = { iss: key.clientEmail, scope, aud: GOOGLE_TOKEN_URL, iat, exp: iat + 3600 };
  const unsigned = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  return `${unsigned}.${base64url(sign('sha256', Buffer.from(unsigned), key.privateKey))}`;
}

/** The access tokens of one key: fetched on first use, kept until RENEW_BEFORE_MS before they expire; one fetch at a time. */
export class ServiceAccountTokens {
  private token: { value: string; expiresAt: number } | undefined;
  private fetching: Promise<string> | undefined;

  constructor(
    private readonly key: ServiceAccountKey,
    private readonly client: VendorClient,
    private readonly opts: { readonly tokenUrl?: string | undefined; readonly now?: () => number },
  ) {}

  /** A bearer token good for a few minutes at least; rejects with DESTINATION_AUTH_FAILED when the endpoint refuses the key. */
  get(signal?: AbortSignal): Promise<string> {
    const now = (this.opts.now ?? Date.now)();
    if (this.token !== undefined && this.token.expiresAt - RENEW_BEFORE_MS > now) return Promise.resolve(this.token.value);
    this.fetching ??= this.fetch(now, signal).finally(() => {
      this.fetching = undefined;
    });
    return this.fetching;
  }

  /** Forgets the cached token (the API refused it). */
  drop(): void {
    this.token = undefined;
  }

  private async fetch(now: number, signal?: AbortSignal): Promise<string> {
    const what = 'The service-account token exchange';
    const body = Buffer.from(new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: assertion(this.key, now) }).toString());
    let answer;
    try {
      answer = await this.client.call({ method: 'POST', url: new URL(this.opts.tokenUrl ?? GOOGLE_TOKEN_URL), headers: { 'content-type': 'application/x-www-form-urlencoded' }, body, ...(signal !== undefined && { signal }) });
    } catch (err) {
      throw storeCallError(what, err);
    }
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
    } catch {
      // An answer that is not JSON is judged by its status alone.
    }
    if (answer.status === 200 && typeof json.access_token === 'string') {
      const seconds = typeof json.expires_in === 'number' ? json.expires_in : 3600;
      this.token = { value: json.access_token, expiresAt: now + seconds * 1000 };
      return json.access_token;
    }
    // RFC 6749 5.2: {"error": "invalid_grant", "error_description": "..."}; a 400 or 401 refuses the key.
    const error = typeof json.error === 'string' ? json.error : undefined;
    const description = typeof json.error_description === 'string' ? json.error_description : undefined;
    if (answer.status === 400 || answer.status === 401 || answer.status === 403) {
      throw new DeliveryError('DESTINATION_AUTH_FAILED', `${what} failed: ${error ?? `HTTP${answer.status}`}${description ? `: ${description}` : ''} (HTTP ${answer.status})`, { cause: new StoreError(error ?? `HTTP${answer.status}`, description ?? `HTTP ${answer.status}`), status: answer.status });
    }
    throw storeAnswerError(what, answer.status, error, description);
  }
}
