// Deterministic, realistic raw tcp_connection_closed.v0 records and subscription filters for the CEL and matcher benchmarks.

/** The generator's seeded PRNG, so every run measures the same records. */
import { seededRandom as prng } from '../../src/traffic/random.js';

export { prng };

export interface RawRecord {
  conn: {
    bytes_in: number;
    bytes_out: number;
    client_ip: string;
    end_ts: string;
    server_ip: string;
    server_name: string;
    server_port: number;
    start_ts: string;
  };
  ip_policy: { decision: string };
}

const WORDS = ['api', 'www', 'shop', 'cdn', 'auth', 'mail', 'admin', 'static', 'app', 'db'];

function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

const octet = (rand: () => number): number => Math.floor(rand() * 256);

function record(rand: () => number, clientIp: string, serverName: string): RawRecord {
  const r = rand();
  const port = r < 0.55 ? 443 : r < 0.75 ? 80 : r < 0.85 ? 8443 : r < 0.9 ? 22 : 3000 + Math.floor(rand() * 6000);
  const start = Date.UTC(2025, 0, 1) + Math.floor(rand() * 86_400_000);
  return {
    conn: {
      bytes_in: Math.floor(rand() * 100_000),
      bytes_out: Math.floor(rand() * 1_000_000),
      client_ip: clientIp,
      end_ts: new Date(start + Math.floor(rand() * 60_000)).toISOString(),
      server_ip: rand() < 0.1 ? '10.0.0.1' : `10.0.${octet(rand)}.${octet(rand)}`,
      server_name: serverName,
      server_port: port,
      start_ts: new Date(start).toISOString(),
    },
    ip_policy: { decision: rand() < 0.9 ? 'allow' : 'block' },
  };
}

/**
 * Records as a decoder hands them over: through JSON, so strings are flat and objects have the
 * shapes JSON.parse gives. (Strings built by concatenation are ropes, which are slower to read and
 * would misrepresent the pipeline.)
 */
function asDecoded(records: RawRecord[]): RawRecord[] {
  return records.map((r) => JSON.parse(JSON.stringify(r)) as RawRecord);
}

/** A mix for single-filter timing: about a third private clients, and hostnames under three domains. */
export function celRecords(count: number, seed = 1): RawRecord[] {
  const rand = prng(seed);
  return asDecoded(Array.from({ length: count }, () => {
    const client = rand() < 0.35 ? `10.${octet(rand)}.${octet(rand)}.${octet(rand)}` : `${11 + Math.floor(rand() * 200)}.${octet(rand)}.${octet(rand)}.${octet(rand)}`;
    const d = rand();
    const domain = d < 0.4 ? 'example.com' : d < 0.7 ? 'example.org' : 'shop.test';
    return record(rand, client, `${pick(rand, WORDS)}${Math.floor(rand() * 50)}.${domain}`);
  }));
}

/**
 * The hostnames and client /16 blocks traffic is spread over. With a universe of 100, each
 * hostname and each block carries about 1% of the records.
 */
export interface Universe {
  readonly hosts: readonly string[];
  /** "a.b" prefixes of /16 blocks. */
  readonly blocks: readonly string[];
}

export function universe(size: number): Universe {
  return {
    hosts: Array.from({ length: size }, (_, i) => `host${i}.example.com`),
    blocks: Array.from({ length: size }, (_, i) => `${20 + Math.floor(i / 256)}.${i % 256}`),
  };
}

/** Records spread evenly over the universe's hostnames and blocks, for the matcher benchmark. */
export function matcherRecords(u: Universe, count: number, seed = 2): RawRecord[] {
  const rand = prng(seed);
  return asDecoded(
    Array.from({ length: count }, () => record(rand, `${pick(rand, u.blocks)}.${octet(rand)}.${octet(rand)}`, pick(rand, u.hosts))),
  );
}

/**
 * Mostly hostname equality and client /16 ranges over the universe:
 * 45% `server_name == h`, 15% `server_name == h && server_port == 443`,
 * 30% `cidr(b).containsIP(client_ip)`, 10% `cidr(b).containsIP(client_ip) && server_name.endsWith(...)`.
 */
export function subscriptionFilters(u: Universe, count: number, seed = 3): string[] {
  const rand = prng(seed);
  const host = (): string => JSON.stringify(pick(rand, u.hosts));
  const block = (): string => JSON.stringify(`${pick(rand, u.blocks)}.0.0/16`);
  return Array.from({ length: count }, () => {
    const r = rand();
    if (r < 0.45) return `ev.conn.server_name == ${host()}`;
    if (r < 0.6) return `ev.conn.server_name == ${host()} && ev.conn.server_port == 443`;
    if (r < 0.9) return `cidr(${block()}).containsIP(ev.conn.client_ip)`;
    return `cidr(${block()}).containsIP(ev.conn.client_ip) && ev.conn.server_name.endsWith(".example.com")`;
  });
}
