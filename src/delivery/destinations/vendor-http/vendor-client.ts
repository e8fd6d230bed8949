// Calls to a vendor's HTTP API (Splunk HEC, Elasticsearch's REST API): one keep-alive agent per writer that
// connects through the egress guard (SECURITY.md "Egress"), trusts an optional CA of the target's own beside
// the system's (never less verification), bounds each call in time and its answer in size, and turns
// transport failures into DeliveryError codes. What an answer means is the kind's to say.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';
import { isIP, type LookupFunction } from 'node:net';
import { AddressRefusedError, guardedLookup, systemResolver, type HostResolver } from '../../../net/guarded-lookup.js';
import type { EgressRules } from '../../egress-rules.js';
import { DeliveryError } from '../../errors.js';

export interface VendorClientOptions {
  /** Where it may connect: the address of every connect is judged, IP literal or resolved name. */
  readonly egress: Pick<EgressRules, 'addressRefusal'>;
  readonly resolveHost?: HostResolver | undefined;
  /** PEM certificates trusted besides the system's roots (an on-premises CA). */
  readonly caPem?: string | undefined;
  readonly timeoutMs: number;
  /** The longest answer body read; a longer one fails the call (the vendor answered more than it documents). */
  readonly maxAnswerBytes: number;
}

export interface VendorAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

export interface VendorRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';
  /** Path and query, appended to the base URL's path. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string | number>>;
  readonly body?: Buffer;
}

export class VendorClient {
  private readonly agent: HttpAgent;
  private readonly lookup: LookupFunction;
  private readonly inFlight = new Set<ClientRequest>();
  private closed = false;

  constructor(
    readonly base: URL,
    private readonly opts: VendorClientOptions,
  ) {
    this.lookup = guardedLookup(opts.resolveHost ?? systemResolver, opts.egress.addressRefusal);
    const agentOptions = { keepAlive: true, lookup: this.lookup };
    // A custom CA is added to the system's roots: the target's own certificate is still verified, by name too.
    this.agent = base.protocol === 'https:' ? new HttpsAgent({ ...agentOptions, ...(opts.caPem !== undefined && { ca: [...rootCertificates, opts.caPem] }) }) : new HttpAgent(agentOptions);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The answer, whatever its status; rejects with a DeliveryError when none came. */
  call(req: VendorRequest): Promise<VendorAnswer> {
    if (this.closed) return Promise.reject(new DeliveryError('WRITER_CLOSED', 'The writer is closed.'));
    const host = this.base.hostname.replace(/^\[|\]$/g, '');
    // A socket to an IP literal skips lookup, so its address is judged here.
    const literal = isIP(host) === 0 ? undefined : this.opts.egress.addressRefusal(host);
    if (literal !== undefined) return Promise.reject(new DeliveryError('DESTINATION_ADDRESS_REFUSED', `${this.base.host} is refused: ${literal}.`));
    const send = this.base.protocol === 'https:' ? httpsRequest : httpRequest;
    const basePath = this.base.pathname.replace(/\/+$/, '');
    return new Promise((resolve, reject) => {
      let timedOut = false;
      const r = send({
        protocol: this.base.protocol,
        hostname: host,
        port: this.base.port === '' ? undefined : Number(this.base.port),
        path: `${basePath}${req.path}`,
        method: req.method,
        headers: { 'user-agent': 'edge-events', ...req.headers, ...(req.body !== undefined && { 'content-length': req.body.length }) },
        agent: this.agent,
        lookup: this.lookup,
      });
      this.inFlight.add(r);
      const timer = setTimeout(() => {
        timedOut = true;
        r.destroy();
      }, this.opts.timeoutMs);
      const settle = (): void => {
        clearTimeout(timer);
        this.inFlight.delete(r);
      };
      r.once('error', (err) => {
        settle();
        reject(this.transportError(err, timedOut));
      });
      r.once('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.opts.maxAnswerBytes) {
            res.destroy();
            settle();
            reject(new DeliveryError('WRITE_FAILED', `${this.base.host} answered more than ${this.opts.maxAnswerBytes} bytes.`, { status: res.statusCode }));
            return;
          }
          chunks.push(chunk);
        });
        res.once('end', () => {
          settle();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
        });
        res.once('error', (err) => {
          settle();
          reject(this.transportError(err, timedOut));
        });
      });
      r.end(req.body);
    });
  }

  /** Aborts the calls still running; their batches fail as retryable. Idempotent. */
  close(): void {
    this.closed = true;
    for (const r of this.inFlight) r.destroy();
    this.agent.destroy();
  }

  private transportError(err: Error, timedOut: boolean): DeliveryError {
    if (err instanceof AddressRefusedError) return new DeliveryError('DESTINATION_ADDRESS_REFUSED', `${this.base.host} is refused at connect: ${err.reason}.`, { cause: err });
    if (timedOut) return new DeliveryError('DESTINATION_TIMEOUT', `${this.base.host} did not answer within ${this.opts.timeoutMs} ms.`, { cause: err });
    if (this.closed) return new DeliveryError('WRITER_CLOSED', 'The writer was closed during a request.', { cause: err });
    const code = (err as { code?: string }).code;
    return new DeliveryError('DESTINATION_UNREACHABLE', `${this.base.host} could not be reached: ${code ?? err.message}`, { cause: err });
  }
}

/** A JSON answer's body, or undefined when it is not JSON. */
export function jsonOf(answer: VendorAnswer): unknown {
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    return undefined;
  }
}
