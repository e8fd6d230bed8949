// The filterable fields of a raw record, as the event catalogue's FILTERABLE lists them: their checks
// beyond their types (applied before any filter sees a record), copies of them, and where they sit.
// The functions are generated once from the catalogue, so the hot path reads each field directly.
import { FILTERABLE, TRAFFIC_EVENT_TYPES, TRAFFIC_FIELDS, type FieldType } from '../events/catalog.js';
import { DecodeError } from './errors.js';
import type { FilterableFields } from './record-types.js';

export interface FilterableLeaf {
  /** The dotted name, e.g. "group.field". */
  readonly path: string;
  readonly parts: readonly string[];
  readonly type: FieldType;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Every filterable field, in the catalogue's field order (which is the order of the Avro schemas). A
 * field filterable in several event types has one type in all of them.
 */
export const FILTERABLE_LEAVES: readonly FilterableLeaf[] = (() => {
  const byPath = new Map<string, FilterableLeaf>();
  for (const t of TRAFFIC_EVENT_TYPES) {
    for (const spec of TRAFFIC_FIELDS[t]) {
      if (!spec.filterable || byPath.has(spec.name)) continue;
      const parts = spec.name.split('.');
      // The names become property reads in generated code; the catalogue's names all pass.
      if (!parts.every((p) => NAME.test(p))) throw new Error(`filterable field ${spec.name} is not a dotted path of plain names`);
      byPath.set(spec.name, { path: spec.name, parts, type: spec.type });
    }
  }
  for (const name of Object.keys(FILTERABLE)) if (!byPath.has(name)) throw new Error(`filterable field ${name} is not a field of any traffic event type`);
  return [...byPath.values()];
})();

/** The top-level group holding every filterable field, when they share one: a JSON record can be read from its head. */
export const FILTERABLE_GROUP: string | undefined = (() => {
  const groups = new Set(FILTERABLE_LEAVES.map((l) => (l.parts.length > 1 ? l.parts[0] : undefined)));
  const [only] = groups;
  return groups.size === 1 ? only : undefined;
})();

export const isIntType = (t: FieldType): boolean => t === 'int32' || t === 'int64';

function violation(message: string): never {
  throw new DecodeError('schema_violation', message);
}

const read = (root: string, leaf: FilterableLeaf): string => `${root}.${leaf.parts.join('.')}`;

/** Source text building the nested object of the filterable fields from expressions, one per leaf. */
function nestedLiteral(value: (leaf: FilterableLeaf) => string): string {
  interface Node {
    [name: string]: Node | string;
  }
  const root: Node = {};
  for (const leaf of FILTERABLE_LEAVES) {
    let node = root;
    for (const p of leaf.parts.slice(0, -1)) node = (node[p] ??= {}) as Node;
    node[leaf.parts[leaf.parts.length - 1] as string] = value(leaf);
  }
  const text = (n: Node): string => `{ ${Object.entries(n).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : text(v)}`).join(', ')} }`;
  return text(root);
}

function checksSource(): string {
  const lines: string[] = [];
  FILTERABLE_LEAVES.forEach((leaf, i) => {
    const spec = FILTERABLE[leaf.path];
    if (spec?.nonEmpty === true) lines.push(`if (${read('f', leaf)}.length === 0) V(${JSON.stringify(`${leaf.path} must not be empty.`)});`);
    if (spec?.maxLength !== undefined)
      lines.push(`if (${read('f', leaf)}.length > ${spec.maxLength}) V(${JSON.stringify(`${leaf.path} is longer than ${spec.maxLength} characters.`)});`);
    const range = spec?.range;
    if (range !== undefined) {
      lines.push(`const v${i} = ${read('f', leaf)};`);
      const what = JSON.stringify(` is not ${range.what} (${range.min}-${range.max}).`);
      lines.push(`if (v${i} < ${range.min} || v${i} > ${range.max}) V(${JSON.stringify(`${leaf.path}: `)} + v${i} + ${what});`);
    }
  });
  return lines.join('\n');
}

/** Checks on the filterable fields beyond their types, e.g. a port's range. Throws DecodeError. */
export const checkFilterable = new Function('V', `return (f) => {\n${checksSource()}\n};`)(violation) as (f: FilterableFields) => void;

/** The filterable fields of a validated record, as a fresh object, so the record and the filter input do not alias. */
export const filterableOf = new Function(`return (r) => (${nestedLiteral((leaf) => read('r', leaf))});`)() as (record: object) => FilterableFields;

/** True when two sets of filterable fields hold the same values. */
export const sameFilterable = new Function(`return (a, b) => ${FILTERABLE_LEAVES.map((l) => `${read('a', l)} === ${read('b', l)}`).join(' && ') || 'true'};`)() as (
  a: FilterableFields,
  b: FilterableFields,
) => boolean;

/** The dotted names of the filterable fields: the cheap Avro read decodes a record up to the last of them (avro-record.ts). */
export const FILTERABLE_PATHS: ReadonlySet<string> = new Set(FILTERABLE_LEAVES.map((l) => l.path));

/** The filterable string fields whose values repeat from record to record: the cheap read caches their strings (string-cache.ts). */
export const REPEATING_PATHS: ReadonlySet<string> = new Set(FILTERABLE_LEAVES.filter((l) => l.type === 'string' && FILTERABLE[l.path]?.repeats === true).map((l) => l.path));
