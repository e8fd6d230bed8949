// A small HTTP proxy on 127.0.0.1 in front of the AWS emulator that injects faults: throttling and 5xx
// answers, partial batch failures (the failed entries are taken out of the request, so they really are
// not written, and put back into the answer with an error code), and outages (the port refuses connections).
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { listenOnLoopback } from './loopback-server.js';

export interface ProxiedCall {
  /** n-th call of this operation through the proxy, from 0. */
  readonly n: number;
  /** The AWS JSON operation, e.g. "PutRecords", "PutRecordBatch", "PutLogEvents"; "" for query-protocol calls (STS). */
  readonly operation: string;
  /** The body, parsed, for JSON-protocol calls. */
  readonly body: Record<string, unknown> | undefined;
  /** The HTTP method and path: what names a REST-protocol call (S3: PUT /<bucket>/<key>). */
  readonly method: string;
  readonly path: string;
}

export type Fault =
  /**
   * Hold the call, run `then` (e.g. kill the caller), and never answer: with `forwarded`, once the
   * emulator has done it (the call's effect is stored, its answer lost), else without reaching the emulator.
   */
  | { readonly hang: true; readonly forwarded: boolean; readonly then: () => void }
  /**
   * Answer with this status and AWS error name, without reaching the emulator; an error named "" is
   * answered with no name and no body, as S3 answers a HEAD.
   */
  | { readonly status: number; readonly error: string; readonly message?: string }
  /** Forward the call without these entries, then report them failed with `errorCode`. */
  | { readonly failIndexes: readonly number[]; readonly errorCode: string; readonly errorMessage?: string };

export type FaultScript = (call: ProxiedCall) => Fault | undefined;

// The batch arrays and their failure counters, per operation.
const BATCHES: Record<string, { request: string; response: string; failedCount: string }> = {
  PutRecords: { request: 'Records', response: 'Records', failedCount: 'FailedRecordCount' },
  PutRecordBatch: { request: 'Records', response: 'RequestResponses', failedCount: 'FailedPutCount' },
};

export class AwsFaultProxy {
  script: FaultScript = () => undefined;
  /** Access key ids of the signatures the proxy saw, per operation ("" for STS calls). */
  readonly accessKeys: Array<{ operation: string; accessKeyId: string }> = [];
  readonly faults: Array<{ operation: string; fault: string }> = [];
  /** The parameters of every query-protocol call (STS: Action, RoleArn, ExternalId, ...), as sent. */
  readonly queryCalls: Array<Record<string, string>> = [];
  private readonly counts = new Map<string, number>();
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private port = 0;

  constructor(private readonly upstream: string) {}

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Listens (again, on the same port after stop()). */
  async start(): Promise<void> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        res.writeHead(502).end(String(err));
      });
    });
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    this.port = await listenOnLoopback(server, this.port);
    this.server = server;
  }

  /** Stops listening and cuts open connections: calls fail with connection refused or reset. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: Buffer = Buffer.concat(chunks);
    const target = String(req.headers['x-amz-target'] ?? '');
    const operation = target.includes('.') ? target.slice(target.indexOf('.') + 1) : '';
    const keyId = /Credential=([^/]+)\//.exec(String(req.headers.authorization ?? ''))?.[1] ?? '';
    this.accessKeys.push({ operation, accessKeyId: keyId });
    if (operation === '' && body.length > 0) this.queryCalls.push(Object.fromEntries(new URLSearchParams(body.toString('utf8'))));
    const n = this.counts.get(operation) ?? 0;
    this.counts.set(operation, n + 1);
    const parsed = operation !== '' && body.length > 0 ? (JSON.parse(body.toString('utf8')) as Record<string, unknown>) : undefined;
    const fault = this.script({ n, operation, body: parsed, method: req.method ?? '', path: req.url ?? '' });

    if (fault !== undefined && 'hang' in fault) {
      this.faults.push({ operation, fault: `hang ${fault.forwarded ? 'after' : 'before'} ${req.method} ${req.url}` });
      if (fault.forwarded) await this.forward(req, body);
      fault.then();
      return;
    }

    if (fault !== undefined && 'status' in fault) {
      this.faults.push({ operation, fault: `${fault.status} ${fault.error}` });
      if (fault.error === '') {
        res.writeHead(fault.status, { 'content-length': 0 }).end();
        return;
      }
      const text = JSON.stringify({ __type: fault.error, message: fault.message ?? `injected ${fault.error}` });
      res.writeHead(fault.status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': fault.error, 'content-length': Buffer.byteLength(text) });
      res.end(text);
      return;
    }
    const batch = BATCHES[operation];
    let failIndexes: number[] = [];
    if (fault !== undefined && batch !== undefined && parsed !== undefined) {
      const records = parsed[batch.request] as unknown[];
      failIndexes = fault.failIndexes.filter((i) => i >= 0 && i < records.length);
      this.faults.push({ operation, fault: `partial ${failIndexes.length}/${records.length} ${fault.errorCode}` });
      parsed[batch.request] = records.filter((_, i) => !failIndexes.includes(i));
      body = Buffer.from(JSON.stringify(parsed));
    }
    const upstream = await this.forward(req, body);
    let out = upstream.body;
    if (fault !== undefined && 'failIndexes' in fault && batch !== undefined && failIndexes.length > 0 && upstream.status === 200) {
      const answer = JSON.parse(out.toString('utf8')) as Record<string, unknown>;
      const results = [...(answer[batch.response] as unknown[])];
      for (const i of [...failIndexes].sort((a, b) => a - b)) {
        results.splice(i, 0, { ErrorCode: fault.errorCode, ErrorMessage: fault.errorMessage ?? `injected ${fault.errorCode}` });
      }
      answer[batch.response] = results;
      answer[batch.failedCount] = ((answer[batch.failedCount] as number | undefined) ?? 0) + failIndexes.length;
      out = Buffer.from(JSON.stringify(answer));
    }
    const headers: Record<string, string | string[] | undefined> = { ...upstream.headers, 'content-length': String(out.length) };
    delete headers['transfer-encoding'];
    res.writeHead(upstream.status, headers);
    res.end(out);
  }

  private forward(req: IncomingMessage, body: Buffer): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
    const url = new URL(req.url ?? '/', this.upstream);
    return new Promise((resolve, reject) => {
      const headers = { ...req.headers, host: url.host, 'content-length': String(body.length) };
      const up = request(url, { method: req.method, headers }, (r) => {
        const parts: Buffer[] = [];
        r.on('data', (c: Buffer) => parts.push(c));
        r.on('end', () => resolve({ status: r.statusCode ?? 502, headers: r.headers, body: Buffer.concat(parts) }));
        r.on('error', reject);
      });
      up.on('error', reject);
      up.end(body);
    });
  }
}
