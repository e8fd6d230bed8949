// Per-account rate limiting of the admin API: a token bucket per account, which all its API keys draw on
// (so minting keys does not raise it), checked after authentication and before the body is read, answered
// with 429 rate_limited and a Retry-After header.
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ApiError, codesWithStatus } from './errors.js';
import { errorSchema } from './schemas.js';

export interface RateLimitOptions {
  /** Requests per second a key may make on average (the bucket's refill rate). */
  readonly perSecond: number;
  /** Requests a key may make at once after being idle (the bucket's size). */
  readonly burst: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Idle keys are forgotten after this long: their bucket would be full again anyway. */
const SWEEP_EVERY_MS = 60_000;

/**
 * One bucket per key (the admin API's are account ids), refilled continuously. Each replica counts on its own, so N replicas behind a load
 * balancer allow up to N times the rate; the limit is a guard against runaway clients, not a quota.
 */
export class KeyRateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep: number;

  constructor(
    readonly options: RateLimitOptions,
    private readonly now: () => number = Date.now,
  ) {
    this.lastSweep = now();
  }

  /** Takes one token for `key` (an account id): 0 when the request may go ahead, else the milliseconds until it may. */
  take(key: string): number {
    const now = this.now();
    const { perSecond, burst } = this.options;
    if (now - this.lastSweep > SWEEP_EVERY_MS) this.sweep(now);
    const b = this.buckets.get(key) ?? { tokens: burst, at: now };
    b.tokens = Math.min(burst, b.tokens + ((now - b.at) * perSecond) / 1000);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - b.tokens) * 1000) / perSecond);
  }

  get size(): number {
    return this.buckets.size;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    const fullAfterMs = (this.options.burst * 1000) / this.options.perSecond;
    for (const [key, b] of this.buckets) if (now - b.at > fullAfterMs) this.buckets.delete(key);
  }
}

const RESPONSE_429 = errorSchema("Too many requests with this account's API keys; retry after the number of seconds in the Retry-After header.", codesWithStatus(429));

/**
 * Adds the limit to the admin scope. Call it before the routes are added: its onRoute hook documents the
 * 429 answer on each of them. Requests without a principal (the public docs) are not limited.
 */
export function registerRateLimit(app: FastifyInstance, options: RateLimitOptions, limiter = new KeyRateLimiter(options)): KeyRateLimiter {
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = route.schema as { hide?: boolean; response?: Record<string, unknown> } | undefined;
    if (schema === undefined || schema.hide === true) return;
    schema.response = { ...schema.response, 429: RESPONSE_429 };
  });
  // preParsing runs after every onRequest hook, so the auth hook has set the principal, and the body
  // of a refused request is never read.
  app.addHook('preParsing', async (req: FastifyRequest, reply: FastifyReply, payload) => {
    const account = req.account?.accountId;
    if (account === undefined) return payload;
    const waitMs = limiter.take(account);
    if (waitMs === 0) return payload;
    // RFC 9110 10.2.3: Retry-After is a delay in whole seconds.
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    const error = new ApiError('rate_limited', { retry_after: seconds, limit_per_second: options.perSecond, burst: options.burst });
    // Answered here rather than thrown, so the Retry-After header cannot be lost on the way.
    reply.code(429).header('retry-after', String(seconds)).type('application/json; charset=utf-8').send(error.toBody());
    return payload;
  });
  return limiter;
}
