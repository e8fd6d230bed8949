// One destination's delivery state as this worker sees it, with its last error and last delivery, and
// the log lines that tell people about it: one when the state changes (ok, failing, parked, ok again),
// then at most one a minute while it stays failing or parked, never one per attempt. The workers publish
// it (status/), so its messages are scrubbed of secrets when they are recorded.
import { createLogger, type Logger } from '../telemetry/logger.js';
import { systemClock, type Clock } from './clock.js';
import { underlyingError, type DeliveryError, type DeliveryErrorCode } from './errors.js';
import { redactMessage } from './status/redact.js';

/**
 * unknown: nothing delivered or failed yet with the current target; ok: the last attempt delivered;
 * failing: the last attempt (or the check at start, or the first connect) failed; parked: deliveries are being parked.
 */
export type DestinationState = 'unknown' | 'ok' | 'failing' | 'parked';

export interface DestinationProblem {
  readonly code: DeliveryErrorCode;
  readonly message: string;
  /** When it was last seen (ms since the epoch). */
  readonly at: number;
}

export interface DestinationStatus {
  readonly state: DestinationState;
  /** When the current state began. */
  readonly since: number;
  readonly lastError: DestinationProblem | undefined;
  readonly lastDeliveredAt: number | undefined;
  /** When the last attempt (a write, or a check) ended, whatever its outcome; undefined since the target changed. */
  readonly lastAttemptAt: number | undefined;
  /**
   * When the batch began that read the oldest record waiting for this destination past
   * STALLED_RECORD_AFTER_MS (its partition commits nothing past it meanwhile); undefined when none does.
   */
  readonly stalledSince: number | undefined;
}

/** A destination that stays failing is reported again after this long, with what happened since. */
export const REMIND_EVERY_MS = 60_000;

export class DestinationHealth {
  private state: DestinationState = 'unknown';
  private since: number;
  private lastError: DestinationProblem | undefined;
  private lastDeliveredAt: number | undefined;
  private lastAttemptAt: number | undefined;
  private stalledSince: number | undefined;
  /** The destination's own secrets in clear, never to appear in a recorded message. */
  private secrets: readonly string[] = [];
  private lastLineAt = 0;
  private failedAttempts = 0;
  private parkedDeliveries = 0;
  private lastDeadLetterLineAt = Number.NEGATIVE_INFINITY;
  private deadLettered = 0;
  private readonly log: Logger;

  constructor(
    readonly destinationId: string,
    logger?: Logger,
    private readonly clock: Clock = systemClock,
  ) {
    this.since = clock.now();
    this.log = (logger ?? createLogger('delivery')).child({ destination: destinationId });
  }

  get status(): DestinationStatus {
    return {
      state: this.state,
      since: this.since,
      lastError: this.lastError,
      lastDeliveredAt: this.lastDeliveredAt,
      lastAttemptAt: this.lastAttemptAt,
      stalledSince: this.stalledSince,
    };
  }

  /** A record waiting for this destination has waited past the bound since `since` (the ingest worker's StallWatch); undefined once none does. */
  stalled(since: number | undefined): void {
    this.stalledSince = since;
  }

  /** The destination's secrets (in clear) as of its current config: recorded messages never quote them. */
  useSecrets(secrets: readonly string[]): void {
    this.secrets = secrets;
  }

  /**
   * The destination's target changed: what its old target did says nothing about the new one, so the
   * state starts afresh (unknown until the next attempt). The last error and delivery are kept.
   */
  reconfigured(): void {
    this.lastAttemptAt = undefined;
    this.enter('unknown', this.clock.now());
  }

  /** The check at a worker's start (verify-target.ts) found the destination unable to take events. */
  checkFailed(problem: DeliveryError): void {
    const now = this.clock.now();
    this.record(problem, now);
    if (this.state === 'parked' || this.state === 'failing') return;
    this.enter('failing', now);
    this.line(now, 'warn', { code: problem.code, reason: this.lastError?.message }, 'The destination failed its check at start; its events will be retried and parked until it is fixed.');
  }

  /**
   * The runner's first connect (a file opened, a cluster or endpoint reached, a role assumed) failed before
   * anything else was attempted: the destination shows failing with the reason before its first event.
   */
  connectFailed(problem: DeliveryError): void {
    if (this.state !== 'unknown') return;
    const now = this.clock.now();
    this.record(underlyingError(problem), now);
    this.enter('failing', now);
    this.line(now, 'warn', { code: this.lastError?.code, reason: this.lastError?.message }, 'The destination could not be reached; its events will be retried and parked until it can.');
  }

