// The admin API as one Fastify scope: JSON parsing with a body limit, validation that rejects unknown
// fields, bearer auth on every route but the public docs, the error catalogue, the OpenAPI document at
// /openapi.json with a docs page at /docs, and the resource modules of routes.ts.
import { isUtf8 } from 'node:buffer';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { ServiceConfig } from '../config/service-config.js';
import type { ConfigLog } from '../configlog/config-log.js';
import type { TestEventSender } from '../delivery/test-event.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { AllowedMethods } from './allowed-methods.js';
import { bootstrapApiKey } from './api-keys/bootstrap.js';
import { ApiKeyIndex, bearerAuth } from './auth.js';
import type { AdminContext, DestinationSupport } from './context.js';
import { adminErrorHandler, frameworkErrorHandler, parserErrorHandler } from './error-handler.js';
import { ApiError } from './errors.js';
import { withNamedSchemas } from './openapi-document.js';
import { registerRateLimit } from './rate-limit.js';
import { ADMIN_BODY_LIMIT } from './route.js';
import { ReservationVerifier } from './reserved-domains/reservation-verification.js';
import { ADMIN_ROUTE_MODULES } from './routes.js';
import { LONE_SURROGATE } from '../records/json-record.js';
import { AdminStore } from './store.js';
import { compileValidator } from './validation.js';
import type { TapStreams } from '../tap/tap-streams.js';
import type { HistorySource } from './history/history-routes.js';
import { PAGE_SECURITY_HEADERS } from '../console/console-routes.js';

export { ADMIN_BODY_LIMIT } from './route.js';

const API_DESCRIPTION = [
  'Accounts, API keys, reserved domains, IP policies and rules, TCP edges with their IP restriction module, event destinations and subscriptions.',
  "Every resource belongs to the account of the key that created it; another account's resources answer 404 and are in no list, and only the operator account's keys may manage accounts (403 for others).",
  'Errors are {error_code, status_code, msg, details}; details.field names the offending field.',
  'Requests are validated with the schemas shown here: a value that breaks one is a 400 (a malformed id in a path is a 404), and a schema marked x-error names the error_code it gives.',
  'What a schema cannot state (an id that names nothing, a CIDR with host bits set, a filter that does not compile, a limit in bytes) is listed per operation in x-rules-beyond-schema and in its 400 description.',
  'A method a path does not take is answered 405 with an Allow header.',
].join(' ');

/** Routes anyone may read: the API description is not a secret, and tools fetch it without a key. */
const PUBLIC_PREFIXES = ['/openapi.json', '/docs'];

/**
 * The console's headers for the documentation page, but for the inline styles Swagger UI sets as it
 * renders (a style cannot run code; scripts stay the page's own files alone).
 */
export const DOCS_SECURITY_HEADERS = {
  ...PAGE_SECURITY_HEADERS,
  'content-security-policy': PAGE_SECURITY_HEADERS['content-security-policy'].replace("style-src 'self'", "style-src 'self' 'unsafe-inline'"),
};

/**
 * Options of the service's Fastify instance that the admin API needs: errors before routing and
 * requests the HTTP parser refuses in the catalogue's shape, and path parameters up to 1000 characters
 * so that an over-long id reaches validation (a 404, as any malformed id) instead of the router's 414
 * (its default limit is 100).
 */
export const ADMIN_FASTIFY_OPTIONS = {
  routerOptions: { maxParamLength: 1000 },
  frameworkErrors: frameworkErrorHandler,
  clientErrorHandler: parserErrorHandler,
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
  /** Live taps. */
  readonly taps?: TapStreams;
  /** The delivery history (src/delivery/history/). */
  readonly history?: HistorySource;
}

export interface AdminApi {
  readonly context: AdminContext;
  /** Adds the admin scope to the service's Fastify instance (before listen). */
  register(app: FastifyInstance): void;
  /**
   * After the config log loaded: creates the first API key when none exists (see bootstrap.ts), and starts
   * re-checking pending reserved domains. Resolves to a token it generated, for the ready block alone.
   */
  bootstrap(): Promise<string | undefined>;
  /** Stops what bootstrap() started; before the config log stops. */
  stop(): Promise<void>;
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
    ...(deps.taps !== undefined && { taps: deps.taps }),
    ...(deps.history !== undefined && { history: deps.history }),
  };
  const rechecks = new ReservationVerifier(context);
  return {
    context,
    register(app) {
      void app.register(async (scope) => adminScope(scope, deps, context, keys));
    },
    async bootstrap() {
      const generated = await bootstrapApiKey(context);
      rechecks.start(deps.config.domainRecheckIntervalMs);
      return generated;
    },
    stop: () => rechecks.stop(),
  };
}

/** Whether a body holds nothing but JSON whitespace (RFC 8259 2); it stops at the first other byte. */
function isBlank(bytes: Buffer): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return false;
  return true;
}

