// fast-check generators of well-typed filter expressions over the Filterable fields, and of raw records (fields may be missing).
import fc from 'fast-check';

export type Expr = { readonly text: string };

const wrap = (text: string): Expr => ({ text: `(${text})` });

const STRING_FIELDS = ['ev.conn.client_ip', 'ev.conn.server_ip', 'ev.conn.server_name'];
const PORT = 'ev.conn.server_port';

/** Strings that make the string functions interesting: prefixes of each other, IPs, non-ASCII, astral and private-use characters. */
const STRING_POOL = [
  '',
  '10.',
  '10.0.0.1',
  '10.1.2.3',
  '192.168.1.1',
  '2001:db8::1',
  'example.com',
  '.example.com',
  'a.example.com',
  'é',
  '🐱',
  'a🐱b',
  '443',
  'x',
  'X',
];

/**
 * Arguments for int(). Kept to strings on which cel-go and @bufbuild/cel agree: the reference
 * converts with BigInt(), which also accepts "", surrounding blanks and "0x10", where cel-go's
 * strconv.ParseInt (and this engine) report an error.
 */
const INT_STRINGS = ['443', '-7', '+5', '-0', '9223372036854775807', '9223372036854775808', 'x', '10.0.0.1', '1.5'];

const INT_POOL = [0n, 1n, -1n, 2n, 7n, 80n, 443n, 8443n, 65535n, 9223372036854775807n, -9223372036854775807n];

/** Patterns that are valid RE2, including the classic catastrophic-backtracking shape. */
const PATTERNS = ['^10\\.', 'example\\.com$', '(a+)+$', '^[0-9.]+$', '🐱', '^$', '.*', '[A-Z]'];

const quote = (s: string): string => JSON.stringify(s);
const intLit = (n: bigint): string => (n < 0n ? `(${n})` : `${n}`);

const stringLeaf: fc.Arbitrary<Expr> = fc.oneof(
  fc.constantFrom(...STRING_FIELDS).map((text) => ({ text })),
  fc.constantFrom(...STRING_POOL).map((s) => ({ text: quote(s) })),
);

const intLeaf: fc.Arbitrary<Expr> = fc.oneof(
  fc.constant({ text: PORT }),
  fc.constantFrom(...INT_POOL).map((n) => ({ text: intLit(n) })),
  fc.integer({ min: -1000, max: 70000 }).map((n) => ({ text: intLit(BigInt(n)) })),
);

const CMP = ['==', '!=', '<', '<=', '>', '>='];
const ARITH = ['+', '-', '*', '/', '%'];

/** A predicate over the comprehension variable x (an int). */
function predicateOverX(int: fc.Arbitrary<Expr>): fc.Arbitrary<Expr> {
  return fc.oneof(
    fc.tuple(fc.constantFrom(...CMP), int).map(([op, b]) => wrap(`x ${op} ${b.text}`)),
    fc.tuple(fc.constantFrom(...ARITH), int, fc.constantFrom(...CMP), int).map(([a, b, c, d]) => wrap(`(x ${a} ${b.text}) ${c} ${d.text}`)),
  );
}

export interface Grammar {
  readonly bool: fc.Arbitrary<Expr>;
  readonly int: fc.Arbitrary<Expr>;
  readonly str: fc.Arbitrary<Expr>;
}

/**
 * Depth is capped so every expression stays within the filter limits (nesting 32, AST depth 64):
 * the point here is semantics, and the limits have their own tests.
 */
const DEPTH = { maxDepth: 3, depthIdentifier: 'cel-expr', withCrossShrink: true } as const;

