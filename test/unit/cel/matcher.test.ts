// Tests of the subscription matcher: its index must change how many filters run, never which subscriptions match.
import { parse } from '@bufbuild/cel';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SubscriptionMatcher } from '../../../src/cel/matcher.js';
import { analyseFilter } from '../../../src/cel/matcher-analysis.js';
import { compile } from '../../../src/cel/compile.js';
import type { CompiledFilter } from '../../../src/cel/types.js';

const TYPE = 'tcp_connection_closed.v0' as const;

function filterOf(text: string, eventType: 'tcp_connection_closed.v0' | 'http_request_complete.v0' = TYPE): CompiledFilter {
  const result = compile(text, eventType);
  if (!result.ok) throw new Error(`test filter ${text} does not compile: ${result.problems.map((p) => p.message).join('; ')}`);
  return result.filter;
}

/** Wraps a filter so that its evaluations are counted, whole or after an index hit. */
function counted(f: CompiledFilter, calls: { n: number }): CompiledFilter {
  const assuming = f.assuming?.bind(f);
  return {
    ...f,
    evaluate: (ev) => (calls.n++, f.evaluate(ev)),
    ...(assuming === undefined
      ? {}
      : {
          assuming: (i: number) => {
            const test = assuming(i);
            return (ev: unknown) => (calls.n++, test(ev));
          },
        }),
  };
}

const NAMES = ['a.example.com', 'b.example.com', 'shop.test', 'x.example.org', 'A.example.com'];
const V4 = ['10.0.0.1', '10.1.2.3', '10.255.0.9', '192.168.1.7', '8.8.8.8', '172.16.5.4'];
const V6 = ['2001:db8::1', '2001:db8:1::7', 'fe80::1', '::1'];
const BAD_IPS = ['10.0.0.01', 'not-an-ip', '', '::ffff:10.0.0.1', 'fe80::1%eth0'];
const CIDRS = ['10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24', '192.168.0.0/16', '0.0.0.0/0', '10.0.0.1/32', '10.1.2.3/8', '2001:db8::/32', '::/0', 'fe80::/10'];
const PORTS = [80, 443, 8443, 22];
const SUFFIXES = ['.example.com', 'example.com', '.com', '', 'm', 'a.example.com', '.example.org', 'b.example.com', '.1', '::1', 'ample.com'];

const quote = (s: string): string => JSON.stringify(s);
const name = fc.constantFrom(...NAMES);
const cidr = fc.constantFrom(...CIDRS);
const port = fc.constantFrom(...PORTS);
const ipField = fc.constantFrom('client_ip', 'server_ip');

/** Conjuncts the matcher can index. */
const indexable = fc.oneof(
  name.map((n) => `ev.conn.server_name == ${quote(n)}`),
  name.map((n) => `${quote(n)} == ev.conn.server_name`),
  fc.uniqueArray(name, { minLength: 1, maxLength: 3 }).map((ns) => `ev.conn.server_name in [${ns.map(quote).join(', ')}]`),
  port.map((p) => `ev.conn.server_port == ${p}`),
  fc.uniqueArray(port, { minLength: 1, maxLength: 3 }).map((ps) => `ev.conn.server_port in [${ps.join(', ')}]`),
  fc.constantFrom(...V4, ...V6).map((ip) => `ev.conn.server_ip == ${quote(ip)}`),
  fc.constantFrom(...V4).map((ip) => `ev.conn.client_ip == ${quote(ip)}`),
  fc.tuple(cidr, ipField).map(([c, f]) => `cidr(${quote(c)}).containsIP(ev.conn.${f})`),
  fc.tuple(cidr, ipField).map(([c, f]) => `cidr(${quote(c)}).containsIP(ip(ev.conn.${f}))`),
  fc.tuple(cidr, ipField).map(([c, f]) => `inCidrRange(ev.conn.${f}, ${quote(c)})`),
  fc.tuple(fc.constantFrom(...SUFFIXES), fc.constantFrom('server_name', 'client_ip')).map(([x, f]) => `ev.conn.${f}.endsWith(${quote(x)})`),
);

/** Conjuncts it cannot index, some of them errors at run time. */
const opaque = fc.oneof(
  fc.constantFrom(
    'ev.conn.client_ip.startsWith("10.")',
    'ev.conn.server_name.endsWith(".example.com")',
    'ev.conn.server_port > 1000',
    'ev.conn.server_port != 22',
    '!(ev.conn.server_name == "a.example.com")',
    'true',
    'false',
    'ev.conn.server_port / 0 == 1',
    'size(ev.conn.server_name) > 10',
  ),
  fc.tuple(name, port).map(([n, p]) => `(ev.conn.server_name == ${quote(n)} || ev.conn.server_port == ${p})`),
);

