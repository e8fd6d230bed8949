// The traffic generator: realistic raw records of both traffic types, reproducible from a seed, in any producer form.
import type { TrafficEventType } from '../events/catalog.js';
import { encodeRecord, type TrafficRecordInput } from '../records/record-encoder.js';
import type { WireForm } from '../records/record-types.js';
import { formatMicros } from '../records/timestamps.js';
import { ClientAddresses, buildClientNetworks, withClientNetwork, type ClientNetwork } from './client-networks.js';
import { buildHttpHosts, buildTcpAddresses, type HttpHost, type TcpAddress } from './hosts.js';
import { httpExchange } from './http-shape.js';
import { intBetween, logNormalInt, pick, seededRandom, type Random } from './random.js';
import { Zipf } from './zipf.js';

export interface TrafficOptions {
  /** Seed of the record draws: the same seed (and options) gives the same records. Default 1. */
  readonly seed?: number;
  /** Seed of the hosts and client networks, kept apart so that many record seeds share one universe. Default 1. */
  readonly universeSeed?: number;
  /** Share of http_request_complete.v0 records, 0..1; the rest are tcp_connection_closed.v0. Default 0.8. */
  readonly httpShare?: number;
  /** HTTP hostnames, ranked by Zipf popularity. Default 5000. */
  readonly httpHosts?: number;
  /** TCP addresses (hostname and port), ranked by Zipf popularity. Default 2000. */
  readonly tcpAddresses?: number;
  /** Zipf exponent of host popularity. Default 1.0. */
  readonly hostExponent?: number;
  readonly ipv4Networks?: number;
  readonly ipv6Networks?: number;
  /** Share of clients on IPv6, 0..1. Default 0.3. */
  readonly ipv6Share?: number;
  /** Zipf exponent of client network popularity. Default 0.8. */
  readonly networkExponent?: number;
  /** Event time of the first record, in ms since the epoch. Default 2024-05-01T00:00:00Z. */
  readonly epochMs?: number;
  /** Simulated events per second: record i happens i / eventsPerSecond seconds after epochMs. Default 10,000. */
  readonly eventsPerSecond?: number;
  /** Overrides the simulated clock, e.g. Date.now for live traffic (the records are then not reproducible). */
  readonly clock?: () => number;
  /** A network this share of clients come from, beside the drawn ones, e.g. { cidr: '10.0.0.0/8', share: 0.5 }. */
  readonly clientNetwork?: { readonly cidr: string; readonly share: number };
  /** A port this share of TCP connections arrive on instead of their address's own, e.g. { port: 443, share: 0.5 }. */
  readonly tcpPort?: { readonly port: number; readonly share: number };
  /** A hostname this share of HTTP requests go to instead of a drawn one, e.g. { name: 'www.shop.example.com', share: 0.5 }. */
  readonly httpHost?: { readonly name: string; readonly share: number };
}

/** A hostname as a server name carries it: dot-separated labels of letters, digits and hyphens. */
const HOSTNAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

export const DEFAULT_TRAFFIC_OPTIONS = {
  seed: 1,
  universeSeed: 1,
  httpShare: 0.8,
  httpHosts: 5_000,
  tcpAddresses: 2_000,
  hostExponent: 1.0,
  ipv4Networks: 400,
  ipv6Networks: 150,
  ipv6Share: 0.3,
  networkExponent: 0.8,
  epochMs: Date.UTC(2024, 4, 1),
  eventsPerSecond: 10_000,
} as const;

export interface GeneratedRecord {
  readonly eventType: TrafficEventType;
  /** The record in its nested shape (docs/record-formats.md), ready for encodeRecord. */
  readonly record: TrafficRecordInput;
}

