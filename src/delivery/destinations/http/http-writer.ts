// The http destination writer: POSTs each batch as a JSON array of envelopes, optionally signed, and
// classifies the answer so the runner knows what to retry and what to dead-letter.
import { connect as tcpConnect } from 'node:net';
import { DELIVERED, copyPayload, payloadSize, type DeliveryItem, type DestinationWriter, type WriteOutcome, type WriterLimits } from '../../contract.js';
import { DeliveryError } from '../../errors.js';
import { DEFAULT_HTTP_TIMEOUT_MS, type HttpTargetConfig } from './config.js';
import { parseRetryAfter } from './retry-after.js';
import { SIGNATURE_HEADER, signBody } from './signature.js';

/** One comma per record; the brackets (2 bytes) come off the batch limit. */
export const HTTP_LIMITS: WriterLimits = Object.freeze({
  maxRecords: 500,
  maxBytes: 1024 * 1024 - 2,
  maxRecordBytes: 1024 * 1024 - 2,
  recordOverheadBytes: 1,
});

// Enough of an error response to explain it in a log line and a dead-letter header.
const MAX_ERROR_BODY = 512;

const OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']');

/** The request body: the payloads joined into a JSON array, copied once, never re-serialized. */
export function jsonArrayBody(batch: readonly DeliveryItem[]): Buffer {
  let total = 2 + Math.max(0, batch.length - 1);
  for (const item of batch) total += payloadSize(item);
  const body = Buffer.allocUnsafe(total);
  let at = OPEN.copy(body, 0);
  batch.forEach((item, i) => {
    if (i > 0) at += COMMA.copy(body, at);
    at += copyPayload(item, body, at);
  });
  CLOSE.copy(body, at);
  return body;
}

export interface HttpWriterOptions {
  readonly timeoutMs?: number;
  readonly limits?: Partial<WriterLimits>;
  /** Clock for the signature timestamp. */
  readonly now?: () => number;
}

export class HttpWriter implements DestinationWriter {
  readonly kind = 'http';
  readonly limits: WriterLimits;
  private readonly url: URL;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly inFlight = new Set<AbortController>();
  private closed = false;

  constructor(
    private readonly config: HttpTargetConfig,
    opts: HttpWriterOptions = {},
  ) {
    this.url = new URL(config.url);
    this.timeoutMs = config.timeout_ms ?? opts.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
    this.limits = { ...HTTP_LIMITS, ...opts.limits };
    this.now = opts.now ?? Date.now;
  }

  /** Nothing to open: each write is one request over the runtime's keep-alive pool. */
  async connect(): Promise<void> {
    if (this.closed) throw new DeliveryError('WRITER_CLOSED', 'The http writer is closed.');
  }

  async write(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    if (this.closed) throw new DeliveryError('WRITER_CLOSED', 'The http writer is closed.');
    if (batch.length === 0) return DELIVERED;
    const body = jsonArrayBody(batch);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'edge-events',
      'x-edge-event-count': String(batch.length),
    };
    if (this.config.secret !== undefined) {
      headers[SIGNATURE_HEADER] = signBody(this.config.secret, body, Math.floor(this.now() / 1000));
    }
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    this.inFlight.add(controller);
    try {
      // Redirects are not followed: a 301/302 turns a POST into a GET and the batch would be lost.
      const res = await fetch(this.url, { method: 'POST', headers, body, signal: controller.signal, redirect: 'manual' });
      const text = await readCapped(res);
      if (res.status >= 200 && res.status < 300) return DELIVERED;
      throw this.statusError(res.status, text, res.headers.get('retry-after'));
    } catch (err) {
      if (err instanceof DeliveryError) throw err;
      if (timedOut) {
        throw new DeliveryError('DESTINATION_TIMEOUT', `${this.url.host} did not answer within ${this.timeoutMs} ms.`, { cause: err });
      }
      if (this.closed) throw new DeliveryError('WRITER_CLOSED', 'The http writer was closed during a request.', { cause: err });
      throw new DeliveryError('DESTINATION_UNREACHABLE', `${this.url.host} could not be reached: ${describe(err)}`, { cause: err });
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(controller);
    }
  }

  /** A TCP connect to the receiver: proves reachability without posting anything it would have to process. */
  healthcheck(): Promise<void> {
    const port = Number(this.url.port || (this.url.protocol === 'https:' ? 443 : 80));
    const host = this.url.hostname.replace(/^\[|\]$/g, '');
    return new Promise((resolve, reject) => {
      const socket = tcpConnect({ host, port, timeout: this.timeoutMs });
      const fail = (reason: string): void => {
        socket.destroy();
        reject(new DeliveryError('DESTINATION_UNHEALTHY', `${this.url.host} is not reachable: ${reason}`));
      };
      socket.once('connect', () => {
        socket.end();
        resolve();
      });
      socket.once('timeout', () => fail('timed out'));
      socket.once('error', (err) => fail(err.message));
    });
  }

  /** Aborts requests still running; their batches fail as retryable and stay uncommitted. */
  async close(): Promise<void> {
    this.closed = true;
    for (const controller of this.inFlight) controller.abort();
  }

  // 2xx is success; 429 and 5xx are retried; 408 is retried too, since RFC 9110 defines it as the server
  // giving up on a slow request, which a repeat may fix; every other status is a refusal for good.
  private statusError(status: number, body: string, retryAfter: string | null): DeliveryError {
    const text = `${this.url.host} answered ${status}${body === '' ? '' : `: ${body}`}`;
    const retryAfterMs = parseRetryAfter(retryAfter, this.now());
    if (status === 429) return new DeliveryError('DESTINATION_THROTTLED', text, { retryAfterMs });
    if (status >= 500 || status === 408) return new DeliveryError('DESTINATION_SERVER_ERROR', text, { retryAfterMs });
    return new DeliveryError('DESTINATION_REJECTED', text);
  }
}

// Reads at most MAX_ERROR_BODY bytes, then cancels; a success body is drained so the connection is reused.
async function readCapped(res: Response): Promise<string> {
  if (res.body === null) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size < MAX_ERROR_BODY) chunks.push(value);
    size += value.length;
    if (size > 64 * 1024) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_ERROR_BODY).trim();
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code !== undefined) return cause.code;
  return err instanceof Error ? err.message : String(err);
}
