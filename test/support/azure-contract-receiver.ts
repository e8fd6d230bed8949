// An Azure contract receiver, written from Microsoft's REST references (no emulator of the Logs Ingestion
// API exists): Microsoft Entra ID's v2.0 token endpoint for the client credentials grant, and the Logs
// Ingestion API's upload (POST /dataCollectionRules/{ruleId}/streams/{stream}?api-version=2023-01-01).
// The token endpoint checks the tenant, the client, its secret, the scope and the grant type, answering
// their documented OAuth errors with AADSTS codes. The upload checks the api-version, the bearer token
// (issued here, unexpired, for Azure Monitor's audience), the app's role on the rule, the rule, the stream,
// the content type and encoding and the documented size limits (1,048,576 bytes a call, compressed and
// uncompressed; 64 KB a field), and answers the REST reference's error response with x-ms-error-code.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export const MAX_CALL_BYTES = 1_048_576;
export const MAX_FIELD_BYTES = 65_536;

export interface AppRegistration {
  readonly tenantId: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

export interface Rule {
  readonly ruleId: string;
  /** The input streams the rule declares (streamDeclarations). */
  readonly streams: readonly string[];
  /** Client ids with the Monitoring Metrics Publisher role on the rule. */
  readonly publishers: readonly string[];
}

export interface Upload {
  readonly ruleId: string;
  readonly stream: string;
  readonly status: number;
  readonly code?: string;
  readonly rows: number;
  readonly gzip: boolean;
  readonly at: number;
}

export class AzureContractReceiver {
  /** Rows accepted, per "<rule>/<stream>". */
  readonly rows = new Map<string, Record<string, unknown>[]>();
  readonly uploads: Upload[] = [];
  readonly tokenRequests: { readonly clientId: string; readonly status: number }[] = [];
  /** Fields Azure would have truncated (over 64 KB): a writer must never send one. */
  truncated = 0;
  /** How long issued tokens live, in seconds (Entra ID's expires_in). */
  tokenLifeSeconds = 3599;
  /** Answers an upload after its auth checks; undefined goes on with the rest. `n` counts uploads with rows. */
  script: ((r: { n: number; rows: number }) => { status: number; code: string; headers?: Record<string, string> } | undefined) | undefined;
  private readonly tokens = new Map<string, { clientId: string; tenantId: string; expiresAt: number }>();
  private uploadsWithRows = 0;
  private server: Server | undefined;
  private port = 0;

  constructor(
    private readonly apps: readonly AppRegistration[],
    private readonly rules: readonly Rule[],
  ) {}

  /** AZURE_AUTHORITY_URL: the token endpoint is <authority>/<tenant>/oauth2/v2.0/token. */
  get authorityUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** A logs_ingestion_uri: the same server serves the data collection endpoint. */
  get ingestionUri(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }

  /** Every token issued so far stops being accepted (a 401 follows), as when a token is revoked. */
  revokeTokens(): void {
    this.tokens.clear();
  }

  rowsOf(ruleId: string, stream: string): Record<string, unknown>[] {
    return this.rows.get(`${ruleId}/${stream}`) ?? [];
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://receiver');
    const token = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname);
    if (token !== null && req.method === 'POST') return this.token(decodeURIComponent(token[1] as string), req, raw, res);
    const upload = /^\/dataCollectionRules\/([^/]+)\/streams\/([^/]+)$/.exec(url.pathname);
    if (upload !== null && req.method === 'POST') return this.upload(decodeURIComponent(upload[1] as string), decodeURIComponent(upload[2] as string), url, req, raw, res);
    res.writeHead(404).end();
  }

