// One bounded HTTP request of a REST API the service calls as a client (an object store's put, a token
// exchange): a timeout on the whole exchange, abortable, through an agent of the caller's (whose lookup may
// be the guarded one, guarded-lookup.ts), the answer's body read up to a bound and never past it.
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';

export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The body, at most the call's `maxAnswerBytes`. */
  readonly body: Buffer;
}

export interface HttpCall {
  readonly method: string;
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string | number>>;
  readonly body?: Buffer;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** How much of the answer's body is kept (the rest is read and dropped). Default 64 KiB. */
  readonly maxAnswerBytes?: number;
}

/** A call that took longer than its timeout; its name is what the callers' error sorting reads. */
export class HttpTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** The keep-alive agents of one client, for http and https, connecting through `lookup` when given. */
export class HttpAgents {
  private readonly http: HttpAgent;
  private readonly https: HttpsAgent;

  constructor(lookup?: LookupFunction) {
    const options = { keepAlive: true, ...(lookup !== undefined && { lookup }) };
    this.http = new HttpAgent(options);
    this.https = new HttpsAgent(options);
  }

  /** Sends one request; resolves with the answer whatever its status, rejects on a network error, a timeout or an abort. */
  call(c: HttpCall): Promise<HttpAnswer> {
    const secure = c.url.protocol === 'https:';
    const max = c.maxAnswerBytes ?? 64 * 1024;
    return new Promise<HttpAnswer>((resolve, reject) => {
      const req = (secure ? httpsRequest : httpRequest)(c.url, {
        method: c.method,
        agent: secure ? this.https : this.http,
        headers: { ...c.headers, ...(c.body !== undefined && { 'content-length': c.body.length }) },
        ...(c.signal !== undefined && { signal: c.signal }),
      });
      const timer = setTimeout(() => req.destroy(new HttpTimeoutError(`No answer within ${c.timeoutMs} ms.`)), c.timeoutMs);
      req.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept >= max) return;
          chunks.push(chunk.subarray(0, max - kept));
          kept += Math.min(chunk.length, max - kept);
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        });
      });
      req.end(c.body);
    });
  }

  destroy(): void {
    this.http.destroy();
    this.https.destroy();
  }
}