/**
 * Filters. Conjunctions draw from small pools so that many subscriptions share an index key and
 * the same remaining conditions (in either order), which the matcher evaluates once for all.
 */
const filterText = fc.oneof(
  { weight: 3, arbitrary: indexable },
  { weight: 4, arbitrary: fc.array(fc.oneof(indexable, opaque), { minLength: 2, maxLength: 4 }).map((cs) => cs.join(' && ')) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(indexable, fc.uniqueArray(opaque, { minLength: 1, maxLength: 2 }), fc.boolean())
      .map(([key, rest, keyFirst]) => (keyFirst ? [key, ...rest] : [...rest.reverse(), key]).join(' && ')),
  },
  { weight: 1, arbitrary: opaque },
  { weight: 1, arbitrary: fc.tuple(indexable, indexable).map(([a, b]) => `${a} || ${b}`) },
);

/** Records: mostly well formed, some with bad addresses, missing fields or values of the wrong type. */
const record = fc.record({
  conn: fc.record(
    {
      client_ip: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...V4, ...V6) }, fc.constantFrom(...BAD_IPS), fc.constant(42)),
      server_ip: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...V4, ...V6) }, fc.constantFrom(...BAD_IPS)),
      server_name: fc.oneof({ weight: 8, arbitrary: name }, fc.constant(7)),
      server_port: fc.oneof({ weight: 8, arbitrary: port }, fc.constantFrom<unknown>('443', 443.5, 2 ** 60, 443n)),
    },
    { requiredKeys: [] },
  ),
}).map(({ conn }) => ({ conn: { ...conn } })); // plain objects, as JSON.parse and the decoders produce

/** Mostly records, and now and then something that is not one. */
const event = fc.oneof({ weight: 12, arbitrary: record }, fc.constantFrom<unknown>({}, { conn: null }, { conn: 'x' }, null, 42));

const id = fc.integer({ min: 0, max: 40 }).map((n) => `esb_${n.toString().padStart(3, '0')}`);
/** Subscriptions of two owners and of nobody (which may match every record). */
const owner = fc.constantFrom(undefined, 'acct_a', 'acct_b');
const op = fc.oneof(
  { weight: 5, arbitrary: fc.tuple(fc.constant('set' as const), id, fc.option(filterText, { freq: 8 }), owner) },
  { weight: 1, arbitrary: fc.tuple(fc.constant('delete' as const), id, fc.constant(null), fc.constant(undefined)) },
);

/** The records' owners, by server name: a.example.com is acct_a's, b.example.com acct_b's, the rest nobody's. */
const OWNERS: Readonly<Record<string, string>> = { 'a.example.com': 'acct_a', 'b.example.com': 'acct_b' };
function ownerOf(ev: unknown): string | undefined {
  const name = (ev as { conn?: { server_name?: unknown } } | null)?.conn?.server_name;
  return typeof name === 'string' ? OWNERS[name] : undefined;
}

interface Model {
  readonly filter: CompiledFilter | undefined;
  readonly owner: string | undefined;
}

/** What the matcher must return: every subscription whose filter is true and that may see the record's owner, by brute force, in id order. */
function bruteForce(subs: ReadonlyMap<string, Model>, ev: unknown): string[] {
  return [...subs.keys()].sort().filter((k) => {
    const { filter, owner: o } = subs.get(k) as Model;
    return (o === undefined || o === ownerOf(ev)) && (filter === undefined || filter.evaluate(ev));
  });
}

const sorted = (ids: readonly string[]): string[] => [...ids].sort();

