// One HTTPS (or, in tests, HTTP) call to a vendor's API for the kinds that speak one (datadog,
// azure_logs_ingestion): a keep-alive agent whose sockets connect through a given lookup (the guarded one
// for a customer's host, SECURITY.md "Egress"), a timeout, calls cut short on close, and the answer's
// status, headers and first bytes. Failures to get an answer are DeliveryErrors in the service's words.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { AddressRefusedError } from '../net/guarded-lookup.js';
import { DeliveryError } from './errors.js';

export interface VendorAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The answer's body, at most MAX_ANSWER_BYTES of it: read for the vendor's error code, never repeated whole. */
  readonly body: Buffer;
}

/** How much of an answer is kept: enough for a token or an error object. */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface VendorCall {
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  readonly headers: Record<string, string | number>;
  readonly body?: Buffer;
  /** Names the vendor in errors: "Datadog", "Microsoft Entra ID". */
  readonly vendor: string;
}

export class VendorHttp {
  private readonly agents = new Map<string, HttpAgent>();
  private readonly inFlight = new Set<ClientRequest>();
  private closed = false;

  constructor(private readonly opts: { readonly timeoutMs: number; readonly lookup?: LookupFunction | undefined }) {}

  get isClosed(): boolean {
    return this.closed;
  }

  /** One request; resolves with the answer, whatever its status, or rejects with a DeliveryError. */
  call(c: VendorCall): Promise<VendorAnswer> {
    if (this.closed) return Promise.reject(new DeliveryError('WRITER_CLOSED', 'The writer is closed.'));
    const https = c.url.protocol === 'https:';
    const send = https ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      let timedOut = false;
      const req = send({
        protocol: c.url.protocol,
        hostname: c.url.hostname.replace(/^\[|\]$/g, ''),
        port: c.url.port === '' ? undefined : Number(c.url.port),
        path: `${c.url.pathname}${c.url.search}`,
        method: c.method,
        headers: { 'user-agent': 'edge-events', ...c.headers, ...(c.body !== undefined && { 'content-length': c.body.length }) },
        agent: this.agent(c.url.protocol),
        ...(this.opts.lookup !== undefined && { lookup: this.opts.lookup }),
      });
      this.inFlight.add(req);
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy();
      }, this.opts.timeoutMs);
      const settle = (): void => {
        clearTimeout(timer);
        this.inFlight.delete(req);
      };
      req.once('error', (err) => {
        settle();
        reject(this.requestError(c, err, timedOut));
      });
      req.once('response', (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept < MAX_ANSWER_BYTES) chunks.push(chunk.subarray(0, MAX_ANSWER_BYTES - kept));
          kept += chunk.length;
          // Read on to reuse the connection, up to a bound; a larger answer is cut.
          if (kept > 16 * MAX_ANSWER_BYTES) res.destroy();
        });
        let done = false;
        const finish = (): void => {
          if (done) return;
          done = true;
          settle();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        };
        res.once('end', finish);
        res.once('close', finish);
        res.once('error', finish);
      });
      req.end(c.body);
    });
  }

  /** Aborts calls still running (they fail as WRITER_CLOSED, retryable) and closes the connections. Idempotent. */
  close(): void {
    this.closed = true;
    for (const req of this.inFlight) req.destroy();
    for (const agent of this.agents.values()) agent.destroy();
  }

  private agent(protocol: string): HttpAgent {
    let agent = this.agents.get(protocol);
    if (agent === undefined) {
      const options = { keepAlive: true, ...(this.opts.lookup !== undefined && { lookup: this.opts.lookup }) };
      agent = protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
      this.agents.set(protocol, agent);
    }
    return agent;
  }

  private requestError(c: VendorCall, err: Error, timedOut: boolean): DeliveryError {
    const host = c.url.host;
    if (err instanceof AddressRefusedError) return new DeliveryError('DESTINATION_ADDRESS_REFUSED', `${host} is refused at connect: ${err.reason}.`, { cause: err });
    if (timedOut) return new DeliveryError('DESTINATION_TIMEOUT', `${c.vendor} (${host}) did not answer within ${this.opts.timeoutMs} ms.`, { cause: err });
    if (this.closed) return new DeliveryError('WRITER_CLOSED', 'The writer was closed during a request.', { cause: err });
    const code = (err as { code?: string }).code;
    return new DeliveryError('DESTINATION_UNREACHABLE', `${c.vendor} (${host}) could not be reached: ${code ?? err.message}.`, { cause: err });
  }
}

/** A JSON answer's body, or undefined when it is not JSON. */
export function jsonOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
