// The function signatures the checker resolves calls against: CEL's standard library subset plus the network extension.
import {
  BOOL,
  BYTES,
  CIDR_TYPE,
  DOUBLE,
  DYN,
  INT,
  IP_TYPE,
  STRING,
  UINT,
  listOf,
  mapOf,
  param,
  typeOf,
  type CelT,
} from './cel-types.js';

export interface Overload {
  /** cel-go's overload id where one exists, e.g. "add_int64". */
  readonly id: string;
  /** Member-style (`x.f(y)`): the receiver is params[0]. */
  readonly receiver: boolean;
  readonly params: readonly CelT[];
  readonly result: CelT;
}

const A = param('A');
const B = param('B');

const g = (id: string, params: readonly CelT[], result: CelT): Overload => ({ id, receiver: false, params, result });
const m = (id: string, params: readonly CelT[], result: CelT): Overload => ({ id, receiver: true, params, result });

const NUMERIC: readonly [string, CelT][] = [
  ['int64', INT],
  ['uint64', UINT],
  ['double', DOUBLE],
];

function comparisons(op: string): Overload[] {
  const out: Overload[] = [];
  const ordered: [string, CelT][] = [...NUMERIC, ['string', STRING], ['bytes', BYTES], ['bool', BOOL]];
  for (const [n, t] of ordered) out.push(g(`${op}_${n}`, [t, t], BOOL));
  // Cross-type numeric ordering, declared by cel-go's standard library.
  for (const [n1, t1] of NUMERIC)
    for (const [n2, t2] of NUMERIC) if (n1 !== n2) out.push(g(`${op}_${n1}_${n2}`, [t1, t2], BOOL));
  return out;
}

const arith = (op: string, types: readonly [string, CelT][]): Overload[] =>
  types.map(([n, t]) => g(`${op}_${n}`, [t, t], t));

/** Standard functions and operators, by function name as the parser spells it. */
export const STANDARD_FUNCTIONS: ReadonlyMap<string, readonly Overload[]> = new Map<string, readonly Overload[]>([
  ['_==_', [g('equals', [A, A], BOOL)]],
  ['_!=_', [g('not_equals', [A, A], BOOL)]],
  ['_<_', comparisons('less')],
  ['_<=_', comparisons('less_equals')],
  ['_>_', comparisons('greater')],
  ['_>=_', comparisons('greater_equals')],
  [
    '_+_',
    [
      ...arith('add', NUMERIC),
      g('add_string', [STRING, STRING], STRING),
      g('add_bytes', [BYTES, BYTES], BYTES),
      g('add_list', [listOf(A), listOf(A)], listOf(A)),
    ],
  ],
  ['_-_', arith('subtract', NUMERIC)],
  ['_*_', arith('multiply', NUMERIC)],
  ['_/_', arith('divide', NUMERIC)],
  [
    '_%_',
    arith('modulo', [
      ['int64', INT],
      ['uint64', UINT],
    ]),
  ],
  ['-_', [g('negate_int64', [INT], INT), g('negate_double', [DOUBLE], DOUBLE)]],
  ['!_', [g('logical_not', [BOOL], BOOL)]],
  ['_&&_', [g('logical_and', [BOOL, BOOL], BOOL)]],
  ['_||_', [g('logical_or', [BOOL, BOOL], BOOL)]],
  ['_?_:_', [g('conditional', [BOOL, A, A], A)]],
  ['@not_strictly_false', [g('not_strictly_false', [BOOL], BOOL)]],
  ['@in', [g('in_list', [A, listOf(A)], BOOL), g('in_map', [A, mapOf(A, B)], BOOL)]],
  ['_[_]', [g('index_list', [listOf(A), INT], A), g('index_map', [mapOf(A, B), A], B)]],
  [
    'size',
    [
      g('size_string', [STRING], INT),
      g('size_bytes', [BYTES], INT),
      g('size_list', [listOf(A)], INT),
      g('size_map', [mapOf(A, B)], INT),
      m('string_size', [STRING], INT),
      m('bytes_size', [BYTES], INT),
      m('list_size', [listOf(A)], INT),
      m('map_size', [mapOf(A, B)], INT),
    ],
  ],
  ['contains', [m('contains_string', [STRING, STRING], BOOL)]],
  ['startsWith', [m('starts_with_string', [STRING, STRING], BOOL)]],
  ['endsWith', [m('ends_with_string', [STRING, STRING], BOOL)]],
  ['matches', [g('matches', [STRING, STRING], BOOL), m('matches_string', [STRING, STRING], BOOL)]],
  [
    'int',
    [
      g('int64_to_int64', [INT], INT),
      g('uint64_to_int64', [UINT], INT),
      g('double_to_int64', [DOUBLE], INT),
      g('string_to_int64', [STRING], INT),
    ],
  ],
  [
    'uint',
    [
      g('uint64_to_uint64', [UINT], UINT),
      g('int64_to_uint64', [INT], UINT),
      g('double_to_uint64', [DOUBLE], UINT),
      g('string_to_uint64', [STRING], UINT),
    ],
  ],
  [
    'double',
    [
      g('double_to_double', [DOUBLE], DOUBLE),
      g('int64_to_double', [INT], DOUBLE),
      g('uint64_to_double', [UINT], DOUBLE),
      g('string_to_double', [STRING], DOUBLE),
    ],
  ],
  [
    'string',
    [
      g('string_to_string', [STRING], STRING),
      g('int64_to_string', [INT], STRING),
      g('uint64_to_string', [UINT], STRING),
      g('double_to_string', [DOUBLE], STRING),
      g('bool_to_string', [BOOL], STRING),
      g('bytes_to_string', [BYTES], STRING),
      g('ip_to_string', [IP_TYPE], STRING),
      g('cidr_to_string', [CIDR_TYPE], STRING),
    ],
  ],
  ['bytes', [g('bytes_to_bytes', [BYTES], BYTES), g('string_to_bytes', [STRING], BYTES)]],
  ['bool', [g('bool_to_bool', [BOOL], BOOL), g('string_to_bool', [STRING], BOOL)]],
  ['dyn', [g('to_dyn', [A], DYN)]],
  ['type', [g('type', [A], typeOf(A))]],
]);