  /** The writer cannot be built: the destination fails with `problem` until its config changes. */
  misconfigured(problem: DeliveryError): void {
    const now = this.clock.now();
    this.record(problem, now);
    if (this.state !== 'parked') this.enter('failing', now);
    this.line(now, 'error', { code: problem.code, reason: this.lastError?.message }, 'The destination cannot run as configured; its events are parked until its config is fixed.');
  }

  /**
   * A write delivered `count` events. With `stillParking` (a slow destination's re-driven write, while its
   * new events still park at once: destination-runner.ts), a parked destination stays parked.
   */
  delivered(count: number, stillParking = false): void {
    if (count === 0) return;
    const now = this.clock.now();
    this.lastDeliveredAt = now;
    this.lastAttemptAt = now;
    if (stillParking && this.state === 'parked') return;
    if (this.state === 'failing' || this.state === 'parked') {
      this.line(now, 'info', { was: this.state, forMs: now - this.since, lastCode: this.lastError?.code }, 'The destination delivers again.');
    }
    this.enter('ok', now);
  }

  /** An attempt in which nothing was delivered failed with `error`. */
  failed(error: DeliveryError): void {
    const now = this.clock.now();
    const real = underlyingError(error);
    this.record(real, now);
    this.failedAttempts++;
    if (this.state === 'parked' || this.state === 'failing') {
      this.remind(now);
      return;
    }
    this.enter('failing', now);
    this.line(now, 'warn', { code: real.code, reason: this.lastError?.message }, 'The destination is failing.');
  }

  /**
   * The re-driver's health check failed while the destination is parked or failing: a reason it names (a
   * delivery error code of its own, e.g. a stream not found) is the last error, which may differ from the
   * write's that parked it; a bare "unhealthy" says less than that write's error, which stays. No state
   * change and no log line (the re-driver logs its own).
   */
  healthCheckFailed(problem: DeliveryError): void {
    if (this.state !== 'parked' && this.state !== 'failing') return;
    const real = underlyingError(problem);
    if (real.code !== 'DESTINATION_UNHEALTHY') this.record(real, this.clock.now());
  }

  /** `count` deliveries were parked after `error`. */
  parked(count: number, error: DeliveryError): void {
    const now = this.clock.now();
    const real = underlyingError(error);
    this.record(real, now);
    this.parkedDeliveries += count;
    if (this.state === 'parked') {
      this.remind(now);
      return;
    }
    this.enter('parked', now);
    this.line(
      now,
      'warn',
      { records: count, code: real.code, reason: this.lastError?.message },
      'The destination spent its retry budget, or its deliveries waited for it past PARK_AFTER_MS; they are parked in its retry topic and will be re-driven.',
    );
  }

  /** `count` events were dead-lettered for `error` (refused for good): one line, then at most one a minute. */
  deadLetteredFor(count: number, error: DeliveryError): void {
    const now = this.clock.now();
    this.deadLettered += count;
    if (now - this.lastDeadLetterLineAt < REMIND_EVERY_MS) return;
    this.log.warn({ records: this.deadLettered, code: error.code, reason: redactMessage(error.message, this.secrets) }, 'The destination refused events for good; they went to the dead-letter topic.');
    this.lastDeadLetterLineAt = now;
    this.deadLettered = 0;
  }

  private record(error: DeliveryError, now: number): void {
    this.lastError = { code: error.code, message: redactMessage(error.message, this.secrets), at: now };
    this.lastAttemptAt = now;
  }

  private enter(state: DestinationState, now: number): void {
    if (state === this.state) return;
    this.state = state;
    this.since = now;
    this.failedAttempts = 0;
    this.parkedDeliveries = 0;
  }

  private remind(now: number): void {
    if (now - this.lastLineAt < REMIND_EVERY_MS) return;
    const still = this.state === 'parked' ? 'The destination is still parked; its deliveries wait in its retry topic.' : 'The destination is still failing.';
    this.line(
      now,
      'warn',
      { forMs: now - this.since, failedAttempts: this.failedAttempts, parked: this.parkedDeliveries, code: this.lastError?.code, reason: this.lastError?.message },
      still,
    );
    this.failedAttempts = 0;
    this.parkedDeliveries = 0;
  }

  private line(now: number, level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string): void {
    this.log[level](fields, message);
    this.lastLineAt = now;
  }
}
