// Health, readiness and metrics endpoints, outside the API's bearer auth: orchestrators reach health and
// readiness without a token, always; scrapers reach /metrics without one unless METRICS_TOKEN is set.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { registry } from '../telemetry/metrics.js';
import { bearerToken } from './auth.js';
import { ApiError } from './errors.js';

export interface Readiness {
  /** Empty when ready; otherwise a sentence per unmet condition. */
  (): string[];
}

export interface HealthRouteOptions {
  /** The bearer token /metrics asks for (METRICS_TOKEN); undefined leaves it open. */
  readonly metricsToken?: string | undefined;
}

export function registerHealthRoutes(app: FastifyInstance, readiness: Readiness, opts: HealthRouteOptions = {}): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const problems = readiness();
    if (problems.length > 0) return reply.code(503).send({ status: 'not_ready', problems });
    return { status: 'ready' };
  });
  const authorized = metricsAuth(opts.metricsToken);
  app.get('/metrics', async (req, reply) => {
    const refused = authorized(req);
    if (refused !== undefined) return unauthorized(reply, refused);
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}

/** Why a request may not read /metrics, or undefined when it may. */
function metricsAuth(token: string | undefined): (req: FastifyRequest) => string | undefined {
  if (token === undefined) return () => undefined;
  // Compared as digests, in constant time, so neither the token nor its length leaks through timing.
  const expected = digest(token);
  return (req) => {
    const header = req.headers.authorization;
    if (header === undefined || header === '') return 'the Authorization header is missing; /metrics needs the METRICS_TOKEN of this service';
    const given = bearerToken(header);
    if (given === undefined) return 'the Authorization header is not "Bearer <token>"';
    return timingSafeEqual(digest(given), expected) ? undefined : 'the token is not the METRICS_TOKEN of this service';
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** The API's 401: its error body (docs/api-errors.md) and RFC 6750's WWW-Authenticate. */
function unauthorized(reply: FastifyReply, reason: string): FastifyReply {
  const error = new ApiError('unauthorized', { reason });
  return reply.code(401).header('www-authenticate', 'Bearer realm="edge-events"').send(error.toBody());
}
