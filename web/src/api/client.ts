// The console's one way to the service: openapi-fetch over the types generated from the served OpenAPI
// document (schema.gen.ts), the key's token as a bearer token from the tab's sessionStorage, and every
// refusal turned into an ApiFailure that keeps the API's own error body (error_code, msg, details).
import createClient from 'openapi-fetch';
import type { paths } from './schema.gen.ts';

export type { paths };

const TOKEN_KEY = 'edge-events.token';

/** The token lives in this tab's sessionStorage only: never in a URL, a cookie or localStorage. */
export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  signIn: (token: string): void => sessionStorage.setItem(TOKEN_KEY, token),
  signOut: (): void => sessionStorage.removeItem(TOKEN_KEY),
};

/** Dispatched on window when the API answers 401: the app asks for a token again. */
export const UNAUTHORIZED_EVENT = 'edge-events:unauthorized';

export const api = createClient<paths>({ baseUrl: location.origin });
api.use({
  onRequest({ request }) {
    const token = session.token();
    if (token !== null) request.headers.set('authorization', `Bearer ${token}`);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
    return response;
  },
});

/** The API's error body (docs/api-errors.md). */
export interface ApiProblem {
  readonly error_code: string;
  readonly status_code: number;
  readonly msg: string;
  readonly details: Readonly<Record<string, unknown>>;
}

/** One problem of a refused request: the field's path as the API writes it, its code and its sentence. */
export interface FieldProblem {
  readonly path: string;
  readonly code: string;
  readonly message: string;
}

export class ApiFailure extends Error {
  constructor(readonly problem: ApiProblem) {
    super(problem.msg);
  }

  /** The request field the API blames, e.g. "target.http.url" or "sources[0].filter". */
  get field(): string | undefined {
    const f = this.problem.details.field;
    return typeof f === 'string' ? f : undefined;
  }

  /**
   * Every problem the API found, each with the field's path (details.problems, docs/api-errors.md); an
   * answer without the list (an older service) gives its one field's.
   */
  get problems(): readonly FieldProblem[] {
    const listed = this.problem.details.problems;
    if (Array.isArray(listed)) return listed.filter((p): p is FieldProblem => typeof (p as FieldProblem).path === 'string' && typeof (p as FieldProblem).message === 'string');
    return this.field === undefined ? [] : [{ path: this.field, code: this.problem.error_code, message: this.problem.msg }];
  }

  /** The API's message about each field it named, by the field's path (the first of each). */
  get byField(): Readonly<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const p of this.problems) if (p.path !== '' && !(p.path in out)) out[p.path] = p.message;
    return out;
  }

  /** Where a filter failed to compile, as the API reports it (1-based). */
  get position(): { line: number; column: number } | undefined {
    const { line, column } = this.problem.details;
    return typeof line === 'number' && typeof column === 'number' ? { line, column } : undefined;
  }
}

function isProblem(body: unknown): body is ApiProblem {
  return typeof body === 'object' && body !== null && typeof (body as ApiProblem).msg === 'string' && typeof (body as ApiProblem).error_code === 'string';
}

/** The failure of an answer that is not 2xx, in the API's words where it gave some. */
export function failureOf(error: unknown, response: Response | undefined): ApiFailure {
  if (isProblem(error)) return new ApiFailure(error);
  const status = response?.status ?? 0;
  const msg = response === undefined ? 'The service did not answer: is it running?' : `The service answered ${status} ${response.statusText}.`;
  return new ApiFailure({ error_code: 'unexpected_answer', status_code: status, msg, details: {} });
}

/** Anything thrown by an action, as a failure the page can show where it happened. */
export function asFailure(err: unknown): ApiFailure {
  if (err instanceof ApiFailure) return err;
  return new ApiFailure({ error_code: 'console_error', status_code: 0, msg: err instanceof Error ? err.message : String(err), details: {} });
}

/** The data of a successful answer, or throws its ApiFailure; a network failure is one too. */
export async function must<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await call;
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw failureOf(undefined, undefined);
  }
  if (!answer.response.ok) throw failureOf(answer.error, answer.response);
  return answer.data as T;
}

// Shapes by path and method, never by component name: the paths and bodies are the API's contract.
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
export type Destination = JsonOf<paths['/event_destinations/{id}']['get']['responses'][200]>;
export type DestinationStatus = Destination['status'];
export type DestinationHistory = JsonOf<paths['/event_destinations/{id}/history']['get']['responses'][200]>;
export type HistoryPoint = DestinationHistory['points'][number];
export type TestEventResult = JsonOf<paths['/event_destinations/{id}/test_event']['post']['responses'][200]>;
export type Subscription = JsonOf<paths['/event_subscriptions/{id}']['get']['responses'][200]>;
export type SubscriptionCreate = JsonOf<NonNullable<paths['/event_subscriptions']['post']['requestBody']>>;
export type SourceInput = JsonOf<NonNullable<paths['/tap']['post']['requestBody']>>;
export type Replay = JsonOf<paths['/event_subscriptions/{id}/replays/{replay_id}']['get']['responses'][200]>;
export type Account = JsonOf<paths['/accounts/{id}']['get']['responses'][200]>;
export type ApiKey = JsonOf<paths['/api_keys']['post']['responses'][201]>;
export type ReservedDomain = JsonOf<paths['/reserved_domains/{id}']['get']['responses'][200]>;
export type TcpAddress = JsonOf<paths['/reserved_addrs/{id}']['get']['responses'][200]>;
export type TcpEdge = JsonOf<paths['/edges/tcp/{id}']['get']['responses'][200]>;
export type IpPolicy = JsonOf<paths['/ip_policies/{id}']['get']['responses'][200]>;
export type IpPolicyRule = JsonOf<paths['/ip_policy_rules/{id}']['get']['responses'][200]>;
