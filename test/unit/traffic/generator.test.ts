// Tests of the traffic generator: reproducible by seed, the mix and distributions it promises, and records the decoder accepts.
import { describe, expect, it } from 'vitest';
import { TRAFFIC_EVENT_TYPES } from '../../../src/events/catalog.js';
import { canonicalRecord, encodeRecord } from '../../../src/records/record-encoder.js';
import { createRecordDecoder } from '../../../src/records/record-decoder.js';
import type { WireForm } from '../../../src/records/record-types.js';
import { TrafficGenerator, buildUniverse, cycleOf } from '../../../src/traffic/generator.js';

type Conn = { client_ip: string; server_name: string; server_port: number; start_ts: string; end_ts?: string };
const connOf = (record: Readonly<Record<string, unknown>>): Conn => record.conn as Conn;
type Http = { request: { headers: Record<string, string[]>; method: string }; response: { headers: Record<string, string[]>; status_code: number } };

describe('traffic generator', () => {
  it('should produce the same records for the same seed and different ones for another seed', () => {
    const a = new TrafficGenerator({ seed: 11 });
    const b = new TrafficGenerator({ seed: 11 });
    const c = new TrafficGenerator({ seed: 12 });
    const left = Array.from({ length: 200 }, () => a.next());
    expect(Array.from({ length: 200 }, () => b.next())).toEqual(left);
    const other = Array.from({ length: 200 }, () => c.next());
    expect(other.filter((r, i) => JSON.stringify(r) === JSON.stringify(left[i])).length).toBe(0);
    // The encoded bytes are reproducible too.
    const x = new TrafficGenerator({ seed: 3 }).nextMessage('avro');
    expect(new TrafficGenerator({ seed: 3 }).nextMessage('avro').value.equals(x.value)).toBe(true);
  });

  it('should mix the two event types in the configured share', () => {
    for (const httpShare of [0, 0.3, 1]) {
      const g = new TrafficGenerator({ seed: 5, httpShare });
      let http = 0;
      for (let i = 0; i < 5000; i++) if (g.next().eventType === 'http_request_complete.v0') http++;
      expect(Math.abs(http / 5000 - httpShare)).toBeLessThan(0.03);
    }
  });

  it('should spread server names over thousands of hosts with Zipf popularity', () => {
    const universe = buildUniverse({ httpHosts: 5000 });
    expect(new Set(universe.httpHosts.map((h) => h.name)).size).toBe(5000);
    const g = new TrafficGenerator({ seed: 8, httpShare: 1 }, universe);
    const counts = new Map<string, number>();
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      const name = connOf(g.next().record).server_name;
      counts.set(name, (counts.get(name) ?? 0) + 1);
    }
    const top = universe.httpHosts[0]?.name as string;
    const tenth = universe.httpHosts[9]?.name as string;
    // Zipf with s = 1 over 5000 ranks: P(1) = 1 / H(5000), about 11%, and P(10) = P(1) / 10.
    expect((counts.get(top) ?? 0) / n).toBeCloseTo(universe.hostZipf.probability(1), 2);
    expect((counts.get(top) ?? 0) / (counts.get(tenth) ?? 1)).toBeGreaterThan(7);
    expect((counts.get(top) ?? 0) / (counts.get(tenth) ?? 1)).toBeLessThan(13);
    expect(counts.size).toBeGreaterThan(3000);
  });

  it('should draw clients from many IPv4 and IPv6 networks in the configured share', () => {
    const g = new TrafficGenerator({ seed: 2, ipv6Share: 0.25 });
    const networks = new Set<string>();
    let v6 = 0;
    const n = 20_000;
    for (let i = 0; i < n; i++) {
      const ip = connOf(g.next().record).client_ip;
      if (ip.includes(':')) v6++;
      networks.add(ip.includes(':') ? ip.split(':').slice(0, 2).join(':') : ip.split('.').slice(0, 2).join('.'));
    }
    expect(v6 / n).toBeGreaterThan(0.22);
    expect(v6 / n).toBeLessThan(0.28);
    expect(networks.size).toBeGreaterThan(300);
  });

  it('should write normalized header maps and mostly successful, sometimes failing status codes', () => {
    const g = new TrafficGenerator({ seed: 4, httpShare: 1 });
    const statuses = new Map<number, number>();
    const n = 10_000;
    const badHeaders: string[] = [];
    let withoutHost = 0;
    for (let i = 0; i < n; i++) {
      const http = g.next().record.http as Http;
      statuses.set(http.response.status_code, (statuses.get(http.response.status_code) ?? 0) + 1);
      for (const headers of [http.request.headers, http.response.headers]) {
        for (const [key, values] of Object.entries(headers)) {
          // docs/events.md: normalized headers have keys capitalized and values lowercased.
          if (!/^[A-Z][a-z0-9]*(-[A-Z][a-z0-9]*)*$/.test(key)) badHeaders.push(key);
          for (const v of values) if (v !== v.toLowerCase()) badHeaders.push(`${key}: ${v}`);
        }
      }
      if (http.request.headers.Host === undefined) withoutHost++;
    }
    expect(badHeaders.slice(0, 5)).toEqual([]);
    expect(withoutHost).toBe(0);
    const share = (lo: number, hi: number): number => [...statuses].filter(([s]) => s >= lo && s < hi).reduce((t, [, c]) => t + c, 0) / n;
    expect(share(200, 300)).toBeGreaterThan(0.7);
    expect(share(300, 400)).toBeGreaterThan(0.03);
    expect(share(400, 500)).toBeGreaterThan(0.02);
    expect(share(500, 600)).toBeGreaterThan(0.003);
    expect(statuses.size).toBeGreaterThan(12);
  });

  it('should write records the decoder accepts in every form and reads back unchanged', () => {
    const decoder = createRecordDecoder();
    const g = new TrafficGenerator({ seed: 9, httpShare: 0.5 });
    const forms: WireForm[] = ['avro', 'confluent', 'json'];
    const seen = new Set<string>();
    for (let i = 0; i < 600; i++) {
      const { eventType, record } = g.next();
      seen.add(eventType);
      const form = forms[i % 3] as WireForm;
      const encoded = encodeRecord(eventType, record, form);
      const decoded = decoder.decodeFilterable(eventType, encoded);
      expect(decoded.ok, decoded.ok ? '' : `${decoded.code}: ${decoded.message}`).toBe(true);
      if (!decoded.ok) continue;
      const full = decoded.full();
      expect(full.ok, full.ok ? '' : `${full.code}: ${full.message}`).toBe(true);
      if (full.ok) expect(full.record).toEqual(canonicalRecord(eventType, record));
      const conn = connOf(record);
      expect(Date.parse(conn.start_ts)).toBeLessThanOrEqual(Date.parse(conn.end_ts ?? conn.start_ts));
    }
    expect([...seen].sort()).toEqual([...TRAFFIC_EVENT_TYPES].sort());
  });

  it('should repeat a fixed pool of encoded messages in order', () => {
    const next = cycleOf(new TrafficGenerator({ seed: 1 }), 3);
    const first = [next(), next(), next()];
    expect([next(), next(), next()]).toEqual(first);
    expect(new Set(first.map((m) => m.value.toString('hex'))).size).toBe(3);
  });

  it('should refuse shares and counts outside their ranges', () => {
    expect(() => new TrafficGenerator({ httpShare: 1.5 })).toThrow(RangeError);
    expect(() => new TrafficGenerator({ ipv6Share: -0.1 })).toThrow(RangeError);
    expect(() => new TrafficGenerator({ httpHosts: 0 })).toThrow(RangeError);
  });
});

