// What the object store kinds that call their store's REST API themselves (azure_blob, gcs) share: a
// writer whose batches become objects (object-batches.ts) through the kind's put, its calls bounded and
// abortable by close(), the store's answers sorted into delivery codes, and the create-time check: the
// bucket or container read, then the check object written.
import { addressRefusalIn } from '../../../net/guarded-lookup.js';
import type { DeliveryItem, DestinationWriter, WriteOutcome } from '../../contract.js';
import { AbortableCalls } from '../../abortable-calls.js';
import { problem, type ConfigProblem } from '../../destination-config.js';
import type { WriterDeps } from '../../destination-kind.js';
import { DeliveryError, toDeliveryError, type DeliveryErrorCode } from '../../errors.js';
import { inOwnWords } from '../aws/cloud-writer.js';
import { ERROR_ANSWER_BYTES, VendorClient, type VendorAnswer, type VendorRequest } from '../vendor-http/vendor-client.js';
import { ObjectBatches, uploadLimits } from './object-batches.js';
import type { ObjectLayout } from './object-layout.js';

export const DEFAULT_STORE_TIMEOUT_MS = 10_000;

/** The store's own name for a refusal (Azure's x-ms-error-code, Cloud Storage's error reason), kept as the cause of a delivery error. */
export class StoreError extends Error {
  constructor(
    override readonly name: string,
    message: string,
  ) {
    super(message);
  }
}

const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED', 'ETIMEDOUT']);
/** Stores are limited per second; a throttled call is not retried sooner than this. */
const THROTTLE_FLOOR_MS = 1_000;

/**
 * A store's answer other than success, as a delivery error: 429 and the store's busy codes are throttling,
 * 5xx a server error, 401 and 403 auth, 404 a missing bucket or container, 408 a timeout, 3xx a redirect
 * (never followed). Any other 4xx refuses the request the target makes, never the events (an object of
 * NDJSON or CSV is taken whatever it holds), so it is a misconfiguration, parked until the target is
 * fixed; only 413 (a body past the store's size, which the upload limits keep below) is dead-lettered.
 */
export function storeAnswerError(what: string, status: number, storeCode: string | undefined, message: string | undefined, retryAfter?: string, busyCodes: readonly string[] = []): DeliveryError {
  const name = storeCode ?? `HTTP${status}`;
  let code: DeliveryErrorCode;
  if (status === 429 || busyCodes.includes(name)) code = 'DESTINATION_THROTTLED';
  else if (status >= 500) code = 'DESTINATION_SERVER_ERROR';
  else if (status === 401 || status === 403) code = 'DESTINATION_AUTH_FAILED';
  else if (status === 404) code = 'DESTINATION_NOT_FOUND';
  else if (status === 408) code = 'DESTINATION_TIMEOUT';
  else if (status === 413) code = 'DESTINATION_REJECTED';
  else if (status >= 300 && status < 400) code = 'DESTINATION_REDIRECTED';
  else code = 'DESTINATION_MISCONFIGURED';
  const seconds = retryAfter === undefined ? NaN : Number(retryAfter);
  const retryAfterMs = Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : code === 'DESTINATION_THROTTLED' ? THROTTLE_FLOOR_MS : undefined;
  const detail = message !== undefined && message !== '' ? `: ${message}` : '';
  return new DeliveryError(code, `${what} failed: ${name}${detail} (HTTP ${status})`, { cause: new StoreError(name, message ?? `HTTP ${status}`), status, ...(retryAfterMs !== undefined && { retryAfterMs }) });
}

/** A call that got no answer: the guarded lookup's refusal, a timeout, a network error, or something unknown (retried). */
export function storeCallError(what: string, err: unknown): DeliveryError {
  if (err instanceof DeliveryError) return err;
  const refused = addressRefusalIn(err);
  if (refused !== undefined) return new DeliveryError('DESTINATION_ADDRESS_REFUSED', `${what} failed: ${refused}.`, { cause: err });
  const e = (err ?? {}) as { name?: string; code?: string; message?: string };
  const code: DeliveryErrorCode = e.name === 'TimeoutError' ? 'DESTINATION_TIMEOUT' : NETWORK.has(e.code ?? '') ? 'DESTINATION_UNREACHABLE' : 'WRITE_FAILED';
  return new DeliveryError(code, `${what} failed: ${e.code ?? e.name ?? 'Error'}${e.message ? `: ${e.message}` : ''}`, { cause: err });
}

export interface StoreWriterOptions {
  readonly kind: string;
  readonly layout: ObjectLayout;
  /** The store is a customer's host (an account_url of a normal account): every connect judged, failures told in the service's words (SECURITY.md "Egress"). */
  readonly customerHost: boolean;
  readonly deps: Pick<WriterDeps, 'egress' | 'resolveHost'>;
  readonly timeoutMs?: number | undefined;
}