/** cel-go's network extension (ext.Network), plus the inCidrRange shorthand. */
export const NETWORK_FUNCTIONS: ReadonlyMap<string, readonly Overload[]> = new Map<string, readonly Overload[]>([
  ['ip', [g('string_to_ip', [STRING], IP_TYPE), m('cidr_ip', [CIDR_TYPE], IP_TYPE)]],
  ['isIP', [g('is_ip', [STRING], BOOL)]],
  ['cidr', [g('string_to_cidr', [STRING], CIDR_TYPE)]],
  ['isCIDR', [g('is_cidr', [STRING], BOOL)]],
  ['family', [m('ip_family', [IP_TYPE], INT)]],
  ['isLoopback', [m('ip_is_loopback', [IP_TYPE], BOOL)]],
  ['isUnspecified', [m('ip_is_unspecified', [IP_TYPE], BOOL)]],
  ['isGlobalUnicast', [m('ip_is_global_unicast', [IP_TYPE], BOOL)]],
  ['isLinkLocalMulticast', [m('ip_is_link_local_multicast', [IP_TYPE], BOOL)]],
  ['isLinkLocalUnicast', [m('ip_is_link_local_unicast', [IP_TYPE], BOOL)]],
  ['masked', [m('cidr_masked', [CIDR_TYPE], CIDR_TYPE)]],
  ['prefixLength', [m('cidr_prefix_length', [CIDR_TYPE], INT)]],
  ['containsIP', [m('cidr_contains_ip', [CIDR_TYPE, IP_TYPE], BOOL), m('cidr_contains_ip_string', [CIDR_TYPE, STRING], BOOL)]],
  [
    'containsCIDR',
    [m('cidr_contains_cidr', [CIDR_TYPE, CIDR_TYPE], BOOL), m('cidr_contains_cidr_string', [CIDR_TYPE, STRING], BOOL)],
  ],
  [
    'inCidrRange',
    [
      g('in_cidr_range_string_string', [STRING, STRING], BOOL),
      g('in_cidr_range_ip_string', [IP_TYPE, STRING], BOOL),
      g('in_cidr_range_string_cidr', [STRING, CIDR_TYPE], BOOL),
      g('in_cidr_range_ip_cidr', [IP_TYPE, CIDR_TYPE], BOOL),
    ],
  ],
]);

/** Type names usable as values (type denotations), e.g. `type(x) == int`. */
export const TYPE_DENOTATIONS: ReadonlyMap<string, CelT> = new Map<string, CelT>([
  ['int', INT],
  ['uint', UINT],
  ['double', DOUBLE],
  ['bool', BOOL],
  ['string', STRING],
  ['bytes', BYTES],
  ['null_type', { kind: 'null' }],
  ['list', listOf(DYN)],
  ['map', mapOf(DYN, DYN)],
  ['type', { kind: 'type', of: undefined }],
  ['net.IP', IP_TYPE],
  ['net.CIDR', CIDR_TYPE],
]);