describe('SubscriptionMatcher', () => {
  it('should return exactly what brute-force evaluation of every filter and owner returns, through adds, replaces, removes and bulk loads', () => {
    const compiled = new Map<string, CompiledFilter>();
    const compileOnce = (text: string): CompiledFilter => {
      let f = compiled.get(text);
      if (f === undefined) compiled.set(text, (f = filterOf(text)));
      return f;
    };
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.array(op, { maxLength: 25 }), fc.array(event, { minLength: 1, maxLength: 15 })), { minLength: 1, maxLength: 4 }),
        (rounds) => {
          const matcher = new SubscriptionMatcher(TYPE, ownerOf);
          const model = new Map<string, Model>();
          for (const [ops, records] of rounds) {
            const before = matcher.snapshot();
            const beforeModel = new Map(model);
            for (const [kind, sid, text, o] of ops) {
              if (kind === 'delete') {
                expect(matcher.delete(sid)).toBe(model.delete(sid));
              } else {
                const f = text === null ? undefined : compileOnce(text as string);
                matcher.set(sid, f, sid, o);
                model.set(sid, { filter: f, owner: o });
              }
            }
            const rebuilt = new SubscriptionMatcher(TYPE, ownerOf);
            rebuilt.replaceAll([...model].map(([sid, m]) => [sid, m.filter, sid, m.owner] as const));
            for (const ev of records) {
              const got = matcher.match(ev);
              // Each matching subscription once (brute force lists each id once, sorted).
              expect(sorted(got)).toEqual(bruteForce(model, ev));
              // The runs the hot path reads hold the same values in the same order.
              expect(matcher.matchRuns(ev).flat()).toEqual(got);
              // The order depends on the set and the record, never on the history of updates.
              expect(rebuilt.match(ev)).toEqual(got);
              // A snapshot taken before the updates still answers for the old set.
              expect(sorted(before.match(ev))).toEqual(bruteForce(beforeModel, ev));
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  }, 120_000);

  it('should give the ids of a fresh build, in its order, even after many insertions between the same two ids', () => {
    // Each new id sorts just before "b", halving the gap between ranks until they must be renumbered.
    const matcher = new SubscriptionMatcher(TYPE);
    const model = new Map<string, CompiledFilter | undefined>();
    const set = (id: string, f: CompiledFilter | undefined): void => {
      matcher.set(id, f);
      model.set(id, f);
    };
    set('a', filterOf('ev.conn.server_port == 443'));
    set('b', undefined);
    let id = 'a';
    for (let i = 0; i < 150; i++) {
      id = `${id}${i % 2 === 0 ? 'z' : 'y'}`;
      set(id, i % 3 === 0 ? undefined : filterOf(i % 3 === 1 ? 'ev.conn.server_port == 443' : 'cidr("10.0.0.0/8").containsIP(ev.conn.client_ip)'));
    }
    const ev = { conn: { server_port: 443, client_ip: '10.1.1.1' } };
    const rebuilt = new SubscriptionMatcher(TYPE);
    rebuilt.replaceAll(model);
    expect(sorted(matcher.match(ev))).toEqual([...model.keys()].sort());
    expect(matcher.match(ev)).toEqual(rebuilt.match(ev));
    expect(matcher.size).toBe(152);
  });

  it('should list unindexed subscriptions first, then hashed fields, then suffixes from the shortest, then ranges from the shortest prefix, each hit exact ids first', () => {
    const matcher = new SubscriptionMatcher(TYPE);
    matcher.replaceAll([
      ['esb_1', filterOf('cidr("10.1.0.0/16").containsIP(ev.conn.client_ip)')],
      ['esb_2', filterOf('cidr("10.0.0.0/8").containsIP(ev.conn.client_ip)')],
      ['esb_3', filterOf('ev.conn.server_port == 443')],
      ['esb_4', filterOf('ev.conn.server_name == "a.example.com" && ev.conn.server_port == 443')],
      ['esb_5', filterOf('ev.conn.server_name == "a.example.com"')],
      ['esb_6', filterOf('ev.conn.server_port > 1')],
      ['esb_7', undefined],
      ['esb_8', filterOf('ev.conn.server_ip == "10.9.9.9"')],
      ['esb_9', filterOf('ev.conn.server_name.endsWith(".example.com") && ev.conn.server_port == 443')],
      ['esb_a', filterOf('ev.conn.server_name.endsWith(".com")')],
      ['esb_b', filterOf('ev.conn.server_name.endsWith(".example.com")')],
      ['esb_c', filterOf('ev.conn.server_name.endsWith(".org")')],
    ]);
    const ev = { conn: { server_name: 'a.example.com', server_port: 443, client_ip: '10.1.2.3', server_ip: '10.9.9.9' } };
    expect(matcher.match(ev)).toEqual(['esb_7', 'esb_6', 'esb_5', 'esb_4', 'esb_8', 'esb_3', 'esb_a', 'esb_b', 'esb_9', 'esb_2', 'esb_1']);
    expect(matcher.stats()).toMatchObject({ alwaysEvaluated: 2, suffixed: 4 });
  });

  it('should evaluate no filter indexed on a suffix that the record\'s value does not end with', () => {
    const calls = { n: 0 };
    const matcher = new SubscriptionMatcher(TYPE);
    for (let i = 0; i < 100; i++) matcher.set(`esb_${String(i).padStart(3, '0')}`, counted(filterOf(`ev.conn.server_name.endsWith(".d${i}.example") && ev.conn.server_port == 443`), calls));
    expect(matcher.match({ conn: { server_name: 'www.d7.example', server_port: 443 } })).toEqual(['esb_007']);
    expect(calls.n).toBe(1);
    expect(matcher.match({ conn: { server_name: 'www.d7.example.com', server_port: 443 } })).toEqual([]);
    expect(calls.n).toBe(1);
  });

  it('should evaluate the remaining conditions once for all subscriptions behind one key that share them, in either order', () => {
    const calls = { n: 0 };
    const matcher = new SubscriptionMatcher(TYPE);
    for (let i = 0; i < 50; i++) {
      const text =
        i % 2 === 0
          ? 'ev.conn.server_name == "a.example.com" && ev.conn.server_port == 443 && ev.conn.client_ip.startsWith("10.")'
          : 'ev.conn.client_ip.startsWith("10.") && ev.conn.server_port == 443 && ev.conn.server_name == "a.example.com"';
      matcher.set(`esb_${String(i).padStart(2, '0')}`, counted(filterOf(text), calls));
    }
    matcher.set('esb_other', counted(filterOf('ev.conn.server_name == "a.example.com" && ev.conn.server_port == 80'), calls));
    const all = Array.from({ length: 50 }, (_, i) => `esb_${String(i).padStart(2, '0')}`);
    expect(matcher.match({ conn: { server_name: 'a.example.com', server_port: 443, client_ip: '10.0.0.1' } })).toEqual(all);
    expect(calls.n).toBe(2);
    expect(matcher.match({ conn: { server_name: 'a.example.com', server_port: 443, client_ip: '11.0.0.1' } })).toEqual([]);
    expect(calls.n).toBe(4);
  });

  it('should index the common shapes and evaluate only the candidates', () => {
    const calls = { n: 0 };
    const matcher = new SubscriptionMatcher(TYPE);
    for (let i = 0; i < 200; i++) {
      const host = `h${i}.example.com`;
      const text =
        i % 2 === 0
          ? `ev.conn.server_name == ${quote(host)} && ev.conn.server_port == 443`
          : `cidr("10.${i}.0.0/16").containsIP(ev.conn.client_ip) && ev.conn.server_name.endsWith(".com")`;
      matcher.set(`esb_${String(i).padStart(3, '0')}`, counted(filterOf(text), calls));
    }
    matcher.set('esb_all', undefined);
    expect(matcher.stats()).toEqual({ subscriptions: 201, owners: 0, alwaysEvaluated: 1, hashed: 100, suffixed: 0, ranged: 100 });
    const ev = { conn: { server_name: 'h4.example.com', server_port: 443, client_ip: '10.7.1.1', server_ip: '1.1.1.1' } };
    expect(sorted(matcher.match(ev))).toEqual(['esb_004', 'esb_007', 'esb_all']);
    expect(calls.n).toBe(2);
  });

  it('should give an owned subscription on a hashed value only its owner\'s records when two owners filter the same value', () => {
    const calls = { n: 0 };
    const matcher = new SubscriptionMatcher(TYPE, ownerOf);
    matcher.replaceAll([
      ['esb_a', counted(filterOf('ev.conn.server_port == 443'), calls), 'esb_a', 'acct_a'],
      ['esb_b', counted(filterOf('ev.conn.server_port == 443'), calls), 'esb_b', 'acct_b'],
      ['esb_any', counted(filterOf('ev.conn.server_port == 443'), calls)],
      ['esb_a_list', counted(filterOf('ev.conn.server_name in ["a.example.com", "b.example.com"] && ev.conn.server_port == 443'), calls), 'esb_a_list', 'acct_a'],
    ]);
    // One index for everyone: the owned filters sit in the unowned ones' buckets, nothing is evaluated whole.
    expect(matcher.stats()).toEqual({ subscriptions: 4, owners: 2, alwaysEvaluated: 0, hashed: 4, suffixed: 0, ranged: 0 });
    const at = (name: string, port: unknown = 443): unknown => ({ conn: { server_name: name, server_port: port } });
    // The list is indexed on the name (the first field); within the port's hit, the unowned come before the owner's.
    expect(matcher.match(at('a.example.com'))).toEqual(['esb_a_list', 'esb_any', 'esb_a']);
    expect(matcher.match(at('b.example.com'))).toEqual(['esb_any', 'esb_b']);
    expect(matcher.match(at('c.example.com'))).toEqual(['esb_any']);
    expect(matcher.match(at('a.example.com', 80))).toEqual([]);
    // A mistyped value proves nothing: every filter on the field is evaluated, other owners' never.
    expect(matcher.match(at('b.example.com', '443'))).toEqual([]);
    calls.n = 0;
    matcher.match(at('b.example.com', 443n));
    expect(calls.n).toBe(2);
    // Moving a subscription to another owner moves it in its bucket; removing one leaves the rest.
    matcher.set('esb_b', filterOf('ev.conn.server_port == 443'), 'esb_b', 'acct_a');
    expect(matcher.match(at('a.example.com'))).toEqual(['esb_a_list', 'esb_any', 'esb_a', 'esb_b']);
    expect(matcher.match(at('b.example.com'))).toEqual(['esb_any']);
    matcher.delete('esb_a');
    matcher.delete('esb_any');
    expect(matcher.match(at('a.example.com'))).toEqual(['esb_a_list', 'esb_b']);
    expect(matcher.stats().owners).toBe(1);
  });

  it('should give an owned subscription without an indexable filter only its owner\'s records, and an unowned one every record', () => {
    const matcher = new SubscriptionMatcher(TYPE, ownerOf);
    matcher.set('esb_a_none', undefined, 'esb_a_none', 'acct_a');
    matcher.set('esb_a_true', filterOf('true'), 'esb_a_true', 'acct_a');
    matcher.set('esb_b_range', filterOf('cidr("10.0.0.0/8").containsIP(ev.conn.client_ip)'), 'esb_b_range', 'acct_b');
    matcher.set('esb_all', filterOf('true'));
    expect(matcher.stats()).toEqual({ subscriptions: 4, owners: 2, alwaysEvaluated: 3, hashed: 0, suffixed: 0, ranged: 1 });
    const at = (name: string): unknown => ({ conn: { server_name: name, server_port: 443, client_ip: '10.1.1.1' } });
    expect(matcher.match(at('a.example.com'))).toEqual(['esb_all', 'esb_a_none', 'esb_a_true']);
    expect(matcher.match(at('b.example.com'))).toEqual(['esb_all', 'esb_b_range']);
    expect(matcher.match(at('c.example.com'))).toEqual(['esb_all']);
    matcher.delete('esb_a_none');
    matcher.delete('esb_a_true');
    expect(matcher.match(at('a.example.com'))).toEqual(['esb_all']);
    expect(matcher.stats()).toEqual({ subscriptions: 2, owners: 1, alwaysEvaluated: 1, hashed: 0, suffixed: 0, ranged: 1 });
  });

  it('should not evaluate a filter that is only its indexed conjunct, and still evaluate it for a mistyped value', () => {
    const calls = { n: 0 };
    const matcher = new SubscriptionMatcher(TYPE);
    matcher.set('esb_1', counted(filterOf('ev.conn.server_name == "a.example.com"'), calls));
    matcher.set('esb_2', counted(filterOf('cidr("10.0.0.0/8").containsIP(ev.conn.client_ip)'), calls));
    expect(matcher.match({ conn: { server_name: 'a.example.com', client_ip: '10.0.0.1' } })).toEqual(['esb_1', 'esb_2']);
    expect(calls.n).toBe(0);
    expect(matcher.match({ conn: { server_name: 5, client_ip: 5 } })).toEqual([]);
    expect(calls.n).toBe(2);
  });

  it('should evaluate a filter that cannot leave out its indexed conjunct whole, never in place of another', () => {
    const whole = (text: string): CompiledFilter => {
      const f = filterOf(text);
      return { text: f.text, eventType: f.eventType, expr: f.expr, cost: f.cost, evaluate: (ev) => f.evaluate(ev) };
    };
    const matcher = new SubscriptionMatcher(TYPE);
    matcher.set('esb_a', whole('ev.conn.server_name == "a.example.com" && ev.conn.server_port == 443'));
    matcher.set('esb_b', whole('ev.conn.server_name == "b.example.com" && ev.conn.server_port == 443'));
    matcher.set('esb_c', filterOf('ev.conn.server_port == 443 && ev.conn.server_name == "b.example.com"'));
    expect(sorted(matcher.match({ conn: { server_name: 'b.example.com', server_port: 443 } }))).toEqual(['esb_b', 'esb_c']);
    expect(sorted(matcher.match({ conn: { server_name: 'a.example.com', server_port: 443 } }))).toEqual(['esb_a']);
  });

  it('should refuse a filter compiled for another event type', () => {
    const matcher = new SubscriptionMatcher(TYPE);
    expect(() => matcher.set('esb_1', filterOf('true', 'http_request_complete.v0'))).toThrow(
      expect.objectContaining({ code: 'FILTER_EVENT_TYPE_MISMATCH' }),
    );
    expect(matcher.size).toBe(0);
  });
});

describe('analyseFilter', () => {
  // The analysis reads only the parsed AST, so it is tested on parse() output, including forms the
  // checker would reject.
  const plan = (text: string) => analyseFilter(parse(text).expr);

  it('should pick the most selective indexable conjunct of a conjunction', () => {
    expect(plan('ev.conn.server_port == 443 && ev.conn.server_name == "a" && ev.conn.client_ip.startsWith("1")')).toMatchObject({
      plan: { kind: 'hash', field: 'conn.server_name', keys: ['a'] },
      exact: false,
      conjunct: 1,
    });
    const ranged = plan('cidr("10.1.2.3/8").containsIP(ip(ev.conn.client_ip))');
    expect(ranged.exact).toBe(true);
    expect(ranged.conjunct).toBe(0);
    expect(ranged.plan?.kind === 'cidr' && ranged.plan.cidr.bits).toBe(8);
  });

  it('should key the remaining conjuncts alike in any order and whatever the indexed key, and apart when they differ', () => {
    const rest = (text: string): string => plan(text).rest;
    const base = rest('ev.conn.server_name == "a" && ev.conn.server_port == 443 && ev.conn.client_ip.startsWith("10.")');
    expect(rest('ev.conn.client_ip.startsWith("10.") && ev.conn.server_port == 443 && ev.conn.server_name == "b"')).toBe(base);
    expect(rest('ev.conn.server_name in ["c", "d"] && (ev.conn.client_ip.startsWith("10.") && ev.conn.server_port == 443)')).toBe(base);
    for (const other of [
      'ev.conn.server_name == "a" && ev.conn.server_port == 443u && ev.conn.client_ip.startsWith("10.")',
      'ev.conn.server_name == "a" && ev.conn.server_port == 443.0 && ev.conn.client_ip.startsWith("10.")',
      'ev.conn.server_name == "a" && ev.conn.server_port == 443 && ev.conn.client_ip.startsWith("10")',
      'ev.conn.server_name == "a" && ev.conn.server_port == 443 && ev.conn.server_ip.startsWith("10.")',
      'ev.conn.server_name == "a" && ev.conn.server_port != 443 && ev.conn.client_ip.startsWith("10.")',
      'ev.conn.server_name == "a" && ev.conn.server_port == 443 && ev.conn.client_ip.endsWith("10.")',
      'ev.conn.server_name == "a" && (ev.conn.server_port == 443 || ev.conn.client_ip.startsWith("10."))',
    ]) {
      expect(rest(other)).not.toBe(base);
    }
    expect(plan('ev.conn.server_name == "a"')).toMatchObject({ exact: true, rest: '' });
    // Unindexed: the whole filter is the key, so equal filters share their evaluation too.
    expect(plan('ev.conn.server_port > 1 && true')).toMatchObject({ plan: undefined, conjunct: -1, rest: rest('ev.conn.server_name == "x" && ev.conn.server_port > 1 && true') });
  });

  it.each([
    ['ev.conn.server_name == "a" || ev.conn.server_name == "b"', 'a disjunction'],
    ['ev.conn.server_port == 443.0', 'a double literal (heterogeneous equality)'],
    ['ev.conn.server_port in [443, ev.conn.server_port]', 'a list with a non-literal element'],
    ['cidr("10.0.0.0/88").containsIP(ev.conn.client_ip)', 'an invalid range'],
    ['!(ev.conn.server_name == "a")', 'a negation'],
    ['ev.conn.server_name != "a"', 'an inequality'],
    ['[1].exists(ev, ev == 1)', 'a comprehension'],
    ['ev.conn.server_name == ev.conn.server_ip', 'two fields'],
  ])('should leave %s unindexed (%s)', (text) => {
    expect(plan(text).plan).toBeUndefined();
  });
});