export abstract class StoreWriter implements DestinationWriter {
  readonly kind: string;
  readonly limits;
  readonly objects: ObjectBatches;
  /** The store's client; the guard judges every connect when the store is a customer's host. */
  protected readonly client: VendorClient;
  protected readonly timeoutMs: number;
  private readonly customerHost: boolean;
  private readonly calls: AbortableCalls;

  constructor(opts: StoreWriterOptions) {
    this.kind = opts.kind;
    this.calls = new AbortableCalls(this.kind);
    this.limits = uploadLimits(opts.layout);
    this.customerHost = opts.customerHost;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    this.client = new VendorClient({ timeoutMs: this.timeoutMs, maxAnswerBytes: ERROR_ANSWER_BYTES, longerAnswer: 'cut', ...(opts.customerHost && { egress: opts.deps.egress, resolveHost: opts.deps.resolveHost }) });
    this.objects = new ObjectBatches(opts.layout, (key, body, contentType) => this.guarded(`The ${this.kind} put`, (signal) => this.put(key, body, contentType, signal)));
  }

  /** Stores one object; rejects with a DeliveryError (storeAnswerError) when the store refuses it. */
  protected abstract put(key: string, body: Buffer, contentType: string, signal: AbortSignal): Promise<void>;

  /** Reads the bucket or container, as the health check does; rejects with a DeliveryError. A read denied to credentials that may write is the kind's to let pass. */
  protected abstract describe(signal: AbortSignal): Promise<void>;

  /** The bucket or container, read with the destination's own auth. */
  describeTarget(): Promise<void> {
    return this.guarded(`Reading the ${this.kind} target`, (signal) => this.describe(signal));
  }

  async connect(): Promise<void> {
    await this.describeTarget();
  }

  async write(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    this.calls.ensureOpen();
    return this.objects.write(batch);
  }

  async healthcheck(): Promise<void> {
    try {
      await this.describeTarget();
    } catch (err) {
      const e = toDeliveryError(err);
      if (e.code === 'WRITER_CLOSED') throw e;
      throw new DeliveryError('DESTINATION_UNHEALTHY', e.message, { cause: err });
    }
  }

  async close(): Promise<void> {
    if (this.calls.close()) this.client.close();
  }

  /** One HTTP exchange within the writer's timeout. */
  protected send(call: VendorRequest & { readonly url: URL }): Promise<VendorAnswer> {
    return this.client.call(call);
  }

  /** A call close() can abort; every failure comes out as a classified DeliveryError, a customer host's in the service's words. */
  private guarded<T>(what: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.calls.run(fn, (err) => {
      const e = storeCallError(what, err);
      return this.customerHost ? inOwnWords(what, e) : e;
    });
  }
}

/** The fields a store check's failures are reported on. */
export interface CheckFields {
  /** The bucket or container. */
  readonly resource: string;
  /** The credential: a refusal of auth names it. */
  readonly auth: string;
  /** The account URL, for a customer's host whose address is refused. */
  readonly host?: string;
}

/**
 * The create-time check of a store kind, with the destination's own credentials: the bucket or container
 * read, then the check object written under the prefix (object-batches.ts, README.md here "The check
 * object"). A failure names its field and the store's own error code and message (the service's words
 * only, for a customer's host).
 */
export async function checkStore(writer: StoreWriter, fields: CheckFields, customerHost: boolean): Promise<readonly ConfigProblem[]> {
  try {
    await writer.describeTarget();
    await writer.objects.writeCheck();
    return [];
  } catch (err) {
    const e = toDeliveryError(err);
    if (e.code === 'DESTINATION_ADDRESS_REFUSED' && fields.host !== undefined) return [problem.egress('internal_address', fields.host, e.message.replace(/\.$/, ''))];
    const field = e.code === 'DESTINATION_AUTH_FAILED' ? fields.auth : fields.resource;
    const store = customerHost ? undefined : storeErrorIn(e);
    return [problem.checkFailed(field, store?.name ?? e.code, store?.message ?? e.message, e.code)];
  } finally {
    await writer.close();
  }
}

/** The store's refusal or the network error behind a delivery error. */
function storeErrorIn(e: DeliveryError): { name: string; message: string } | undefined {
  const c = e.cause as { name?: string; code?: string; message?: string } | undefined;
  if (c === undefined) return undefined;
  if (c instanceof StoreError) return { name: c.name, message: c.message };
  if (c.code !== undefined && c.message !== undefined) return { name: c.code, message: c.message };
  return undefined;
}
