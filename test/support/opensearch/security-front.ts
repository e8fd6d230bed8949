// In front of the test OpenSearch node (which runs without its security plugin): a forwarding HTTP server
// that can be taken down and brought back on the same port (an outage), and that can play Elasticsearch
// security as its reference documents it, as a contract receiver: a wrong Basic or ApiKey credential is
// answered 401 security_exception, and a bulk item into an index the user may not write is answered 403
// security_exception on that item ("Security privileges": indices:data/write/bulk[s] unauthorized).
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closeNow, listenOnLoopback } from '../loopback-server.js';

export interface SecurityRules {
  /** The Authorization header values taken; absent: any (or none). */
  readonly credentials?: readonly string[];
  /** Index names the user may write; absent: all. */
  readonly writable?: (index: string) => boolean;
}

export class OpenSearchFront {
  private server: Server | undefined;
  private port = 0;
  rules: SecurityRules = {};

  constructor(private readonly upstream: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Listens (again, on the same port after a stop); a no-op while listening. */
  async start(): Promise<void> {
    if (this.server !== undefined) return;
    this.server = createServer((req, res) => void this.handle(req, res));
    this.port = await listenOnLoopback(this.server, this.port);
  }

  async stop(): Promise<void> {
    if (this.server !== undefined) await closeNow(this.server);
    this.server = undefined;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const { credentials, writable } = this.rules;
    if (credentials !== undefined && !credentials.includes(req.headers.authorization ?? '')) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Basic realm="security" charset="UTF-8"' });
      res.end(JSON.stringify({ error: { type: 'security_exception', reason: 'unable to authenticate user for REST request' }, status: 401 }));
      return;
    }
    if (writable !== undefined && req.url?.startsWith('/_bulk') === true) {
      // Items into an index the user may not write never reach the node; the others are forwarded, and the answers merged in order.
      const lines = body.toString('utf8').split('\n').filter((l) => l !== '');
      const pairs = Array.from({ length: lines.length / 2 }, (_, i) => [lines[i * 2] as string, lines[i * 2 + 1] as string] as const);
      const opOf = (line: string) => Object.entries(JSON.parse(line) as Record<string, { _index: string }>)[0] as [string, { _index: string }];
      const allowed = pairs.filter(([action]) => writable(opOf(action)[1]._index));
      let items: unknown[] = [];
      let errors = false;
      if (allowed.length > 0) {
        const answer = await this.forward(req, Buffer.from(allowed.map(([a, d]) => `${a}\n${d}\n`).join('')));
        const json = JSON.parse(answer.body.toString('utf8')) as { errors: boolean; items: unknown[] };
        items = json.items;
        errors = json.errors;
      }
      const merged = pairs.map(([action]) => {
        const [op, meta] = opOf(action);
        if (writable(meta._index)) return items.shift();
        errors = true;
        return { [op]: { status: 403, error: { type: 'security_exception', reason: `action [indices:data/write/bulk[s]] is unauthorized for user [edge] on indices [${meta._index}]` } } };
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errors, items: merged }));
      return;
    }
    const answer = await this.forward(req, body);
    res.writeHead(answer.status, { 'content-type': answer.type });
    res.end(answer.body);
  }

  private forward(req: IncomingMessage, body: Buffer): Promise<{ status: number; type: string; body: Buffer }> {
    const target = new URL(req.url ?? '/', this.upstream);
    return new Promise((resolve, reject) => {
      const out = request(target, { method: req.method, headers: { 'content-type': req.headers['content-type'] ?? 'application/json' } }, (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 502, type: String(res.headers['content-type'] ?? 'application/json'), body: Buffer.concat(parts) }));
      });
      out.on('error', reject);
      out.end(body);
    });
  }
}