/** Why a JSON body cannot be read as UTF-8 text as sent, or undefined when it can. */
function unreadableJson(req: FastifyRequest, bytes: Buffer): ApiError | undefined {
  const encoding = req.headers['content-encoding']?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') return new ApiError('unsupported_encoding', { reason: `Content-Encoding ${encoding.slice(0, 40)} is not accepted` });
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  // ASCII text is UTF-8 text.
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8' && charset !== 'us-ascii') return new ApiError('unsupported_encoding', { reason: `charset ${charset.slice(0, 40)} is not UTF-8` });
  if (!isUtf8(bytes)) return new ApiError('invalid_json', { reason: 'the body is not valid UTF-8' });
  return undefined;
}

/** A \u escape of a surrogate in JSON text: the only way one gets into a string of valid UTF-8 input. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Whether a parsed JSON value holds a lone surrogate in a string or a member name (JSON.parse lets \ud800
 * through). Only a text with a surrogate's escape is walked, with a stack of its own: a body may nest deeply.
 */
function holdsLoneSurrogate(text: string, value: unknown): boolean {
  if (!SURROGATE_ESCAPE.test(text)) return false;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === 'string') {
      if (LONE_SURROGATE.test(v)) return true;
    } else if (Array.isArray(v)) {
      for (const item of v) pending.push(item);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, child] of Object.entries(v)) {
        if (LONE_SURROGATE.test(k)) return true;
        pending.push(child);
      }
    }
  }
  return false;
}

async function adminScope(app: FastifyInstance, deps: AdminDeps, ctx: AdminContext, keys: ApiKeyIndex): Promise<void> {
  app.decorateRequest('principal', null);
  app.decorateRequest('account', null);
  app.setValidatorCompiler(compileValidator);
  app.setErrorHandler(adminErrorHandler(ADMIN_BODY_LIMIT));
  const allowed = new AllowedMethods();
  allowed.watch(app);
  const pathOf = (req: FastifyRequest): string => req.url.split('?')[0] ?? '';
  app.setNotFoundHandler((req) => {
    throw new ApiError('route_not_found', { method: req.method, path: pathOf(req).slice(0, 200) });
  });
  /** A request no route took: on a known path, its method is the problem (405 with Allow). */
  const checkMethod = (req: FastifyRequest): void => {
    if (req.routeOptions.url !== undefined) return;
    const methods = allowed.of(pathOf(req));
    if (methods.length > 0) throw new ApiError('method_not_allowed', { method: req.method, path: pathOf(req).slice(0, 200), allowed: methods });
  };

  // Only JSON bodies: text/plain (a Fastify default) would reach validation as a string. An empty body
  // parses as "no body", so a DELETE sent with a JSON content type still works.
  // JSON is UTF-8 text (RFC 8259 8.1): other bytes, another charset, a compressed body or a lone surrogate,
  // which UTF-8 cannot encode, are refused rather than stored with replacement characters.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: ADMIN_BODY_LIMIT }, (req, bytes, done) => {
    // An empty body has nothing to decode, whatever its charset or encoding says.
    if (isBlank(bytes as Buffer)) return done(null, undefined);
    const refused = unreadableJson(req, bytes as Buffer);
    if (refused !== undefined) return done(refused, undefined);
    const body = (bytes as Buffer).toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (err) {
      return done(new ApiError('invalid_json', { reason: err instanceof Error ? err.message : 'unreadable' }), undefined);
    }
    if (holdsLoneSurrogate(body, value)) return done(new ApiError('invalid_json', { reason: 'a string or a member name holds a lone surrogate (a \\u escape from D800 to DFFF without its pair), which UTF-8 cannot encode' }), undefined);
    done(null, value);
  });

  await app.register(swagger, {
    openapi: {
      // 3.1: its schemas are JSON Schema, so the document shows the very schemas the API validates with.
      openapi: '3.1.0',
      info: {
        title: 'edge-events admin API',
        version: '0.1.0',
        description: API_DESCRIPTION,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: deps.config.publicBaseUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key token (eek_...).' } } },
      security: [{ bearer: [] }],
    },
    // Named schemas once under components/schemas, referenced where used (openapi-document.ts).
    transformObject: (document) => withNamedSchemas((document as { openapiObject: Record<string, unknown> }).openapiObject),
  });
  // The page shares the console's origin, and with it the tab's sessionStorage: it gets the console's
  // security headers, its static files (served apart from the plugin's hooks) too; the validator badge,
  // an image from another origin, is off.
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { validatorUrl: null } });
  app.addHook('onSend', async (req, reply) => {
    if (pathOf(req) === '/docs' || pathOf(req).startsWith('/docs/')) reply.headers(DOCS_SECURITY_HEADERS);
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const authenticate = bearerAuth(keys, ctx.uri);
  const isPublic = (path: string): boolean => PUBLIC_PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
  // onRequest runs before the body is read, so a QUERY without a body gets its 405 too. On the public
  // paths the method is checked at once; elsewhere only after auth, so routes cannot be probed anonymously.
  app.addHook('onRequest', async (req: FastifyRequest) => {
    if (isPublic(req.routeOptions.url ?? pathOf(req))) return checkMethod(req);
    if (!deps.isLoaded()) throw new ApiError('unavailable', { reason: 'the config log is still loading' });
    await authenticate(req);
    checkMethod(req);
  });

  registerRateLimit(app, deps.config.apiRateLimit);
  for (const register of ADMIN_ROUTE_MODULES) register(app, ctx);
}
