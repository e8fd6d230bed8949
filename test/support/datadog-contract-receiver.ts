// A Datadog contract receiver: the logs intake (POST /api/v2/logs) and the key validation (GET
// /api/v1/validate) as Datadog's API reference states them ("Send logs", "Validate API key", "Rate
// Limits"), for the answers VictoriaLogs does not give. It checks every request against the documented
// rules (the DD-API-KEY header, JSON, gzip, 5,000,000 bytes uncompressed, 1,000 entries, 1,000,000 bytes a
// log) and answers as documented: 202, 400, 403, 413; a test scripts 429 (with its rate-limit headers),
// 408 and 5xx.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export const DOCUMENTED = { maxPayloadBytes: 5_000_000, maxEntries: 1_000, maxEntryBytes: 1_000_000 } as const;

export interface DatadogLog {
  readonly message: string;
  readonly ddsource?: string;
  readonly service?: string;
  readonly ddtags?: string;
  readonly hostname?: string;
  readonly timestamp?: number;
}

export interface ScriptedAnswer {
  readonly status: number;
  readonly headers?: Record<string, string>;
}

export interface DatadogRequest {
  readonly path: string;
  readonly status: number;
  readonly entries: number;
  readonly at: number;
}

export class DatadogContractReceiver {
  /** Every log the intake accepted, in order. */
  readonly logs: DatadogLog[] = [];
  readonly requests: DatadogRequest[] = [];
  /** Logs the real intake would have truncated (over 1,000,000 bytes): a writer must never send one. */
  truncated = 0;
  /** Answers an intake request before its checks; undefined goes on with them. `n` counts intake requests. */
  script: ((r: { n: number; entries: number }) => ScriptedAnswer | undefined) | undefined;
  private intakeRequests = 0;
  private server: Server | undefined;
  private port = 0;

  constructor(readonly validKeys: ReadonlySet<string>) {}

  get baseUrl(): string {
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

  /** The messages parsed: the envelopes delivered. */
  envelopes(): Record<string, unknown>[] {
    return this.logs.map((l) => JSON.parse(l.message) as Record<string, unknown>);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    const path = (req.url ?? '').split('?')[0] ?? '';
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}, entries = 0): void => {
      this.requests.push({ path, status, entries, at: Date.now() });
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    const key = req.headers['dd-api-key'];
    if (req.method === 'GET' && path === '/api/v1/validate') {
      // "Check if the API key (not the APP key) is valid. If invalid, a 403 is returned."
      return typeof key === 'string' && this.validKeys.has(key) ? answer(200, { valid: true }) : answer(403, { errors: ['Forbidden'] });
    }
    if (req.method !== 'POST' || path !== '/api/v2/logs') return answer(404, { errors: ['Not found'] });
    const n = this.intakeRequests++;
    // "401: Unauthorized (likely a missing API Key)", "403: Permission issue (likely using an invalid API Key)".
    if (typeof key !== 'string' || key === '') return answer(401, { errors: ['Unauthorized'] });
    if (!this.validKeys.has(key)) return answer(403, { errors: ['Forbidden'] });
    let body: Buffer;
    try {
      body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
    } catch {
      return answer(400, { errors: ['Bad Request: the body is not valid gzip'] });
    }
    // "413: Payload too large (batch is above 5MB uncompressed)".
    if (body.length > DOCUMENTED.maxPayloadBytes) return answer(413, { errors: ['Payload Too Large'] });
    if (!String(req.headers['content-type']).startsWith('application/json')) return answer(400, { errors: ['Bad Request: content-type'] });
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return answer(400, { errors: ['Bad Request: the body is not JSON'] });
    }
    const entries = Array.isArray(parsed) ? parsed : [parsed];
    const scripted = this.script?.({ n, entries: entries.length });
    if (scripted !== undefined) return answer(scripted.status, { errors: ['scripted'] }, scripted.headers, entries.length);
    // "Maximum array size if sending multiple logs in an array: 1000 entries".
    if (entries.length > DOCUMENTED.maxEntries) return answer(400, { errors: ['Bad Request: more than 1000 entries'] });
    for (const e of entries) {
      if (e === null || typeof e !== 'object' || typeof (e as DatadogLog).message !== 'string') return answer(400, { errors: ['Bad Request: an entry without a message'] });
      if (Buffer.byteLength(JSON.stringify(e)) > DOCUMENTED.maxEntryBytes) this.truncated++;
    }
    this.logs.push(...(entries as DatadogLog[]));
    answer(202, {}, {}, entries.length);
  }
}
