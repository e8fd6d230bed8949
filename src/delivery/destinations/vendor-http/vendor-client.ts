// Calls to a vendor's HTTP API, for every kind that speaks one (datadog, azure_logs_ingestion, splunk_hec,
// elasticsearch, azure_blob, gcs, and their token exchanges): keep-alive agents per writer that connect
// through the egress guard when the host is a customer's (SECURITY.md "Egress"), trust an optional CA of
// the target's own beside the system's (never less verification), bound each call in time and its answer
// in size (one request: net/http-call.ts), and turn transport failures into DeliveryError codes in the
// service's words. What an answer means is the kind's to say.
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { rootCertificates } from 'node:tls';
import { isIP, type LookupFunction } from 'node:net';
import { AddressRefusedError, addressRefusalIn, guardedLookup, systemResolver, type HostResolver } from '../../../net/guarded-lookup.js';
import { AnswerTooLargeError, HttpTimeoutError, httpCall, type HttpAnswer } from '../../../net/http-call.js';
import type { EgressRules } from '../../egress-rules.js';
import { DeliveryError } from '../../errors.js';

/** How much of an answer the kinds that read only a token or an error object keep (longerAnswer 'cut'). */
export const ERROR_ANSWER_BYTES = 64 * 1024;

export interface VendorClientOptions {
  /** The URL requests by `path` go under (a customer's base URL); requests may name a whole `url` instead. */
  readonly base?: URL | undefined;
  /**
   * Where it may connect, for a host a customer names: the address of every connect is judged, IP literal
   * or resolved name. Unset only for hosts the service itself names (a vendor's site, Google's token endpoint).
   */
  readonly egress?: Pick<EgressRules, 'addressRefusal'> | undefined;
  readonly resolveHost?: HostResolver | undefined;
  /** PEM certificates trusted besides the system's roots (an on-premises CA). */
  readonly caPem?: string | undefined;
  readonly timeoutMs: number;
  /** The longest answer body read. */
  readonly maxAnswerBytes: number;
  /** A longer answer fails the call ('fail': the vendor answered more than it documents) or is cut ('cut': only its first bytes are read for an error code). */
  readonly longerAnswer: 'fail' | 'cut';
  /** Names the vendor in transport errors ("Datadog (host) did not answer ..."); without it the host alone is named. */
  readonly vendor?: string | undefined;
}

export type VendorAnswer = HttpAnswer;

export interface VendorRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD';
  /** Path and query, appended to the base URL's path; or `url`. */
  readonly path?: string;
  readonly url?: URL;
  readonly headers?: Readonly<Record<string, string | number>>;
  readonly body?: Buffer;
  /** Aborts the call (it fails as the client's caller says). */
  readonly signal?: AbortSignal;
}

export class VendorClient {
  private readonly agents = new Map<string, HttpAgent>();
  private readonly lookup: LookupFunction | undefined;
  private readonly inFlight = new Set<AbortController>();
  private closed = false;

  constructor(private readonly opts: VendorClientOptions) {
    this.lookup = opts.egress === undefined ? undefined : guardedLookup(opts.resolveHost ?? systemResolver, opts.egress.addressRefusal);
  }

  /** The base URL requests by path go under. */
  get base(): URL {
    if (this.opts.base === undefined) throw new Error('This VendorClient has no base URL.');
    return this.opts.base;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** The answer, whatever its status; rejects with a DeliveryError when none came. */
  async call(req: VendorRequest): Promise<VendorAnswer> {
    if (this.closed) throw new DeliveryError('WRITER_CLOSED', 'The writer is closed.');
    const url = req.url ?? new URL(`${this.base.pathname.replace(/\/+$/, '')}${req.path ?? ''}`, this.base.origin);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // A socket to an IP literal skips lookup, so its address is judged here.
    const literal = this.opts.egress === undefined || isIP(host) === 0 ? undefined : this.opts.egress.addressRefusal(host);
    if (literal !== undefined) throw new DeliveryError('DESTINATION_ADDRESS_REFUSED', `${url.host} is refused: ${literal}.`);
    const controller = new AbortController();
    this.inFlight.add(controller);
    try {
      return await httpCall(this.agent(url.protocol), {
        method: req.method,
        url,
        headers: req.headers,
        body: req.body,
        timeoutMs: this.opts.timeoutMs,
        signal: req.signal === undefined ? controller.signal : AbortSignal.any([controller.signal, req.signal]),
        maxAnswerBytes: this.opts.maxAnswerBytes,
        longerAnswer: this.opts.longerAnswer,
      });
    } catch (err) {
      throw this.transportError(url, err as Error);
    } finally {
      this.inFlight.delete(controller);
    }
  }

  /** Aborts the calls still running (they fail as WRITER_CLOSED, retryable) and closes the connections. Idempotent. */
  close(): void {
    this.closed = true;
    for (const c of this.inFlight) c.abort();
    for (const agent of this.agents.values()) agent.destroy();
  }

  private agent(protocol: string): HttpAgent {
    let agent = this.agents.get(protocol);
    if (agent === undefined) {
      const options = { keepAlive: true, ...(this.lookup !== undefined && { lookup: this.lookup }) };
      // A custom CA is added to the system's roots: the target's own certificate is still verified, by name too.
      agent = protocol === 'https:' ? new HttpsAgent({ ...options, ...(this.opts.caPem !== undefined && { ca: [...rootCertificates, this.opts.caPem] }) }) : new HttpAgent(options);
      this.agents.set(protocol, agent);
    }
    return agent;
  }

  private transportError(url: URL, err: Error): DeliveryError {
    const vendor = this.opts.vendor;
    const who = vendor === undefined ? url.host : `${vendor} (${url.host})`;
    if (err instanceof AddressRefusedError) return new DeliveryError('DESTINATION_ADDRESS_REFUSED', `${url.host} is refused at connect: ${err.reason}.`, { cause: err });
    // A refusal of one of several addresses comes wrapped (an AggregateError of the connect attempts).
    const refused = addressRefusalIn(err);
    if (refused !== undefined) return new DeliveryError('DESTINATION_ADDRESS_REFUSED', `${url.host} is refused at connect: ${refused}.`, { cause: err });
    if (err instanceof HttpTimeoutError) return new DeliveryError('DESTINATION_TIMEOUT', `${who} did not answer within ${this.opts.timeoutMs} ms.`, { cause: err });
    if (this.closed) return new DeliveryError('WRITER_CLOSED', 'The writer was closed during a request.', { cause: err });
    if (err instanceof AnswerTooLargeError) return new DeliveryError('WRITE_FAILED', `${who} answered more than ${err.maxBytes} bytes.`, { status: err.status });
    const code = (err as { code?: string }).code;
    return new DeliveryError('DESTINATION_UNREACHABLE', `${who} could not be reached: ${code ?? err.message}.`, { cause: err });
  }
}

/** A JSON answer's body, or undefined when it is not JSON. */
export function jsonOf(answer: Pick<VendorAnswer, 'body'>): unknown {
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    return undefined;
  }
}
