// What the three cloud writers share: credentials, the client settings, calls that can be aborted by
// close(), and health checks that read the resource's status without writing to it.
import { DELIVERED, type DestinationWriter, type DeliveryItem, type WriteOutcome, type WriterLimits } from '../../contract.js';
import type { LookupFunction } from 'node:net';
import { guardedLookup, systemResolver } from '../../../net/guarded-lookup.js';
import { AbortableCalls } from '../../abortable-calls.js';
import { DeliveryError } from '../../errors.js';
import { isReadDenied, toCloudError } from './aws-errors.js';
import type { ClientSettings, CloudDeps } from './client-config.js';
import type { CloudTargetConfig } from './cloud-config.js';
import { credentialsFor, type CredentialSource } from './credentials.js';
import { LazyClient } from './sdk.js';

/** What a cloud writer is: its kind's name and limits, and how its SDK client is built (its module loaded then). */
export interface CloudService<C> {
  readonly kind: string;
  readonly limits: WriterLimits;
  client(settings: ClientSettings): Promise<C>;
}

export abstract class CloudWriter<C extends { destroy(): void } = { destroy(): void }> implements DestinationWriter {
  readonly kind: string;
  readonly limits: WriterLimits;
  protected readonly credentials: CredentialSource;
  /** The SDK client, built on the first call. */
  protected readonly client: LazyClient<C>;
  /** The lookup of a customer's endpoint: the guarded one. */
  private readonly lookup: LookupFunction | undefined;
  private readonly calls: AbortableCalls;

  constructor(
    protected readonly config: CloudTargetConfig,
    protected readonly deps: CloudDeps,
    service: CloudService<C>,
  ) {
    this.kind = service.kind;
    this.calls = new AbortableCalls(this.kind);
    this.limits = service.limits;
    if (config.customerEndpoint === true) {
      if (deps.egress === undefined) throw new Error(`A ${service.kind} writer of a customer's endpoint needs the egress rules (cloudDepsOf).`);
      this.lookup = guardedLookup(deps.resolveHost ?? systemResolver, deps.egress.addressRefusal);
    }
    this.credentials = credentialsFor(config.auth, config.resource.region, deps);
    this.client = new LazyClient(() => service.client(this.clientSettings()));
  }

  /** The role's credential cache, when the destination uses role auth (tests watch its refreshes). */
  get assumedRole() {
    return this.credentials.role;
  }

  /** The per-destination endpoint wins over the service-wide one; a customer's is judged at every connect (SECURITY.md "Egress"). */
  protected clientSettings(): ClientSettings {
    return {
      region: this.config.resource.region,
      endpoint: this.config.endpoint ?? this.deps.endpoint,
      credentials: this.credentials.provide,
      timeoutMs: this.deps.timeoutMs,
      lookup: this.lookup,
    };
  }

  /**
   * Resolves the credentials (assuming the role) and reads the resource as the health check does, so a
   * broken auth, an endpoint not reached or a resource that is gone shows before the first write.
   */
  async connect(): Promise<void> {
    await this.resolveCredentials();
    await this.describeResource();
  }

  /** The destination's credentials: a key pair as is, or the role assumed through STS. */
  async resolveCredentials(): Promise<void> {
    this.ensureOpen();
    await this.call('Resolving credentials', () => this.credentials.provide());
  }

  async write(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    this.ensureOpen();
    if (batch.length === 0) return DELIVERED;
    const outcome = await this.writeBatch(batch);
    // Per-entry failures carry the endpoint's own messages: a customer's endpoint's are not repeated.
    if (this.config.customerEndpoint !== true || outcome.failed.length === 0) return outcome;
    return { ...outcome, failed: outcome.failed.map((f) => ({ ...f, error: inOwnWords(`The ${this.kind} write`, f.error) })) };
  }

  /** One write of a non-empty batch: the service's batch call, reporting only the entries it failed. */
  protected abstract writeBatch(batch: readonly DeliveryItem[]): Promise<WriteOutcome>;

  protected abstract describe(signal: AbortSignal): Promise<void>;

  /**
   * Reads the resource's status with the destination's own auth; rejects with the classified error. A
   * role allowed to put records but not to describe them is denied the read (isReadDenied); that proves
   * the credentials work, so it passes, and the next write tells the rest.
   */
  async describeResource(): Promise<void> {
    try {
      await this.call('Describing the destination', (signal) => this.describe(signal));
    } catch (err) {
      const e = err as DeliveryError;
      if (e.code === 'DESTINATION_AUTH_FAILED' && isReadDenied(e.cause)) return;
      throw e;
    }
  }

  async healthcheck(): Promise<void> {
    try {
      await this.describeResource();
    } catch (err) {
      const e = err as DeliveryError;
      if (e.code === 'WRITER_CLOSED') throw e;
      throw new DeliveryError('DESTINATION_UNHEALTHY', e.message, { cause: err });
    }
  }

  async close(): Promise<void> {
    if (!this.calls.close()) return;
    this.client.destroy();
    this.credentials.close();
  }

  protected ensureOpen(): void {
    this.calls.ensureOpen();
  }

  /** One AWS call that close() can abort; every failure comes out as a classified DeliveryError. */
  protected call<T>(what: string, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return this.calls.run(fn, (err) => {
      const e = toCloudError(what, err);
      return this.config.customerEndpoint === true ? inOwnWords(what, e) : e;
    });
  }
}

/**
 * A failure at a customer's endpoint in the service's words only (SECURITY.md "Egress"): the delivery
 * code, never the endpoint's message or error name; an unreachable endpoint and one that timed out alike,
 * so the answer does not tell which ports are open where it points. A refused address is the service's own words already.
 */
export function inOwnWords(what: string, e: DeliveryError): DeliveryError {
  if (e.code === 'DESTINATION_ADDRESS_REFUSED' || e.code === 'WRITER_CLOSED') return e;
  const code = e.code === 'DESTINATION_TIMEOUT' ? 'DESTINATION_UNREACHABLE' : e.code;
  return new DeliveryError(code, `${what} failed at the destination's endpoint (${code}).`, { cause: e.cause, ...(e.retryAfterMs !== undefined && { retryAfterMs: e.retryAfterMs }) });
}

/** A condition the describe call found wrong: the resource exists but cannot take writes yet. */
export function notReady(what: string, status: string | undefined): DeliveryError {
  return new DeliveryError('DESTINATION_NOT_FOUND', `${what} is ${status ?? 'in an unknown state'}, not ACTIVE.`);
}