export const grammar: Grammar = fc.letrec<{ bool: Expr; int: Expr; str: Expr }>((tie) => {
  const bool = tie('bool');
  const int = tie('int');
  const str = tie('str');
  const intList = fc.array(int, { maxLength: 4 }).map((xs) => `[${xs.map((x) => x.text).join(', ')}]`);
  const strList = fc.array(str, { maxLength: 4 }).map((xs) => `[${xs.map((x) => x.text).join(', ')}]`);
  return {
    bool: fc.oneof(
      DEPTH,
      fc.constantFrom('true', 'false').map((text) => ({ text })),
      fc.constantFrom(...STRING_FIELDS, PORT).map((f) => ({ text: `has(${f})` })),
      fc.tuple(int, fc.constantFrom(...CMP), int).map(([a, op, b]) => wrap(`${a.text} ${op} ${b.text}`)),
      fc.tuple(str, fc.constantFrom(...CMP), str).map(([a, op, b]) => wrap(`${a.text} ${op} ${b.text}`)),
      fc.tuple(str, fc.constantFrom('startsWith', 'endsWith', 'contains'), str).map(([a, m, b]) => wrap(`${a.text}.${m}(${b.text})`)),
      fc.tuple(str, fc.constantFrom(...PATTERNS)).map(([a, p]) => wrap(`${a.text}.matches(${quote(p)})`)),
      fc.tuple(int, intList).map(([a, l]) => wrap(`${a.text} in ${l}`)),
      fc.tuple(str, strList).map(([a, l]) => wrap(`${a.text} in ${l}`)),
      fc.tuple(bool, fc.constantFrom('&&', '||'), bool).map(([a, op, b]) => wrap(`${a.text} ${op} ${b.text}`)),
      bool.map((a) => wrap(`!${a.text}`)),
      fc.tuple(bool, bool, bool).map(([c, a, b]) => wrap(`${c.text} ? ${a.text} : ${b.text}`)),
      fc.tuple(intList, fc.constantFrom('all', 'exists', 'exists_one'), predicateOverX(int)).map(([l, m, p]) => wrap(`${l}.${m}(x, ${p.text})`)),
    ),
    int: fc.oneof(
      DEPTH,
      intLeaf,
      fc.tuple(int, fc.constantFrom(...ARITH), int).map(([a, op, b]) => wrap(`${a.text} ${op} ${b.text}`)),
      int.map((a) => wrap(`-${a.text}`)),
      str.map((s) => wrap(`size(${s.text})`)),
      fc.constantFrom(...INT_STRINGS).map((s) => wrap(`int(${quote(s)})`)),
      int.map((i) => wrap(`int(string(${i.text}))`)),
      fc.tuple(bool, int, int).map(([c, a, b]) => wrap(`${c.text} ? ${a.text} : ${b.text}`)),
      fc.tuple(intList, int).map(([l, i]) => wrap(`${l}[${i.text}]`)),
      fc.tuple(intList, predicateOverX(int)).map(([l, p]) => wrap(`size(${l}.filter(x, ${p.text}))`)),
      fc.tuple(intList, int).map(([l, e]) => wrap(`size(${l}.map(x, x + ${e.text}))`)),
    ),
    str: fc.oneof(
      DEPTH,
      stringLeaf,
      fc.tuple(str, str).map(([a, b]) => wrap(`${a.text} + ${b.text}`)),
      int.map((i) => wrap(`string(${i.text})`)),
      fc.tuple(bool, str, str).map(([c, a, b]) => wrap(`${c.text} ? ${a.text} : ${b.text}`)),
    ),
  };
});

const IP_POOL = ['10.0.0.1', '10.1.2.3', '192.168.1.1', '172.16.0.1', '2001:db8::1', 'not-an-ip', '', '10.'];
const NAME_POOL = ['a.example.com', 'example.com', 'b.example.org', '', '🐱.test', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'];

/** A raw record as the decoder gives it: conn may be missing, and so may each of its fields. */
export const rawRecord: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({}) },
  {
    weight: 12,
    arbitrary: fc
      .record(
        {
          client_ip: fc.constantFrom(...IP_POOL),
          server_ip: fc.constantFrom(...IP_POOL),
          server_name: fc.constantFrom(...NAME_POOL),
          server_port: fc.oneof(fc.constantFrom(0, 80, 443, 8443, 65535), fc.integer({ min: 0, max: 65535 })),
        },
        { requiredKeys: [] },
      )
      .map((conn) => ({ conn })),
  },
);