export interface GeneratedMessage {
  readonly eventType: TrafficEventType;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

/** The hosts, addresses and client networks traffic is drawn from; shared by generators with the same options. */
export interface TrafficUniverse {
  readonly httpHosts: readonly HttpHost[];
  readonly tcpAddresses: readonly TcpAddress[];
  readonly clientNetworks: readonly ClientNetwork[];
  readonly hostZipf: Zipf;
  readonly tcpZipf: Zipf;
}

type Optional = 'clock' | 'clientNetwork' | 'tcpPort' | 'httpHost';
type Resolved = Required<Omit<TrafficOptions, Optional>> & Pick<TrafficOptions, Optional>;

function resolve(opts: TrafficOptions): Resolved {
  const o: Resolved = { ...DEFAULT_TRAFFIC_OPTIONS, ...opts };
  const share = (name: string, v: number): void => {
    if (!(v >= 0 && v <= 1)) throw new RangeError(`${name} must be between 0 and 1, got ${v}`);
  };
  share('httpShare', o.httpShare);
  share('ipv6Share', o.ipv6Share);
  if (o.clientNetwork !== undefined) share('clientNetwork.share', o.clientNetwork.share);
  if (o.tcpPort !== undefined) {
    share('tcpPort.share', o.tcpPort.share);
    if (!Number.isInteger(o.tcpPort.port) || o.tcpPort.port < 1 || o.tcpPort.port > 65_535) throw new RangeError(`tcpPort.port must be a port number, got ${o.tcpPort.port}`);
  }
  if (o.httpHost !== undefined) {
    share('httpHost.share', o.httpHost.share);
    if (!HOSTNAME.test(o.httpHost.name)) throw new RangeError(`httpHost.name must be a hostname such as www.shop.example.com, got "${o.httpHost.name}"`);
  }
  for (const name of ['httpHosts', 'tcpAddresses'] as const) {
    if (!Number.isInteger(o[name]) || o[name] < 1) throw new RangeError(`${name} must be a whole number >= 1, got ${o[name]}`);
  }
  if (!(o.eventsPerSecond > 0)) throw new RangeError(`eventsPerSecond must be positive, got ${o.eventsPerSecond}`);
  return o;
}

export function buildUniverse(opts: TrafficOptions = {}): TrafficUniverse {
  const o = resolve(opts);
  const r = seededRandom(o.universeSeed);
  return {
    httpHosts: buildHttpHosts(r, o.httpHosts),
    tcpAddresses: buildTcpAddresses(r, o.tcpAddresses),
    clientNetworks: withClientNetwork(
      buildClientNetworks(r, {
        ipv4Networks: o.ipv4Networks,
        ipv6Networks: o.ipv6Networks,
        ipv6Share: o.ipv6Share,
        exponent: o.networkExponent,
      }),
      o.clientNetwork,
    ),
    hostZipf: new Zipf(o.httpHosts, o.hostExponent),
    tcpZipf: new Zipf(o.tcpAddresses, o.hostExponent),
  };
}

// The edge's own addresses: a few IPv4 /24s and IPv6 /48s (documentation-style blocks kept out of client space).
const SERVER_V4 = ['198.18.0', '198.18.1', '198.19.7', '198.19.8'];
const SERVER_V6 = ['2001:db8:e0', '2001:db8:e1'];
const TLS13 = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];
const TLS12 = ['ECDHE-RSA-AES128-GCM-SHA256', 'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-RSA-CHACHA20-POLY1305'];

function serverIp(r: Random, family: 4 | 6): string {
  return family === 4 ? `${pick(r, SERVER_V4)}.${intBetween(r, 1, 254)}` : `${pick(r, SERVER_V6)}::${intBetween(r, 1, 0xfff).toString(16)}`;
}

function decision(r: Random, allow: number, block: number): string {
  const u = r();
  return u < allow ? 'allow' : u < allow + block ? 'block' : 'invalid';
}

export class TrafficGenerator {
  readonly options: Resolved;
  readonly universe: TrafficUniverse;
  private readonly r: Random;
  private readonly clients: ClientAddresses;
  /** The user's own hostname (httpHost), served like a generated web host. */
  private readonly pickedHost: { readonly host: HttpHost; readonly share: number } | undefined;
  private index = 0;

  constructor(opts: TrafficOptions = {}, universe?: TrafficUniverse) {
    this.options = resolve(opts);
    this.universe = universe ?? buildUniverse(opts);
    this.r = seededRandom(this.options.seed);
    this.clients = new ClientAddresses(this.universe.clientNetworks);
    const picked = this.options.httpHost;
    this.pickedHost =
      picked === undefined
        ? undefined
        : { share: picked.share, host: { name: picked.name.toLowerCase(), apex: picked.name.toLowerCase().split('.').slice(-2).join('.'), kind: 'web', plainShare: 0, altPort: false } };
  }

  /** Records generated so far. */
  get count(): number {
    return this.index;
  }

  next(): GeneratedRecord {
    const nowMs = this.options.clock?.() ?? this.options.epochMs + (this.index * 1000) / this.options.eventsPerSecond;
    this.index++;
    return this.r() < this.options.httpShare
      ? { eventType: 'http_request_complete.v0', record: this.http(nowMs) }
      : { eventType: 'tcp_connection_closed.v0', record: this.tcp(nowMs) };
  }

  /** The next record encoded as a producer in `form` writes it. */
  nextMessage(form: WireForm = 'avro'): GeneratedMessage {
    const { eventType, record } = this.next();
    const { value, headers } = encodeRecord(eventType, record, form);
    return { eventType, value, headers };
  }

