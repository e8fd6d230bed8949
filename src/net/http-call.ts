// One bounded HTTP request of a REST API the service calls as a client (a vendor's intake, an object store's
// put, a token exchange): a timeout on the whole exchange, abortable, through an agent of the caller's
// (whose lookup may be the guarded one, guarded-lookup.ts), the answer's body read up to a bound and never
// past it. What a failure means in the service's words is the client's to say (vendor-client.ts).
import { request as httpRequest, type Agent, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The body, at most the call's `maxAnswerBytes`. */
  readonly body: Buffer;
}

export interface HttpCall {
  readonly method: string;
  readonly url: URL;
  readonly headers?: Readonly<Record<string, string | number>> | undefined;
  readonly body?: Buffer | undefined;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal | undefined;
  /** How much of the answer's body is kept. */
  readonly maxAnswerBytes: number;
  /**
   * What a longer answer does: 'fail' rejects with AnswerTooLargeError; 'cut' keeps the first
   * maxAnswerBytes, reading on (to reuse the connection) up to 16 times that, then dropping the connection.
   */
  readonly longerAnswer: 'fail' | 'cut';
}

/** A call that took longer than its timeout; its name is what error sorting reads. */
export class HttpTimeoutError extends Error {
  override readonly name = 'TimeoutError';
}

/** An answer longer than the call's bound, when the call is to fail on one. */
export class AnswerTooLargeError extends Error {
  override readonly name = 'AnswerTooLargeError';
  constructor(
    readonly status: number,
    readonly maxBytes: number,
  ) {
    super(`The answer is longer than ${maxBytes} bytes.`);
  }
}

/** How far past the bound a 'cut' answer is read before the connection is dropped. */
const READ_ON_FACTOR = 16;

/** Sends one request through `agent`; resolves with the answer whatever its status, rejects on a network error, a timeout, an abort or (when asked) a longer answer. */
export function httpCall(agent: Agent, c: HttpCall): Promise<HttpAnswer> {
  const send = c.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<HttpAnswer>((resolve, reject) => {
    if (c.signal?.aborted === true) {
      reject(abortError(c.signal));
      return;
    }
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      c.signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const req = send({
      protocol: c.url.protocol,
      hostname: c.url.hostname.replace(/^\[|\]$/g, ''),
      port: c.url.port === '' ? undefined : Number(c.url.port),
      path: `${c.url.pathname}${c.url.search}`,
      method: c.method,
      agent,
      headers: { 'user-agent': 'edge-events', ...c.headers, ...(c.body !== undefined && { 'content-length': c.body.length }) },
    });
    const fail = (err: Error): void => {
      settle(() => reject(err));
      req.destroy();
    };
    const timer = setTimeout(() => fail(new HttpTimeoutError(`No answer within ${c.timeoutMs} ms.`)), c.timeoutMs);
    const onAbort = (): void => fail(abortError(c.signal));
    c.signal?.addEventListener('abort', onAbort, { once: true });
    req.once('error', fail);
    req.once('response', (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let read = 0;
      const done = (): void => settle(() => resolve({ status, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('data', (chunk: Buffer) => {
        if (c.longerAnswer === 'fail' && read + chunk.length > c.maxAnswerBytes) {
          fail(new AnswerTooLargeError(status, c.maxAnswerBytes));
          return;
        }
        if (read < c.maxAnswerBytes) chunks.push(chunk.subarray(0, c.maxAnswerBytes - read));
        read += chunk.length;
        if (read > READ_ON_FACTOR * c.maxAnswerBytes) {
          done();
          req.destroy();
        }
      });
      res.once('end', done);
      res.once('error', fail);
      res.once('close', () => {
        if (!res.complete) fail(Object.assign(new Error('The connection closed before the answer ended.'), { code: 'ECONNRESET' }));
      });
    });
    req.end(c.body);
  });
}

function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : Object.assign(new Error('The call was aborted.'), { name: 'AbortError' });
}
