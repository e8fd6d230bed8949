// The http destination writer: POSTs each batch as a JSON array of envelopes (or NDJSON or CSV, gzipped or not), optionally signed, through a
// connection whose address is judged at connect time (SECURITY.md "Egress"), and classifies the answer so
// the runner knows what to retry and what to dead-letter.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { connect as tcpConnect, isIP, type LookupFunction } from 'node:net';
import { AddressRefusedError, guardedLookup, systemResolver, type HostResolver } from '../../../net/guarded-lookup.js';
import { DELIVERED, type DeliveryItem, type DestinationWriter, type ItemFailure, type WriteOutcome, type WriterLimits } from '../../contract.js';
import type { EgressRules } from '../../egress-rules.js';
import { DeliveryError, toDeliveryError } from '../../errors.js';
import { CONTENT_TYPES, encodeBatch, type Compression, type OutputType } from '../../output-format.js';
import { DEFAULT_HTTP_OUTPUT, DEFAULT_HTTP_TIMEOUT_MS, type HttpTargetConfig } from './config.js';
import { parseRetryAfter } from './retry-after.js';
import { SIGNATURE_HEADER, signBody } from './signature.js';

/** One comma (or newline) per record; a JSON array's brackets (2 bytes) come off the batch limit. */
export const HTTP_LIMITS: WriterLimits = Object.freeze({
  maxRecords: 500,
  maxBytes: 1024 * 1024 - 2,
  maxRecordBytes: 1024 * 1024 - 2,
  recordOverheadBytes: 1,
});


export interface HttpWriterOptions {
  /** Where it may connect (egress-rules.ts): the address of every connect is judged, IP literal or resolved name. */
  readonly egress: Pick<EgressRules, 'addressRefusal'>;
  /** How host names are resolved; absent: the system resolver. */
  readonly resolveHost?: HostResolver | undefined;
  readonly timeoutMs?: number;
  readonly limits?: Partial<WriterLimits>;
  /** Clock for the signature timestamp. */
  readonly now?: () => number;
}

/** An answer is read this far to reuse its connection, and never kept: what a receiver says is not ours to repeat. */
const MAX_DRAINED_BYTES = 64 * 1024;

export class HttpWriter implements DestinationWriter {
  readonly kind = 'http';
  readonly limits: WriterLimits;
  private readonly url: URL;
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly agent: HttpAgent;
  private readonly lookup: LookupFunction;
  private readonly inFlight = new Set<ClientRequest>();
  private closed = false;

  constructor(
    private readonly config: HttpTargetConfig,
    private readonly opts: HttpWriterOptions,
  ) {
    this.url = new URL(config.url);
    this.timeoutMs = config.timeout_ms ?? opts.timeoutMs ?? DEFAULT_HTTP_TIMEOUT_MS;
    this.limits = { ...HTTP_LIMITS, ...opts.limits };
    this.now = opts.now ?? Date.now;
    // The agent connects through the guarded lookup, so the address checked is the address connected to.
    this.lookup = guardedLookup(opts.resolveHost ?? systemResolver, opts.egress.addressRefusal);
    const agentOptions = { keepAlive: true, lookup: this.lookup };
    this.agent = this.url.protocol === 'https:' ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  }

  /** Nothing to open: each write is one request over the writer's keep-alive agent. */
  async connect(): Promise<void> {
    if (this.closed) throw new DeliveryError('WRITER_CLOSED', 'The http writer is closed.');
  }

  async write(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    if (this.closed) throw new DeliveryError('WRITER_CLOSED', 'The http writer is closed.');
    if (batch.length === 0) return DELIVERED;
    this.refuseLiteral();
    const { outputType = DEFAULT_HTTP_OUTPUT.outputType, compression = DEFAULT_HTTP_OUTPUT.compression } = this.config;
    // A JSON array of a full batch is maxBytes + 2 (its brackets, one comma fewer than records); a CSV one may need two bodies.
    const { bodies, tooLarge } = encodeBatch(batch, outputType, compression, { bytes: this.limits.maxBytes + 2 });
    const failed: ItemFailure[] = [...tooLarge];
    let status: number | undefined;
    for (const [i, body] of bodies.entries()) {
      try {
        status = await this.postBody(body.bytes, body.items.length, outputType, compression);
      } catch (err) {
        // Nothing posted yet: the whole write failed. Otherwise the bodies before were delivered.
        if (i === 0 && tooLarge.length === 0) throw err;
        const error = toDeliveryError(err);
        for (const rest of bodies.slice(i)) for (const item of rest.items) failed.push({ item, error });
        break;
      }
    }
    return { failed, ...(status !== undefined && { status }) };
  }

  /** One POST of one body; resolves with the 2xx status, rejects with the classified error. */
  private async postBody(body: Buffer, events: number, outputType: OutputType, compression: Compression): Promise<number> {
    const headers: Record<string, string | number> = {
      'content-type': CONTENT_TYPES[outputType],
      ...(compression === 'gzip' && { 'content-encoding': 'gzip' }),
      'content-length': body.length,
      'user-agent': 'edge-events',
      'x-edge-event-count': String(events),
    };
    if (this.config.secret !== undefined) {
      headers[SIGNATURE_HEADER] = signBody(this.config.secret, body, Math.floor(this.now() / 1000));
    }
    const res = await this.post(body, headers);
    // Redirects are not followed: a 301/302 turns a POST into a GET, and a redirect may point anywhere.
    if (res.status >= 200 && res.status < 300) return res.status;
    throw this.statusError(res.status, res.retryAfter);
  }

