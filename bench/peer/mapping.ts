// The Bloblang mapping the peer (Redpanda Connect) runs: generated from the benchmark's subscriptions, with
// hash indexes on the hostname, the domain, the port and the client address's bucket (bench/peer/README.md).
import type { StoredSubscription } from '../../src/configlog/resources.js';
import { TRAFFIC_FIELDS, isTrafficEventType, type FieldType, type TrafficEventType } from '../../src/events/catalog.js';
import { parseCIDR, type CIDR } from '../../src/net/ip.js';

/** The form the peer reads: the records' JSON, or their plain Avro through its `avro` processor. */
export type PeerForm = 'json' | 'avro';

/** A subscription as the index holds it: its id and its field set's number. */
type Target = readonly [subscriptionId: string, fieldSet: number];

/** Addresses in one bucket whose (low bits AND mask) equals value: 16 bits below an IPv4 /16, 32 below an IPv6 /32. */
interface Range {
  readonly m: number;
  readonly v: number;
  readonly s: Target[];
}

/** One event type's indexes, by what a filter tests. */
interface TypeIndex {
  /**
   * Hostname -> subscriptions on the name alone (`a`), and on the name and a port (`p`). Bloblang's `get`
   * splits its path at dots, so a lookup escapes them as `~1` (and a tilde as `~0`).
   */
  readonly hosts: Map<string, { a: Target[]; p: Map<number, Target[]> }>;
  /** Label count -> domain -> subscriptions on `server_name.endsWith(".<domain>")`. */
  readonly domains: Map<number, Map<string, Target[]>>;
  readonly ports: Map<number, Target[]>;
  /** "a-b" (the first two octets) -> ranges. */
  readonly v4: Map<string, Range[]>;
  /** The first 32 bits as a decimal number -> ranges. */
  readonly v6: Map<string, Range[]>;
}

const push = <K, V>(m: Map<K, V[]>, k: K, v: V): void => {
  const list = m.get(k);
  if (list === undefined) m.set(k, [v]);
  else list.push(v);
};

function addRange(buckets: Map<string, Range[]>, key: string, m: number, v: number, t: Target): void {
  const list = buckets.get(key) ?? [];
  buckets.set(key, list);
  const r = list.find((x) => x.m === m && x.v === v);
  if (r === undefined) list.push({ m, v, s: [t] });
  else r.s.push(t);
}

/** An IPv4 range as /16 buckets (every /16 it covers) with a mask on the low 16 bits; an IPv6 range as /32 buckets with a mask on bits 32-63. */
function addCidr(ix: TypeIndex, c: CIDR, t: Target): void {
  if (c.ip.family === 4) {
    const addr = c.ip.w0 >>> 0;
    const high = addr >>> 16;
    if (c.bits <= 16) {
      const count = 2 ** (16 - c.bits);
      for (let i = 0; i < count; i++) {
        const h = (high & ~(count - 1) & 0xffff) + i;
        addRange(ix.v4, `${h >>> 8}-${h & 0xff}`, 0, 0, t);
      }
    } else {
      const mask = (0xffff << (32 - c.bits)) & 0xffff;
      addRange(ix.v4, `${high >>> 8}-${high & 0xff}`, mask, addr & mask, t);
    }
    return;
  }
  if (c.bits > 64) throw new Error(`the peer's mapping indexes IPv6 ranges up to /64, not ${c.bits}`);
  const top = c.ip.w0 >>> 0;
  if (c.bits <= 32) {
    const count = 2 ** (32 - c.bits);
    const base = count === 2 ** 32 ? 0 : top - (top % count);
    if (count > 256) throw new Error(`the peer's mapping indexes IPv6 ranges of /24 and longer, not /${c.bits}`);
    for (let i = 0; i < count; i++) addRange(ix.v6, String(base + i), 0, 0, t);
  } else {
    const mask = (0xffffffff << (64 - c.bits)) >>> 0;
    addRange(ix.v6, String(top), mask, ((c.ip.w1 >>> 0) & mask) >>> 0, t);
  }
}

const q = (s: string): string => JSON.stringify(s);

