// The closed list of delivery error codes; every delivery failure is a DeliveryError carrying one of them.

/**
 * Each code says whether a failure of that kind is worth retrying by default. Retryable failures go
 * back through the runner's backoff; the others are dead-lettered at once (ARCHITECTURE.md "Delivery semantics").
 */
export const DELIVERY_ERROR_CODES = {
  /** The destination could not be reached: connection refused or reset, DNS failure, broker down. */
  DESTINATION_UNREACHABLE: { retryable: true },
  /** The destination did not answer within the writer's timeout. */
  DESTINATION_TIMEOUT: { retryable: true },
  /** The destination asked us to slow down (HTTP 429, cloud throttling). */
  DESTINATION_THROTTLED: { retryable: true },
  /** The destination failed on its side (HTTP 5xx, a transient broker error). */
  DESTINATION_SERVER_ERROR: { retryable: true },
  /** The destination refused the data for good (HTTP 4xx other than 408 and 429). */
  DESTINATION_REJECTED: { retryable: false },
  /**
   * The destination answered with a redirect (HTTP 3xx), which is never followed: the data was not
   * delivered, and the destination's URL should be changed to where it points.
   */
  DESTINATION_REDIRECTED: { retryable: false },
  /**
   * The destination's host resolved, when connecting, to an address destinations may not reach (loopback,
   * link-local, private: SECURITY.md "Egress"), e.g. a name whose DNS answer changed after the check at
   * creation. Retryable like a misconfiguration: the deliveries are parked until the destination is fixed.
   */
  DESTINATION_ADDRESS_REFUSED: { retryable: true },
  /** One record is larger than the destination accepts; it can never be delivered there. */
  RECORD_TOO_LARGE: { retryable: false },
  /** A write failed for a reason the writer could not classify (disk full, unknown client error). */
  WRITE_FAILED: { retryable: true },
  /** The writer was closed; the data may still be delivered by another writer after a restart. */
  WRITER_CLOSED: { retryable: true },
  /** The destination's configuration is invalid (validation at load time, or a path that escapes its root). */
  INVALID_DESTINATION_CONFIG: { retryable: false },
  /** The target names a destination kind this build does not know. */
  UNKNOWN_DESTINATION_KIND: { retryable: false },
  /** The health check failed; the destination should not be written to yet. */
  DESTINATION_UNHEALTHY: { retryable: true },
  /**
   * The destination refused our credentials, or the role could not be assumed. Retryable: the deliveries
   * are parked and re-driven once someone fixes the destination's auth, instead of being thrown away.
   */
  DESTINATION_AUTH_FAILED: { retryable: true },
  /** The stream, delivery stream or log group does not exist (yet); retried and parked like an outage. */
  DESTINATION_NOT_FOUND: { retryable: true },
  /**
   * The destination cannot run as configured: its writer could not be built (a secret sealed with another
   * SECRET_KEY, a config the writer rejects). Retryable: its deliveries are parked and re-driven once a
   * config update fixes it.
   */
  DESTINATION_MISCONFIGURED: { retryable: true },
  /** The retry topic could not take parked deliveries before shutdown; they stay unsettled and are read again. */
  PARKING_FAILED: { retryable: true },
  /** The destination was deleted while the event waited for it; the event is dead-lettered, not lost. */
  DESTINATION_REMOVED: { retryable: false },
  /** The dead-letter topic could not take the record; it stays pending and is retried. */
  DEAD_LETTER_FAILED: { retryable: true },
} as const;

export type DeliveryErrorCode = keyof typeof DELIVERY_ERROR_CODES;

export interface DeliveryErrorOptions {
  readonly cause?: unknown;
  /** Overrides the code's default, e.g. a kafka error the client marks as not retriable. */
  readonly retryable?: boolean;
  /** The destination's own hint of how long to wait before the next attempt (HTTP Retry-After). */
  readonly retryAfterMs?: number;
  /** The destination's answer code, when it has one (the HTTP status). */
  readonly status?: number;
}

export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
  readonly code: DeliveryErrorCode;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly status: number | undefined;

  constructor(code: DeliveryErrorCode, message: string, opts: DeliveryErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.code = code;
    this.retryable = opts.retryable ?? DELIVERY_ERROR_CODES[code].retryable;
    this.retryAfterMs = opts.retryAfterMs;
    this.status = opts.status;
  }
}

/** Wraps anything a writer threw so the runner sees one shape; unknown failures are retryable. */
export function toDeliveryError(err: unknown): DeliveryError {
  if (err instanceof DeliveryError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new DeliveryError('WRITE_FAILED', message, { cause: err });
}

/**
 * The destination's own error behind one of the service's: a write that failed fast while the destination
 * is parked (DESTINATION_UNHEALTHY) carries the error that parked it as its cause.
 */
export function underlyingError(error: DeliveryError): DeliveryError {
  let e = error;
  while (e.code === 'DESTINATION_UNHEALTHY' && e.cause instanceof DeliveryError) e = e.cause;
  return e;
}