describe('traffic generator: a network and a port picked by the user', () => {
  it('should draw the asked share of clients from the given network and of TCP connections on the given port', () => {
    const g = new TrafficGenerator({ seed: 9, httpShare: 0, clientNetwork: { cidr: '10.0.0.0/8', share: 0.5 }, tcpPort: { port: 443, share: 0.25 } });
    const conns = Array.from({ length: 4000 }, () => connOf(g.next().record));
    const inTen = conns.filter((c) => c.client_ip.startsWith('10.')).length / conns.length;
    const on443 = conns.filter((c) => c.server_port === 443).length / conns.length;
    expect(inTen).toBeGreaterThan(0.45);
    expect(inTen).toBeLessThan(0.55);
    expect(on443).toBeGreaterThan(0.22);
    expect(on443).toBeLessThan(0.28);
    // The rest keep the generated public networks and the TCP addresses' own ports (10000-29999).
    expect(conns.filter((c) => c.server_port !== 443).every((c) => c.server_port >= 10_000 && c.server_port <= 29_999)).toBe(true);
  });

  it('should send the asked share of HTTP requests to the given hostname, and the rest to generated ones', () => {
    const g = new TrafficGenerator({ seed: 9, httpShare: 1, httpHost: { name: 'www.shop.example.com', share: 0.3 } });
    const names = Array.from({ length: 4000 }, () => connOf(g.next().record).server_name);
    const ours = names.filter((n) => n === 'www.shop.example.com').length / names.length;
    expect(ours).toBeGreaterThan(0.27);
    expect(ours).toBeLessThan(0.33);
    expect(new Set(names.filter((n) => n !== 'www.shop.example.com')).size).toBeGreaterThan(100);
    expect(() => new TrafficGenerator({ httpHost: { name: 'not a host', share: 0.5 } })).toThrow(RangeError);
  });

  it('should refuse a network that is not a CIDR and a port out of range', () => {
    expect(() => new TrafficGenerator({ clientNetwork: { cidr: '10.0.0.0', share: 0.5 } })).toThrow(RangeError);
    expect(() => new TrafficGenerator({ tcpPort: { port: 70_000, share: 0.5 } })).toThrow(RangeError);
    expect(() => new TrafficGenerator({ tcpPort: { port: 443, share: 1.5 } })).toThrow(RangeError);
  });
});
