// Realistic raw records from a seed, the same for the same seed: for benchmarks, integration tests and traffic generators.
import type { TrafficEventType } from '../events/catalog.js';
import type { TrafficRecordInput } from './record-encoder.js';
import { seededRandom as rng } from '../traffic/random.js';
import { formatMicros } from './timestamps.js';

const HOSTS = ['api.example.com', 'shop.example.net', 'app.example.org', 'static.example.com', 'hooks.example.io'];
const PATHS = ['/v1/orders', '/v1/orders/8812', '/login', '/assets/app.3f9a1c.js', '/webhooks/payments', '/healthz'];
const METHODS = ['get', 'get', 'get', 'post', 'put', 'delete'];
const STATUSES = [200, 200, 200, 201, 204, 301, 304, 400, 401, 404, 429, 500, 502];
const AGENTS = [
  'mozilla/5.0 (x11; linux x86_64) applewebkit/537.36 (khtml, like gecko) chrome/124.0.0.0 safari/537.36',
  'mozilla/5.0 (macintosh; intel mac os x 14_4) applewebkit/605.1.15 (khtml, like gecko) version/17.4 safari/605.1.15',
  'curl/8.5.0',
  'python-requests/2.31.0',
];
const DECISIONS = ['allow', 'allow', 'allow', 'block', 'invalid'];

export interface SampleOptions {
  /** Epoch of the generated timestamps, in ms. Default 2024-05-01T00:00:00Z. */
  readonly epochMs?: number;
}

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)] as T;
}

function ipv4(r: () => number, first: number): string {
  return `${first}.${Math.floor(r() * 256)}.${Math.floor(r() * 256)}.${1 + Math.floor(r() * 254)}`;
}

function timestamp(epochMs: number, offsetMicros: number): string {
  return formatMicros(epochMs * 1000 + offsetMicros);
}

/** An http_request_complete.v0 record of about 1 KB in Avro, with request and response header maps. */
export function sampleHttpRecord(seed: number, opts: SampleOptions = {}): TrafficRecordInput {
  const r = rng(seed);
  const epoch = opts.epochMs ?? Date.UTC(2024, 4, 1);
  const host = pick(r, HOSTS);
  const path = pick(r, PATHS);
  const query = r() < 0.4 ? `page=${Math.floor(r() * 20)}&sort=created_at` : null;
  const agent = pick(r, AGENTS);
  const status = pick(r, STATUSES);
  const start = Math.floor(r() * 86_400_000_000);
  const bodyOut = Math.floor(r() * 50_000);
  return {
    conn: { client_ip: ipv4(r, 100), server_ip: ipv4(r, 198), server_name: host, server_port: r() < 0.9 ? 443 : 80, start_ts: timestamp(epoch, start) },
    backend: { connection_reused: r() < 0.7 },
    basic_auth: { decision: 'invalid' },
    circuit_breaker: { decision: 'allow' },
    compression: { algorithm: 'gzip', bytes_saved: Math.floor(bodyOut * 0.6) },
    http: {
      request: {
        body_length: Math.floor(r() * 4096),
        headers: {
          Accept: ['application/json, text/plain, */*'],
          'Accept-Encoding': ['gzip, deflate, br'],
          'Accept-Language': ['en-us,en;q=0.9'],
          Host: [host],
          'User-Agent': [agent],
          'X-Forwarded-For': [ipv4(r, 100)],
          'X-Request-Id': [`req_${Math.floor(r() * 1e12).toString(36)}${Math.floor(r() * 1e12).toString(36)}`],
          Cookie: [`session=${Math.floor(r() * 1e15).toString(36)}`, 'theme=dark'],
        },
        method: pick(r, METHODS),
        url: { host, path, query, raw: `https://${host}${path}${query === null ? '' : `?${query}`}`, scheme: 'https' },
        user_agent: agent,
      },
      response: {
        body_length: bodyOut,
        headers: {
          'Content-Type': ['application/json; charset=utf-8'],
          'Content-Encoding': ['gzip'],
          'Cache-Control': ['no-store'],
          Date: [new Date(epoch + start / 1000).toUTCString().toLowerCase()],
          'Strict-Transport-Security': ['max-age=63072000; includesubdomains'],
          Vary: ['accept-encoding'],
        },
        status_code: status,
      },
    },
    ip_policy: { decision: pick(r, DECISIONS) },
    oauth: { decision: 'invalid' },
    tls: { cipher_suite: 'TLS_AES_128_GCM_SHA256', version: '1.3' },
    traffic_policy: {
      logs: [{ action: 'log', rule: 'rate-limit', bucket: host, remaining: Math.floor(r() * 100), limited: status === 429 }],
    },
    webhook_verification: { decision: 'invalid' },
  };
}

/** A tcp_connection_closed.v0 record, about 120 bytes in Avro. */
export function sampleTcpRecord(seed: number, opts: SampleOptions = {}): TrafficRecordInput {
  const r = rng(seed);
  const epoch = opts.epochMs ?? Date.UTC(2024, 4, 1);
  const start = Math.floor(r() * 86_400_000_000);
  return {
    conn: {
      client_ip: ipv4(r, 100),
      server_ip: ipv4(r, 198),
      server_name: `${1 + Math.floor(r() * 9)}.tcp.example.net`,
      server_port: 10_000 + Math.floor(r() * 20_000),
      bytes_in: Math.floor(r() * 1e7),
      bytes_out: Math.floor(r() * 1e8),
      start_ts: timestamp(epoch, start),
      end_ts: timestamp(epoch, start + Math.floor(r() * 600_000_000)),
    },
    ip_policy: { decision: pick(r, DECISIONS) },
    traffic_policy: { logs: r() < 0.2 ? [{ action: 'log', note: 'long-lived connection' }] : null },
  };
}

export function sampleRecord(eventType: TrafficEventType, seed: number, opts: SampleOptions = {}): TrafficRecordInput {
  return eventType === 'http_request_complete.v0' ? sampleHttpRecord(seed, opts) : sampleTcpRecord(seed, opts);
}