  /** A TCP connect to the receiver through the same guard: proves reachability without posting anything it would have to process. */
  healthcheck(): Promise<void> {
    const port = Number(this.url.port || (this.url.protocol === 'https:' ? 443 : 80));
    const host = this.host();
    return new Promise((resolve, reject) => {
      const fail = (reason: string): void => {
        socket.destroy();
        reject(new DeliveryError('DESTINATION_UNHEALTHY', `${this.url.host} is not reachable: ${reason}`));
      };
      const literal = isIP(host) === 0 ? undefined : this.opts.egress.addressRefusal(host);
      const socket = tcpConnect({ host, port, timeout: this.timeoutMs, lookup: this.lookup });
      if (literal !== undefined) return fail(`its address is refused: ${literal}`);
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
    for (const req of this.inFlight) req.destroy();
    this.agent.destroy();
  }

  private host(): string {
    return this.url.hostname.replace(/^\[|\]$/g, '');
  }

  /** A socket to an IP literal skips lookup, so its address is judged here. */
  private refuseLiteral(): void {
    const host = this.host();
    const why = isIP(host) === 0 ? undefined : this.opts.egress.addressRefusal(host);
    if (why !== undefined) throw new DeliveryError('DESTINATION_ADDRESS_REFUSED', `${this.url.host} is refused: ${why}.`);
  }

  /** One POST; resolves with the answer's status once its body is drained (never kept), rejects with a DeliveryError. */
  private post(body: Buffer, headers: Record<string, string | number>): Promise<{ status: number; retryAfter: string | undefined }> {
    const send = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const auth = this.url.username === '' && this.url.password === '' ? undefined : `${decodeURIComponent(this.url.username)}:${decodeURIComponent(this.url.password)}`;
    return new Promise((resolve, reject) => {
      let timedOut = false;
      const req = send({
        protocol: this.url.protocol,
        hostname: this.host(),
        port: this.url.port === '' ? undefined : Number(this.url.port),
        path: `${this.url.pathname}${this.url.search}`,
        method: 'POST',
        headers,
        agent: this.agent,
        lookup: this.lookup,
        ...(auth !== undefined && { auth }),
      });
      this.inFlight.add(req);
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy();
      }, this.timeoutMs);
      const settle = (): void => {
        clearTimeout(timer);
        this.inFlight.delete(req);
      };
      req.once('error', (err) => {
        settle();
        reject(this.requestError(err, timedOut));
      });
      req.once('response', (res) => {
        const status = res.statusCode ?? 0;
        const retryAfter = res.headers['retry-after'];
        let drained = 0;
        res.on('data', (chunk: Buffer) => {
          drained += chunk.length;
          if (drained > MAX_DRAINED_BYTES) res.destroy();
        });
        const done = (): void => {
          settle();
          resolve({ status, retryAfter });
        };
        res.once('end', done);
        res.once('close', done);
        res.once('error', done);
      });
      req.end(body);
    });
  }

  private requestError(err: Error, timedOut: boolean): DeliveryError {
    if (err instanceof AddressRefusedError) return new DeliveryError('DESTINATION_ADDRESS_REFUSED', `${this.url.host} is refused at connect: ${err.reason}.`, { cause: err });
    if (timedOut) return new DeliveryError('DESTINATION_TIMEOUT', `${this.url.host} did not answer within ${this.timeoutMs} ms.`, { cause: err });
    if (this.closed) return new DeliveryError('WRITER_CLOSED', 'The http writer was closed during a request.', { cause: err });
    return new DeliveryError('DESTINATION_UNREACHABLE', `${this.url.host} could not be reached: ${describe(err)}`, { cause: err });
  }

  // 2xx is success; 429 and 5xx are retried; 408 is retried too, since RFC 9110 defines it as the server
  // giving up on a slow request, which a repeat may fix; a 3xx is a redirect, never followed; every other
  // status is a refusal for good. The message is ours alone: nothing the receiver wrote is repeated.
  private statusError(status: number, retryAfter: string | undefined): DeliveryError {
    const text = `${this.url.host} answered ${status}`;
    const retryAfterMs = parseRetryAfter(retryAfter, this.now());
    if (status === 429) return new DeliveryError('DESTINATION_THROTTLED', `${text} (too many requests).`, { retryAfterMs, status });
    if (status >= 500 || status === 408) return new DeliveryError('DESTINATION_SERVER_ERROR', `${text}, an error on its side.`, { retryAfterMs, status });
    if (status >= 300 && status < 400) {
      return new DeliveryError('DESTINATION_REDIRECTED', `${text}, a redirect, which is not followed: set the destination's URL to where it points.`, { status });
    }
    return new DeliveryError('DESTINATION_REJECTED', `${text}, a refusal of the request.`, { status });
  }
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code !== undefined) return cause.code;
  return err instanceof Error ? err.message : String(err);
}