  private http(nowMs: number): TrafficRecordInput {
    const r = this.r;
    const u = this.universe;
    const host = this.pickedHost !== undefined && r() < this.pickedHost.share ? this.pickedHost.host : (u.httpHosts[u.hostZipf.draw(r) - 1] as HttpHost);
    const client = this.clients.draw(r);
    const port = r() < host.plainShare ? 80 : host.altPort ? 8443 : 443;
    const tls = port !== 80;
    const endMicros = Math.floor(nowMs * 1000);
    const reused = r() < 0.75;
    const connAgeMicros = reused ? logNormalInt(r, 8_000_000, 1.5, 1_000) : logNormalInt(r, 60_000, 0.8, 500);
    const date = new Date(nowMs).toUTCString().toLowerCase();
    const x = httpExchange(r, host, client.ip, date);
    const scheme = tls ? 'https' : 'http';
    const authority = port === 443 || port === 80 ? host.name : `${host.name}:${port}`;
    const basic = r() < 0.03;
    const oauth = host.kind === 'web' && r() < 0.1;
    const logs = r() < 0.15 ? [{ action: 'log', rule: x.status === 429 ? 'rate-limit' : 'audit', status: x.status, client: client.network.cidr }] : null;
    const v13 = r() < 0.85;
    return {
      conn: {
        client_ip: client.ip,
        server_ip: serverIp(r, client.network.family),
        server_name: host.name,
        server_port: port,
        start_ts: formatMicros(endMicros - connAgeMicros),
      },
      backend: { connection_reused: r() < 0.7 },
      basic_auth: basic ? { decision: x.status === 401 ? 'block' : 'allow', username: `user${intBetween(r, 1, 500)}` } : { decision: 'invalid' },
      circuit_breaker: { decision: x.status === 503 ? 'block' : r() < 0.2 ? 'allow' : 'invalid' },
      compression: { algorithm: x.compressed ? 'gzip' : 'none', bytes_saved: x.compressed ? Math.floor(x.responseBytes * 0.65) : 0 },
      http: {
        request: {
          body_length: x.requestBytes,
          headers: x.requestHeaders,
          method: x.method,
          url: { host: host.name, path: x.path, query: x.query, raw: `${scheme}://${authority}${x.path}${x.query === null ? '' : `?${x.query}`}`, scheme },
          user_agent: x.userAgent,
        },
        response: { body_length: x.responseBytes, headers: x.responseHeaders, status_code: x.status },
      },
      ip_policy: { decision: decision(r, 0.7, 0.02) },
      oauth: oauth
        ? { app_client_id: `client_${intBetween(r, 1, 40)}`, decision: 'allow', user: { id: String(intBetween(r, 10_000, 99_999)), name: `user${intBetween(r, 1, 9999)}@example.com` } }
        : { decision: 'invalid' },
      tls: tls ? { cipher_suite: v13 ? pick(r, TLS13) : pick(r, TLS12), version: v13 ? '1.3' : '1.2' } : {},
      traffic_policy: { logs },
      webhook_verification: { decision: host.kind === 'webhook' ? decision(r, 0.97, 0.03) : 'invalid' },
    };
  }

  private tcp(nowMs: number): TrafficRecordInput {
    const r = this.r;
    const u = this.universe;
    const address = u.tcpAddresses[u.tcpZipf.draw(r) - 1] as TcpAddress;
    const client = this.clients.draw(r);
    const endMicros = Math.floor(nowMs * 1000);
    const duration = logNormalInt(r, 20_000_000, 2.0, 1_000, 86_400_000_000);
    const fixed = this.options.tcpPort;
    // Drawn only when asked for, so the records of a seed without the option stay as they were.
    const port = fixed !== undefined && r() < fixed.share ? fixed.port : address.port;
    return {
      conn: {
        client_ip: client.ip,
        server_ip: serverIp(r, client.network.family),
        server_name: address.name,
        server_port: port,
        bytes_in: logNormalInt(r, 4_000, 2.0, 0, 1e12),
        bytes_out: logNormalInt(r, 40_000, 2.2, 0, 1e12),
        start_ts: formatMicros(endMicros - duration),
        end_ts: formatMicros(endMicros),
      },
      ip_policy: { decision: decision(r, 0.6, 0.05) },
      traffic_policy: { logs: r() < 0.05 ? [{ action: 'log', note: 'long-lived connection', seconds: Math.floor(duration / 1e6) }] : null },
    };
  }
}

/**
 * A source that repeats `size` pre-encoded messages from `generator` in order: for load runs that need
 * a higher rate than encoding allows (encoding a record costs tens of microseconds). Every message
 * still gets its own Kafka timestamp when it is sent.
 */
export function cycleOf(generator: TrafficGenerator, size: number, form: WireForm = 'avro'): () => GeneratedMessage {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`the pool size must be a whole number >= 1, got ${size}`);
  const pool = Array.from({ length: size }, () => generator.nextMessage(form));
  let i = 0;
  return () => {
    const m = pool[i] as GeneratedMessage;
    i = i + 1 === size ? 0 : i + 1;
    return m;
  };
}
