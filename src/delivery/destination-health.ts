// One destination's delivery state as this worker sees it, with its last error and last delivery, and
// the log lines that tell people about it: one when the state changes (ok, failing, parked, ok again),
// then at most one a minute while it stays failing or parked, never one per attempt.
import { createLogger, type Logger } from '../telemetry/logger.js';
import { systemClock, type Clock } from './clock.js';
import { underlyingError, type DeliveryError, type DeliveryErrorCode } from './errors.js';

/** unknown: nothing delivered or failed yet; failing: the last attempt failed; parked: deliveries are being parked. */
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
}

/** A destination that stays failing is reported again after this long, with what happened since. */
export const REMIND_EVERY_MS = 60_000;

export class DestinationHealth {
  private state: DestinationState = 'unknown';
  private since: number;
  private lastError: DestinationProblem | undefined;
  private lastDeliveredAt: number | undefined;
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
    return { state: this.state, since: this.since, lastError: this.lastError, lastDeliveredAt: this.lastDeliveredAt };
  }

  /** The writer cannot be built: the destination fails with `problem` until its config changes. */
  misconfigured(problem: DeliveryError): void {
    const now = this.clock.now();
    this.record(problem, now);
    if (this.state !== 'parked') this.enter('failing', now);
    this.line(now, 'error', { code: problem.code, reason: problem.message }, 'The destination cannot run as configured; its events are parked until its config is fixed.');
  }

  /** A write delivered `count` events. */
  delivered(count: number): void {
    if (count === 0) return;
    const now = this.clock.now();
    this.lastDeliveredAt = now;
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
    this.line(now, 'warn', { code: real.code, reason: real.message }, 'The destination is failing.');
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
      { records: count, code: real.code, reason: real.message },
      'The destination spent its retry budget; its deliveries are parked in its retry topic and will be re-driven when it recovers.',
    );
  }

  /** `count` events were dead-lettered for `error` (refused for good): one line, then at most one a minute. */
  deadLetteredFor(count: number, error: DeliveryError): void {
    const now = this.clock.now();
    this.deadLettered += count;
    if (now - this.lastDeadLetterLineAt < REMIND_EVERY_MS) return;
    this.log.warn({ records: this.deadLettered, code: error.code, reason: error.message }, 'The destination refused events for good; they went to the dead-letter topic.');
    this.lastDeadLetterLineAt = now;
    this.deadLettered = 0;
  }

  private record(error: DeliveryError, now: number): void {
    this.lastError = { code: error.code, message: error.message, at: now };
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
