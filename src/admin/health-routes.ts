// Health, readiness and metrics endpoints: open without a token, so orchestrators and scrapers can reach them.
import type { FastifyInstance } from 'fastify';
import { registry } from '../telemetry/metrics.js';

export interface Readiness {
  /** Empty when ready; otherwise a sentence per unmet condition. */
  (): string[];
}

export function registerHealthRoutes(app: FastifyInstance, readiness: Readiness): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (_req, reply) => {
    const problems = readiness();
    if (problems.length > 0) return reply.code(503).send({ status: 'not_ready', problems });
    return { status: 'ready' };
  });
  app.get('/metrics', async (_req, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