/** Adds one subscription's filter to the index; throws on a filter the generator does not know (bench/workload/filters.ts writes them). */
function addFilter(ix: TypeIndex, filter: string, t: Target): void {
  const host = (name: string): { a: Target[]; p: Map<number, Target[]> } => {
    let h = ix.hosts.get(name);
    if (h === undefined) ix.hosts.set(name, (h = { a: [], p: new Map() }));
    return h;
  };
  let m: RegExpExecArray | null;
  if ((m = /^ev\.conn\.server_name == ("[^"]*")$/.exec(filter)) !== null) host(JSON.parse(m[1] as string) as string).a.push(t);
  else if ((m = /^ev\.conn\.server_name == ("[^"]*") && ev\.conn\.server_port == (\d+)$/.exec(filter)) !== null) push(host(JSON.parse(m[1] as string) as string).p, Number(m[2]), t);
  else if ((m = /^ev\.conn\.server_name in (\[.*\])$/.exec(filter)) !== null) for (const n of new Set(JSON.parse(m[1] as string) as string[])) host(n).a.push(t);
  else if ((m = /^ev\.conn\.server_name\.endsWith\(("\.[^"]+")\)$/.exec(filter)) !== null) {
    const domain = (JSON.parse(m[1] as string) as string).slice(1);
    const labels = domain.split('.').length;
    let byLabels = ix.domains.get(labels);
    if (byLabels === undefined) ix.domains.set(labels, (byLabels = new Map()));
    push(byLabels, domain, t);
  } else if ((m = /^ev\.conn\.server_port in \[([\d, ]*)\]$/.exec(filter)) !== null) for (const p of new Set((m[1] as string).split(',').map(Number))) push(ix.ports, p, t);
  else if ((m = /^cidr\(("[^"]*")\)\.containsIP\(ev\.conn\.client_ip\)$/.exec(filter)) !== null) {
    const c = parseCIDR(JSON.parse(m[1] as string) as string);
    if (c === undefined) throw new Error(`the peer's mapping cannot read the range in ${filter}`);
    addCidr(ix, c, t);
  } else throw new Error(`the peer's mapping has no index for the filter ${filter}`);
}

/** A Bloblang literal (JSON is one) of a map whose values are lists, maps of lists, or hosts' entries. */
function literal(m: ReadonlyMap<string | number, unknown>): string {
  const plain = (v: unknown): unknown =>
    v instanceof Map ? Object.fromEntries([...(v as Map<unknown, unknown>)].map(([k, x]) => [String(k), plain(x)])) : v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])) : v;
  return JSON.stringify(plain(m));
}

/** The expression reading one leaf of the record as the service writes it (docs/record-formats.md, "Types"). */
function leafExpression(path: string, type: FieldType, optional: boolean, form: PeerForm): string {
  const at = `$r.${path}`;
  // goavro's native form wraps a union's value in a map keyed by the branch's type name.
  const value = (branch: string): string => (form === 'avro' && optional ? `${at}.${branch}` : at);
  switch (type) {
    case 'timestamp':
      return `${value('long.timestamp-micros')}.ts_format("2006-01-02T15:04:05.000000Z", "UTC")`;
    case 'headers':
      return value('map');
    case 'logs':
      // In Avro each value of a log map is a JSON text (docs/record-formats.md).
      return form === 'avro' ? `if ${value('array')} == null { null } else { ${value('array')}.map_each(m -> m.map_each(kv -> kv.value.parse_json())) }` : at;
    case 'bool':
      return value('boolean');
    case 'int32':
      return value('int');
    case 'int64':
      return value('long');
    case 'string':
      return value('string');
  }
}

const REQUIRED = new Set(['conn.client_ip', 'conn.server_ip', 'conn.server_name', 'conn.server_port', 'conn.start_ts', 'conn.end_ts', 'conn.bytes_in', 'conn.bytes_out', 'http.request.method', 'http.request.url.raw', 'http.request.url.scheme', 'http.request.url.host', 'http.request.url.path', 'http.response.status_code']);

/** A named map projecting one field set: each selected field at its dotted path, null when the record lacks it. */
function projectionMap(name: string, eventType: TrafficEventType, fields: readonly string[], form: PeerForm): string {
  const specs = new Map(TRAFFIC_FIELDS[eventType].map((f) => [f.name, f]));
  const lines = fields.map((f) => {
    const spec = specs.get(f);
    if (spec === undefined) throw new Error(`${eventType} has no field ${f}`);
    return `  root.${f} = ${leafExpression(f, spec.type, !REQUIRED.has(f), form)}`;
  });
  return `map ${name} {\n  let r = this\n${lines.join('\n')}\n}`;
}

/** The statements that gather one event type's matched targets into $m. */
function matchStatements(ix: TypeIndex): string[] {
  const out: string[] = ['let m = []'];
  const hostsNeeded = ix.hosts.size > 0 || ix.domains.size > 0;
  if (hostsNeeded) out.push('let name = this.conn.server_name');
  if (ix.hosts.size > 0) {
    out.push(`let h = ${literal(ix.hosts as Map<string, unknown>)}.get($name.replace_all("~", "~0").replace_all(".", "~1"))`);
    out.push('if $h != null {', '  let m = $m.concat($h.a)', '  let m = $m.concat($h.p.get(this.conn.server_port.string()).or([]))', '}');
  }
  if (ix.domains.size > 0) {
    out.push('let labels = $name.split(".")');
    for (const [count, domains] of ix.domains) {
      out.push(`if $labels.length() > ${count} {`, `  let m = $m.concat(${literal(domains)}.get($labels.slice(-${count}).join("~1")).or([]))`, '}');
    }
  }
  if (ix.ports.size > 0) out.push(`let m = $m.concat(${literal(ix.ports)}.get(this.conn.server_port.string()).or([]))`);
  if (ix.v4.size > 0 || ix.v6.size > 0) {
    out.push('let ip = this.conn.client_ip');
    out.push('if $ip.contains(":") {');
    if (ix.v6.size > 0) {
      // Eight groups; "::" stands for the zero groups it leaves out.
      out.push(
        '  let g = $ip.split(":")',
        '  if $ip.contains("::") {',
        '    let halves = $ip.split("::")',
        '    let head = $halves.index(0).split(":").filter(x -> x != "")',
        '    let tail = $halves.index(1).split(":").filter(x -> x != "")',
        '    let g = $head.concat(range(0, 8 - $head.length() - $tail.length()).map_each(z -> "0")).concat($tail)',
        '  }',
        `  let b = ${literal(ix.v6)}.get((("0x" + $g.index(0)).int64() * 65536 + ("0x" + $g.index(1)).int64()).string())`,
        '  if $b != null {',
        '    let low = ("0x" + $g.index(2)).int64() * 65536 + ("0x" + $g.index(3)).int64()',
        '    let m = $m.concat($b.filter(e -> $low.bitwise_and(e.m) == e.v).map_each(e -> e.s).flatten())',
        '  }',
      );
    }
    out.push('} else {');
    if (ix.v4.size > 0) {
      out.push(
        '  let o = $ip.split(".")',
        `  let b = ${literal(ix.v4)}.get($o.index(0) + "-" + $o.index(1))`,
        '  if $b != null {',
        '    let low = $o.index(2).int64() * 256 + $o.index(3).int64()',
        '    let m = $m.concat($b.filter(e -> $low.bitwise_and(e.m) == e.v).map_each(e -> e.s).flatten())',
        '  }',
      );
    }
    out.push('}');
  }
  return out;
}

export interface PeerMappingInput {
  readonly subscriptions: readonly StoredSubscription[];
  readonly topics: Readonly<Record<TrafficEventType, string>>;
  readonly form: PeerForm;
}

/**
 * The mapping: per record, the targets its fields select through the indexes, then one event per target,
 * `{subscription_id, topic, partition, offset, event_type, event_timestamp, principal, object}`, as an
 * array that `unarchive` splits into messages; a record no subscription wants is deleted.
 */
export function peerMapping(input: PeerMappingInput): string {
  const fieldSets = new Map<string, number>();
  const maps: string[] = [];
  const indexes = new Map<TrafficEventType, TypeIndex>();
  for (const s of input.subscriptions) {
    for (const source of s.sources) {
      const { type, fields, filter } = source;
      if (!isTrafficEventType(type)) throw new Error(`the peer's mapping handles traffic subscriptions, not ${type}`);
      if (fields === undefined || filter === undefined) throw new Error(`the peer's mapping needs a field selection and a filter (subscription ${s.id})`);
      const key = `${type}:${fields.join(',')}`;
      let n = fieldSets.get(key);
      if (n === undefined) {
        fieldSets.set(key, (n = fieldSets.size));
        maps.push(projectionMap(`fs${n}`, type, fields, input.form));
      }
      let ix = indexes.get(type);
      if (ix === undefined) indexes.set(type, (ix = { hosts: new Map(), domains: new Map(), ports: new Map(), v4: new Map(), v6: new Map() }));
      addFilter(ix, filter, [s.id, n]);
    }
  }
  const project = [...fieldSets.values()].map((n) => `      t.index(1) == ${n} => $r.apply("fs${n}")`);
  const branches = [...indexes].map(([type, ix], i) => [
    `${i === 0 ? 'if' : '} else if'} $topic == ${q(input.topics[type])} {`,
    `  let type = ${q(type)}`,
    ...matchStatements(ix).map((l) => `  ${l}`),
  ]);
  return [
    ...maps,
    '',
    'let topic = @kafka_topic',
    'let m = []',
    ...branches.flat(),
    '}',
    'if $m.length() == 0 {',
    '  root = deleted()',
    '} else {',
    '  let r = this',
    '  let ts = "%s.%03dZ".format(@kafka_timestamp_unix.ts_format("2006-01-02T15:04:05", "UTC"), @kafka_timestamp_ms % 1000)',
    '  root = $m.map_each(t -> {',
    '    "subscription_id": t.index(0),',
    '    "topic": $topic,',
    '    "partition": @kafka_partition,',
    '    "offset": @kafka_offset,',
    '    "event_type": $type,',
    '    "event_timestamp": $ts,',
    '    "principal": null,',
    '    "object": match {',
    ...project,
    '    }',
    '  })',
    '}',
    '',
  ].join('\n');
}
