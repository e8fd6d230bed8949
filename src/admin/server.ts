// The admin API as one Fastify scope: JSON parsing with a body limit, validation that rejects unknown
// fields, bearer auth on every route but the public docs, the error catalogue, the OpenAPI document at
// /openapi.json with a docs page at /docs, and the resource modules of routes.ts.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { ServiceConfig } from '../config/service-config.js';
import type { ConfigLog } from '../configlog/config-log.js';
import type { TestEventSender } from '../delivery/test-event.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { bootstrapApiKey } from './api-keys/bootstrap.js';
import { ApiKeyIndex, bearerAuth } from './auth.js';
import type { AdminContext, DestinationSupport } from './context.js';
import { adminErrorHandler, frameworkErrorHandler } from './error-handler.js';
import { ApiError } from './errors.js';
import { registerRateLimit } from './rate-limit.js';
import { ADMIN_ROUTE_MODULES } from './routes.js';
import { AdminStore } from './store.js';
import { compileValidator } from './validation.js';

/** Admin bodies are small (metadata is at most 4 KiB); anything far larger is refused unread. */
export const ADMIN_BODY_LIMIT = 64 * 1024;

/** Routes anyone may read: the API description is not a secret, and tools fetch it without a key. */
const PUBLIC_PREFIXES = ['/openapi.json', '/docs'];

/**
 * Options of the service's Fastify instance that the admin API needs: errors before routing in the
 * catalogue's shape, and path parameters up to 1000 characters so that an over-long id reaches
 * validation (400) instead of the router's 414 (its default limit is 100).
 */
export const ADMIN_FASTIFY_OPTIONS = {
  routerOptions: { maxParamLength: 1000 },
  frameworkErrors: frameworkErrorHandler,
} satisfies FastifyServerOptions;

export interface AdminDeps {
  readonly configLog: ConfigLog;
  readonly config: ServiceConfig;
  readonly secrets: SecretBox;
  /** False until the config log has loaded; requests get 503 until then. */
  isLoaded(): boolean;
  /** Sends test events for POST /event_destinations/{id}/test_event. */
  readonly testEvent?: TestEventSender;
  /** Checks and status of event destinations. */
  readonly destinations: DestinationSupport;
}

export interface AdminApi {
  readonly context: AdminContext;
  /** Adds the admin scope to the service's Fastify instance (before listen). */
  register(app: FastifyInstance): void;
  /** After the config log loaded: creates the first API key when none exists (see bootstrap.ts). */
  bootstrap(): Promise<void>;
}

export function createAdminApi(deps: AdminDeps): AdminApi {
  const base = deps.config.publicBaseUrl;
  const store = new AdminStore({ configLog: deps.configLog, auditTopic: deps.config.topics.audit });
  // Built now, before the config log starts, so it indexes the initial load as it is applied.
  const keys = new ApiKeyIndex(deps.configLog);
  const context: AdminContext = {
    store,
    config: deps.config,
    secrets: deps.secrets,
    uri: (path) => `${base}${path}`,
    destinations: deps.destinations,
    ...(deps.testEvent !== undefined && { testEvent: deps.testEvent }),
  };
  return {
    context,
    register(app) {
      void app.register(async (scope) => adminScope(scope, deps, context, keys));
    },
    bootstrap: () => bootstrapApiKey(context, keys),
  };
}

async function adminScope(app: FastifyInstance, deps: AdminDeps, ctx: AdminContext, keys: ApiKeyIndex): Promise<void> {
  app.decorateRequest('principal', null);
  app.setValidatorCompiler(compileValidator);
  app.setErrorHandler(adminErrorHandler(ADMIN_BODY_LIMIT));
  app.setNotFoundHandler((req) => {
    throw new ApiError('route_not_found', { method: req.method, path: req.url.split('?')[0]?.slice(0, 200) });
  });

  // Only JSON bodies: text/plain (a Fastify default) would reach validation as a string. An empty body
  // parses as "no body", so a DELETE sent with a JSON content type still works.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: ADMIN_BODY_LIMIT }, (_req, text, done) => {
    const body = text as string;
    if (body.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(body));
    } catch (err) {
      done(new ApiError('invalid_json', { reason: err instanceof Error ? err.message : 'unreadable' }), undefined);
    }
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'edge-events admin API',
        version: '0.1.0',
        description: 'API keys, IP policies and rules, TCP edges with their IP restriction module, event destinations and subscriptions. Errors are {error_code, status_code, msg, details}.',
      },
      servers: [{ url: deps.config.publicBaseUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key token (eek_...).' } } },
      security: [{ bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const authenticate = bearerAuth(keys, ctx.uri);
  app.addHook('onRequest', async (req: FastifyRequest) => {
    const path = req.routeOptions.url ?? '';
    if (PUBLIC_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`))) return;
    if (!deps.isLoaded()) throw new ApiError('unavailable', { reason: 'the config log is still loading' });
    await authenticate(req);
  });

  registerRateLimit(app, deps.config.apiRateLimit);
  for (const register of ADMIN_ROUTE_MODULES) register(app, ctx);
}
