// The fields the subscription matcher indexes: the event catalogue's FILTERABLE, in its order, each with
// how a filter's test on it is indexed, how selective it is, and a reader the hot path calls per record.
import { FILTERABLE, filterableField } from '../events/catalog.js';

export interface IndexedField {
  /** The dotted name, as a filter reads it after `ev.`. */
  readonly path: string;
  /** An integer field: its index keys are safe integers; else they are strings. */
  readonly int: boolean;
  /** An IP-valued string field: tests of it against CIDR ranges are indexed too. */
  readonly ip: boolean;
  /** How well an equality on it narrows the subscriptions: higher is better. */
  readonly selectivity: number;
  /** Its place in the order the matcher consults its indexes. */
  readonly order: number;
  /** Its value in a raw record, undefined when a group on the way is missing: plain property reads, generated once. */
  readonly read: (ev: unknown) => unknown;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function reader(path: string): (ev: unknown) => unknown {
  const parts = path.split('.');
  if (!parts.every((p) => NAME.test(p))) throw new Error(`filterable field ${path} is not a dotted path of plain names`);
  const steps = parts.map((p) => `if (typeof v !== 'object' || v === null) return undefined;\nv = v.${p};`).join('\n');
  return new Function('ev', `let v = ev;\n${steps}\nreturn v;`) as (ev: unknown) => unknown;
}

export const INDEXED_FIELDS: readonly IndexedField[] = Object.entries(FILTERABLE).map(([path, filter], order) => {
  const type = filterableField(path)?.type;
  if (type === undefined) throw new Error(`filterable field ${path} is not a field of any traffic event type`);
  const int = type === 'int32' || type === 'int64';
  return { path, int, ip: filter.index === 'ip', selectivity: filter.selectivity, order, read: reader(path) };
});

const BY_PATH: ReadonlyMap<string, IndexedField> = new Map(INDEXED_FIELDS.map((f) => [f.path, f]));

export function indexedField(path: string): IndexedField | undefined {
  return BY_PATH.get(path);
}