  /** Entra ID's token endpoint (OAuth 2.0 client credentials grant, "Get a token"): errors as its "error response" with AADSTS codes. */
  private token(tenant: string, req: IncomingMessage, raw: Buffer, res: ServerResponse): void {
    const form = new URLSearchParams(raw.toString('utf8'));
    const clientId = form.get('client_id') ?? '';
    const fail = (status: number, error: string, aadsts: number, description: string): void => {
      this.tokenRequests.push({ clientId, status });
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ error, error_description: `AADSTS${aadsts}: ${description}`, error_codes: [aadsts], timestamp: new Date().toISOString() }));
    };
    if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return fail(400, 'invalid_request', 900144, "The request body must contain the following parameter: 'grant_type'.");
    if (form.get('grant_type') !== 'client_credentials') return fail(400, 'unsupported_grant_type', 70003, 'The app requested an unsupported grant type.');
    if (!this.apps.some((a) => a.tenantId === tenant)) return fail(400, 'invalid_request', 90002, `Tenant '${tenant}' not found.`);
    const app = this.apps.find((a) => a.tenantId === tenant && a.clientId === clientId);
    if (app === undefined) return fail(400, 'unauthorized_client', 700016, `Application with identifier '${clientId}' was not found in the directory.`);
    if (form.get('client_secret') !== app.clientSecret) return fail(401, 'invalid_client', 7000215, 'Invalid client secret provided.');
    // A v2.0 client credentials request asks for <resource>/.default; Azure Monitor's resource is https://monitor.azure.com/.
    if (form.get('scope') !== 'https://monitor.azure.com//.default') return fail(400, 'invalid_scope', 70011, `The provided value for the input parameter 'scope' is not valid.`);
    const accessToken = randomBytes(24).toString('base64url');
    this.tokens.set(accessToken, { clientId, tenantId: tenant, expiresAt: Date.now() + this.tokenLifeSeconds * 1000 });
    this.tokenRequests.push({ clientId, status: 200 });
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ token_type: 'Bearer', expires_in: this.tokenLifeSeconds, ext_expires_in: this.tokenLifeSeconds, access_token: accessToken }));
  }

  /** The Logs Ingestion API's Upload: 204, or the REST reference's ErrorResponse with x-ms-error-code. */
  private upload(ruleId: string, stream: string, url: URL, req: IncomingMessage, raw: Buffer, res: ServerResponse): void {
    const gzip = req.headers['content-encoding'] === 'gzip';
    const record = (status: number, code: string | undefined, rows: number): void => {
      this.uploads.push({ ruleId, stream, status, ...(code !== undefined && { code }), rows, gzip, at: Date.now() });
    };
    const fail = (status: number, code: string, message: string, headers: Record<string, string> = {}, rows = 0): void => {
      record(status, code, rows);
      res.writeHead(status, { 'content-type': 'application/json', 'x-ms-error-code': code, ...headers });
      res.end(JSON.stringify({ error: { code, message } }));
    };
    if (url.searchParams.get('api-version') !== '2023-01-01') return fail(400, 'InvalidApiVersion', `The api-version '${url.searchParams.get('api-version') ?? ''}' is not supported.`);
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '');
    const held = auth === null ? undefined : this.tokens.get(auth[1] as string);
    if (held === undefined || held.expiresAt < Date.now()) return fail(401, 'InvalidToken', 'The authentication token is missing, expired or invalid.');
    const rule = this.rules.find((r) => r.ruleId === ruleId);
    if (rule === undefined) return fail(404, 'NotFound', `Data collection rule with immutable Id '${ruleId}' not found.`);
    if (!rule.publishers.includes(held.clientId)) return fail(403, 'OperationFailed', `The authentication token provided does not have access to ingest data for the data collection rule with immutable Id '${ruleId}'.`);
    if (!rule.streams.includes(stream)) return fail(400, 'InvalidStream', `Stream '${stream}' is not found in data collection rule '${ruleId}'.`);
    if (!String(req.headers['content-type']).startsWith('application/json')) return fail(400, 'InvalidContentType', 'The Content-Type must be application/json.');
    if (req.headers['content-encoding'] !== undefined && !gzip) return fail(400, 'InvalidContentEncoding', "The only Content-Encoding is 'gzip'.");
    // "Maximum size of API call: 1 MB for both compressed and uncompressed data."
    const tooLarge = (n: number) => fail(413, 'ContentLengthLimitExceeded', `Maximum allowed content length: ${MAX_CALL_BYTES} bytes (1 MB). Provided content length: ${n} bytes.`);
    if (raw.length > MAX_CALL_BYTES) return tooLarge(raw.length);
    let body: Buffer;
    try {
      body = gzip ? gunzipSync(raw) : raw;
    } catch {
      return fail(400, 'InvalidContentEncoding', 'The body is not valid gzip.');
    }
    if (body.length > MAX_CALL_BYTES) return tooLarge(body.length);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return fail(400, 'InvalidPayload', 'The body is not valid JSON.');
    }
    if (!Array.isArray(parsed) || !parsed.every((r) => r !== null && typeof r === 'object' && !Array.isArray(r))) return fail(400, 'InvalidPayload', 'The body must be a JSON array of objects.');
    const rows = parsed as Record<string, unknown>[];
    if (rows.length > 0) {
      const scripted = this.script?.({ n: this.uploadsWithRows++, rows: rows.length });
      if (scripted !== undefined) return fail(scripted.status, scripted.code, 'scripted', scripted.headers, rows.length);
    }
    // "Maximum size for field values: 64 KB. Fields longer than 64 KB are truncated."
    for (const r of rows) for (const v of Object.values(r)) if (Buffer.byteLength(typeof v === 'string' ? v : JSON.stringify(v)) > MAX_FIELD_BYTES) this.truncated++;
    const key = `${ruleId}/${stream}`;
    this.rows.set(key, [...(this.rows.get(key) ?? []), ...rows]);
    record(204, undefined, rows.length);
    res.writeHead(204).end();
  }
}
