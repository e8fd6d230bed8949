// Runs the real service in-process (buildApp on a real socket, the suite's real broker) for admin API
// tests, with its own topics and a known bootstrap token, plus a small fetch client.
import { randomBytes } from 'node:crypto';
import { buildApp, type App } from '../../../src/app.js';
import { loadServiceConfig } from '../../../src/config/service-config.js';
import type { HostResolver } from '../../../src/net/guarded-lookup.js';
import { testBrokers, uniqueName } from '../../support/kafka.js';
import { serviceEnv } from '../../support/service-process.js';
import { OpenApiChecker, type OpenApiDoc } from './openapi-check.js';

export const PUBLIC_BASE_URL = 'https://api.edge.test';

export interface AdminHarness {
  readonly app: App;
  /** "http://127.0.0.1:<port>". */
  readonly url: string;
  /** The bootstrap API key's token. */
  readonly token: string;
  /** The topic prefix; start another harness with the same prefix to share its topics. */
  readonly prefix: string;
  readonly env: Record<string, string>;
  /** Every call's response is checked against the service's OpenAPI document; a mismatch fails the call. */
  call(method: string, path: string, opts?: CallOptions): Promise<CallResult>;
  openapi(): Promise<OpenApiChecker>;
  stop(): Promise<void>;
}

export interface CallOptions {
  /** Sent as JSON unless it is a string (then sent as is). */
  body?: unknown;
  /** Default: the harness token; null sends no Authorization header. */
  token?: string | null;
  headers?: Record<string, string>;
}

/** A parsed response body: its shape is checked against the OpenAPI document, so tests read it freely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Body = any;

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when empty or not JSON. */
  json: Body;
}

export interface StartOptions {
  /** Reuse another harness's topics (restart, second replica). */
  prefix?: string;
  token?: string;
  /** Default "api". */
  roles?: string;
  env?: Record<string, string>;
  /** How destinations' host names resolve in this service (buildApp's override). */
  resolveHost?: HostResolver;
}

export async function startAdmin(opts: StartOptions = {}): Promise<AdminHarness> {
  const prefix = opts.prefix ?? uniqueName('admin');
  const token = opts.token ?? `eek_test${randomBytes(16).toString('hex')}`;
  const env = serviceEnv(prefix, testBrokers(), {
    ROLES: opts.roles ?? 'api',
    PUBLIC_BASE_URL,
    API_BOOTSTRAP_TOKEN: token,
    ...opts.env,
  });
  const app = buildApp(loadServiceConfig(env), testBrokers(), opts.resolveHost === undefined ? {} : { resolveHost: opts.resolveHost });
  let url: string;
  try {
    url = (await app.start()).address;
  } catch (err) {
    await app.stop().catch(() => undefined);
    throw err;
  }
  let checker: Promise<OpenApiChecker> | undefined;
  const openapi = (): Promise<OpenApiChecker> =>
    (checker ??= request(url, 'GET', '/openapi.json').then((r) => {
      if (r.status !== 200) throw new Error(`GET /openapi.json answered ${r.status}`);
      return new OpenApiChecker(r.json as OpenApiDoc);
    }));
  const call = async (method: string, path: string, o: CallOptions = {}): Promise<CallResult> => {
    const res = await request(url, method, path, { token, ...o });
    const problem = (await openapi()).problem(method, path, res.status, res.headers.get('content-type'), res.text);
    if (problem !== undefined) throw new Error(`The response does not match the OpenAPI document: ${problem}`);
    return res;
  };
  return { app, url, token, prefix, env, call, openapi, stop: () => app.stop() };
}

export async function request(url: string, method: string, path: string, o: CallOptions = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token !== undefined && o.token !== null) headers.authorization = `Bearer ${o.token}`;
  let body: string | undefined;
  if (o.body !== undefined) {
    body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${url}${path}`, { method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
