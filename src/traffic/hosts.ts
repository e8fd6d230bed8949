// The server side of generated traffic: thousands of customer hostnames (HTTP) and TCP addresses, ranked by popularity.
import { intBetween, pick, type Random } from './random.js';

export interface HttpHost {
  /** e.g. "api.northwind42.com". */
  readonly name: string;
  /** The customer domain the host belongs to, e.g. "northwind42.com": a subscription often filters on it. */
  readonly apex: string;
  /** What the host serves; it shapes paths, headers and status codes. */
  readonly kind: 'api' | 'web' | 'static' | 'webhook';
  /** Share of its requests that arrive on port 80 (plain HTTP) rather than 443 or 8443. */
  readonly plainShare: number;
  readonly altPort: boolean;
}

export interface TcpAddress {
  /** e.g. "4.tcp.eu.edge.example.net". */
  readonly name: string;
  readonly port: number;
}

const WORDS = [
  'acme', 'northwind', 'contoso', 'fabrikam', 'globex', 'initech', 'umbrella', 'hooli', 'stark', 'wayne', 'tyrell', 'cyberdyne',
  'vandelay', 'wonka', 'soylent', 'aperture', 'oscorp', 'pied', 'dunder', 'gringotts', 'monarch', 'nakatomi', 'zorg', 'blue',
];
const TLDS = ['com', 'com', 'com', 'io', 'net', 'org', 'dev', 'app', 'co.uk', 'de', 'fr', 'com.br', 'jp', 'in'];
const SUBDOMAINS: readonly (readonly [string, HttpHost['kind']])[] = [
  ['api', 'api'], ['www', 'web'], ['app', 'web'], ['shop', 'web'], ['cdn', 'static'], ['static', 'static'], ['assets', 'static'],
  ['hooks', 'webhook'], ['auth', 'api'], ['admin', 'web'], ['dashboard', 'web'], ['gateway', 'api'], ['m', 'web'], ['docs', 'web'],
];
const REGIONS = ['us', 'eu', 'ap', 'au', 'sa', 'jp', 'in'];

/**
 * `count` unique hostnames over about count / 3 customer domains (a customer has one to six hosts).
 * Ranks are the order of the array: index 0 is the busiest host.
 */
export function buildHttpHosts(r: Random, count: number): HttpHost[] {
  const hosts: HttpHost[] = [];
  const names = new Set<string>();
  let customer = 0;
  while (hosts.length < count) {
    const apex = `${pick(r, WORDS)}${customer}.${pick(r, TLDS)}`;
    customer++;
    const wanted = intBetween(r, 1, 6);
    for (let k = 0; k < wanted && hosts.length < count; k++) {
      const [sub, kind] = pick(r, SUBDOMAINS);
      const name = `${sub}.${apex}`;
      if (names.has(name)) continue;
      names.add(name);
      hosts.push({ name, apex, kind, plainShare: r() < 0.2 ? 0.3 : 0.02, altPort: r() < 0.05 });
    }
  }
  // Shuffle so that a customer's hosts are not neighbours in popularity.
  for (let i = hosts.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [hosts[i], hosts[j]] = [hosts[j] as HttpHost, hosts[i] as HttpHost];
  }
  return hosts;
}

/** `count` unique TCP addresses: a shared hostname per region and number, and a port from 10000 to 29999. */
export function buildTcpAddresses(r: Random, count: number): TcpAddress[] {
  const out: TcpAddress[] = [];
  const seen = new Set<string>();
  while (out.length < count) {
    const name = `${intBetween(r, 0, 9)}.tcp.${pick(r, REGIONS)}.edge.example.net`;
    const port = intBetween(r, 10_000, 29_999);
    const key = `${name}:${port}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ name, port });
  }
  return out;
}
