// A contract receiver of Google's OAuth 2.0 token endpoint for service accounts, written from Google's
// "Using OAuth 2.0 for Server to Server Applications" (the JWT-bearer flow), since the Cloud Storage
// emulator checks no tokens: a form POST with grant_type urn:ietf:params:oauth:grant-type:jwt-bearer and
// an assertion, a JWT whose header is {"alg":"RS256","typ":"JWT"} and whose claims are iss (the
// service account's email), scope, aud (https://oauth2.googleapis.com/token), iat and exp (at most an hour
// after iat), signed with the account's private key. It verifies the signature against the public key of
// the account it knows by email, answers {"access_token", "expires_in", "token_type": "Bearer"}, and
// refuses anything else as the endpoint does: 400 {"error": "invalid_grant" | "unsupported_grant_type", "error_description"}.
import { generateKeyPairSync, verify, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { closeNow, listenOnLoopback } from './loopback-server.js';

export interface TestServiceAccount {
  readonly email: string;
  /** The key's JSON text, as the console downloads it. */
  readonly keyJson: string;
}

/** A new RSA key pair and its key file for `email`. */
export function serviceAccountKey(email: string): { account: TestServiceAccount; publicKey: KeyObject } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyJson = JSON.stringify({
    type: 'service_account',
    project_id: 'edge-events-test',
    private_key_id: `kid-${email.split('@')[0]}`,
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: email,
    client_id: '100000000000000000001',
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: 'https://oauth2.googleapis.com/token',
  });
  return { account: { email, keyJson }, publicKey };
}

export class GoogleTokenReceiver {
  /** Every exchange: the account, the scope asked for, and whether it was granted (with the reason when not). */
  readonly exchanges: { iss: string | undefined; scope: string | undefined; granted: boolean; reason?: string }[] = [];
  /** Tokens issued, by value: the account they are for. */
  readonly issued = new Map<string, string>();
  private readonly keys = new Map<string, KeyObject>();
  private server: Server | undefined;
  private port = 0;
  private n = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/token`;
  }

  /** A service account this endpoint knows; its key file. */
  addAccount(email: string): TestServiceAccount {
    const { account, publicKey } = serviceAccountKey(email);
    this.keys.set(email, publicKey);
    return account;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const answer = this.exchange(req.method ?? '', String(req.headers['content-type'] ?? ''), Buffer.concat(chunks).toString('utf8'));
        res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(answer.body));
      });
    });
    this.port = await listenOnLoopback(server, this.port);
    this.server = server;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s !== undefined) await closeNow(s);
  }

  private refuse(iss: string | undefined, scope: string | undefined, error: string, reason: string) {
    this.exchanges.push({ iss, scope, granted: false, reason });
    return { status: 400, body: { error, error_description: reason } };
  }

  private exchange(method: string, contentType: string, text: string): { status: number; body: unknown } {
    if (method !== 'POST' || !contentType.startsWith('application/x-www-form-urlencoded')) return this.refuse(undefined, undefined, 'invalid_request', 'POST a form.');
    const form = new URLSearchParams(text);
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return this.refuse(undefined, undefined, 'unsupported_grant_type', 'Invalid grant_type.');
    const parts = (form.get('assertion') ?? '').split('.');
    if (parts.length !== 3) return this.refuse(undefined, undefined, 'invalid_grant', 'Invalid JWT.');
    const [h, c, s] = parts as [string, string, string];
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as Record<string, unknown>;
      claims = JSON.parse(Buffer.from(c, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return this.refuse(undefined, undefined, 'invalid_grant', 'Invalid JWT.');
    }
    const iss = typeof claims.iss === 'string' ? claims.iss : undefined;
    const scope = typeof claims.scope === 'string' ? claims.scope : undefined;
    if (header.alg !== 'RS256' || header.typ !== 'JWT') return this.refuse(iss, scope, 'invalid_grant', 'Invalid JWT header: RS256 JWTs only.');
    const key = iss === undefined ? undefined : this.keys.get(iss);
    if (key === undefined) return this.refuse(iss, scope, 'invalid_grant', 'Invalid JWT Signature.');
    if (!verify('sha256', Buffer.from(`${h}.${c}`), key, Buffer.from(s, 'base64url'))) return this.refuse(iss, scope, 'invalid_grant', 'Invalid JWT Signature.');
    if (claims.aud !== 'https://oauth2.googleapis.com/token') return this.refuse(iss, scope, 'invalid_grant', 'Invalid JWT: aud must be https://oauth2.googleapis.com/token.');
    if (scope === undefined || scope === '') return this.refuse(iss, scope, 'invalid_scope', 'Empty or missing scope not allowed.');
    const now = Math.floor(Date.now() / 1000);
    const iat = claims.iat;
    const exp = claims.exp;
    if (typeof iat !== 'number' || typeof exp !== 'number' || exp <= iat || exp - iat > 3600 || iat > now + 300 || exp < now) {
      return this.refuse(iss, scope, 'invalid_grant', 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.');
    }
    const token = `ya29.test-${++this.n}`;
    this.issued.set(token, iss as string);
    this.exchanges.push({ iss, scope, granted: true });
    return { status: 200, body: { access_token: token, expires_in: 3599, token_type: 'Bearer' } };
  }
}

/**
 * In front of the emulator, what Cloud Storage does with a request's token: one the receiver did not issue
 * is answered 401 {"error": {"code": 401, "errors": [{"reason": "authError"}]}}; the rest are passed on.
 * Stopping it is an outage between a writer and the store (connections cut, new ones refused).
 */
export class BearerGate {
  private server: Server | undefined;
  private port = 0;
  /** Requests passed on, by method and path. */
  readonly passed: string[] = [];

  constructor(
    private readonly receiver: GoogleTokenReceiver,
    private readonly upstream: string,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const token = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
        if (token === undefined || !this.receiver.issued.has(token)) {
          res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 401, message: 'Invalid Credentials', errors: [{ reason: 'authError', message: 'Invalid Credentials' }] } }));
          return;
        }
        this.passed.push(`${req.method} ${req.url}`);
        const headers: Record<string, string> = {};
        for (const name of ['content-type', 'content-length']) if (typeof req.headers[name] === 'string') headers[name] = req.headers[name];
        void fetch(new URL(req.url ?? '/', this.upstream), { method: req.method ?? 'GET', headers, ...(chunks.length > 0 && { body: Buffer.concat(chunks) }) }).then(
          async (up) => {
            const body = Buffer.from(await up.arrayBuffer());
            res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'application/json' }).end(body);
          },
          () => res.writeHead(502).end(),
        );
      });
    });
    this.port = await listenOnLoopback(server, this.port);
    this.server = server;
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = undefined;
    if (s !== undefined) await closeNow(s);
  }
}
