// One admin route with its schemas: request validation, serialization and the OpenAPI document come from
// the same declaration, with its operation id, its links, and the rules it applies beyond its schema.
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import type { AccountContext } from '../accounts/account.js';
import { accountOfRequest } from './context.js';
import { API_ERRORS, ApiError, type ApiErrorCode } from './errors.js';
import { REQUEST_EXAMPLES } from './request-examples.js';
import { BODY_ERRORS, responses, type Schema } from './schemas.js';

/**
 * A rule a request can break although it matches the schema (an id that names nothing, a CIDR with host
 * bits set, a filter that does not compile): the 400 it is answered with. The operation lists its rules
 * in `x-rules-beyond-schema` and in its 400 description, so a client knows every refusal it can meet.
 */
export interface BeyondSchemaRule {
  readonly code: ApiErrorCode;
  readonly rule: string;
}

/**
 * An OpenAPI link from a success response to an operation on what it answered with. A link names path
 * parameters only: where the id goes into the other operation's body, its description says so (a link's
 * requestBody is a runtime expression for the whole body, which cannot put the id inside one).
 */
export interface Link {
  readonly operationId: string;
  readonly parameters?: Readonly<Record<string, string>>;
  readonly description?: string;
}

/** What the error handler reads from a route (validation.ts): how to name the problem of a refused body. */
export interface RouteConfig {
  /** Fields an update may not send (sending one is immutable_field, not unknown_field), and what they belong to. */
  readonly immutable?: { readonly fields: readonly string[]; readonly resource: string };
  /**
   * The domain's own account of why a body the schema refused is wrong, when it has a better one:
   * `at` is the JSON pointer of the value the schema refused (e.g. "/target/http/url"), `account` the
   * account the request acts for.
   */
  readonly explain?: (body: unknown, at: string, account: AccountContext) => ApiError | undefined;
}

export interface RouteSpec extends RouteConfig {
  readonly operationId: string;
  readonly tags: readonly string[];
  readonly summary: string;
  readonly description?: string;
  readonly params?: Schema;
  readonly querystring?: Schema;
  readonly body?: Schema;
  /** The success status and its schema (with its description). */
  readonly ok: readonly [number, Schema];
  /** Error statuses beyond 400, 401, 500 and 503 (schemas.ts responses()); a body adds 413 and 415. */
  readonly errors?: readonly number[];
  readonly rules?: readonly BeyondSchemaRule[];
  /** Links from the success response, by name. */
  readonly links?: Readonly<Record<string, Link>>;
  /**
   * Only the operator account may call it: what it does, in words ("manage accounts"). Another account's
   * key gets 403 forbidden before the body is read.
   */
  readonly operatorOnly?: string;
}

/** Admin bodies are small (metadata is at most 4 KiB); anything far larger is refused unread. */
export const ADMIN_BODY_LIMIT = 64 * 1024;

/** JSON schema has no word for a body's size in bytes, so every route with a body states its limit here. */
const BODY_LIMIT_RULE: BeyondSchemaRule = { code: 'payload_too_large', rule: `the body is at most ${ADMIN_BODY_LIMIT} bytes (answered 413)` };

declare module 'fastify' {
  interface FastifyContextConfig {
    readonly immutable?: RouteConfig['immutable'];
    readonly explain?: RouteConfig['explain'];
  }
}

type Handler = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** One route with its schemas: validation, serialization and the OpenAPI document (schemas.ts). */
export function route(app: FastifyInstance, method: HTTPMethods, url: string, spec: RouteSpec, handler: Handler): void {
  const { operationId, tags, summary, description, params, querystring, body, ok, links, immutable, explain, operatorOnly } = spec;
  const errors = operatorOnly === undefined ? (spec.errors ?? []) : [403, ...(spec.errors ?? [])];
  const statuses = body === undefined ? errors : [...BODY_ERRORS, ...errors];
  const rules = body === undefined ? (spec.rules ?? []) : [...(spec.rules ?? []), BODY_LIMIT_RULE];
  // Each status that rules answer with lists them in its description.
  const text: Record<number, string> = {};
  for (const status of new Set(rules.map((r) => API_ERRORS[r.code].status))) {
    const listed = rules.filter((r) => API_ERRORS[r.code].status === status).map((r) => `${r.code}: ${r.rule}`);
    text[status] = `Beyond the schema, the request is refused when it breaks one of these rules (error_code: rule): ${listed.join('; ')}.`;
  }
  const schema = {
    operationId,
    tags: [...tags],
    summary,
    ...(description !== undefined && { description }),
    ...(params && { params }),
    ...(querystring && { querystring }),
    // The document shows the body's example beside its schema (request-examples.ts).
    ...(body && { body: withExample(body, operationId) }),
    ...(rules.length > 0 && { 'x-rules-beyond-schema': rules.map((r) => ({ error_code: r.code, rule: r.rule })) }),
    response: responses({ [ok[0]]: ok[1] }, statuses, text),
  };
  const config: RouteConfig = { ...(immutable && { immutable }), ...(explain && { explain }) };
  // The scope's onRequest hook (authentication) runs before a route's own.
  const onRequest = operatorOnly === undefined ? [] : [operatorCheck(operatorOnly)];
  // Fastify keeps `config` on the route for hooks and error handlers (req.routeOptions.config).
  app.route({ method, url, schema, config, onRequest, ...(links && { links: { [ok[0]]: { ...links } } }), handler });
}

/** The body schema with its operation's example (an annotation: validation ignores it). */
function withExample(body: Schema, operationId: string): Schema {
  const example = REQUEST_EXAMPLES[operationId];
  if (example === undefined) throw new Error(`${operationId} takes a body, so request-examples.ts needs an example of it.`);
  return { ...body, examples: [example] };
}

function operatorCheck(action: string) {
  return async (req: FastifyRequest): Promise<void> => {
    if (!accountOfRequest(req).isOperator) throw new ApiError('forbidden', { action });
  };
}

/** A request's body, params and query, typed by the route that declared their schemas. */
export function partsOf<B = unknown, P = { id: string }, Q = unknown>(req: FastifyRequest): { body: B; params: P; query: Q } {
  return { body: req.body as B, params: req.params as P, query: req.query as Q };
}

