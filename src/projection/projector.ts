// Projection: picks a subscription's selected fields out of a decoded record, nested by dotted path.
// Subscriptions whose field lists are equal (as sets) share one projector, so the work is done once a record.

/**
 * JSON texts of leaf values already written for the current record, by leaf slot (leafSlot): several
 * field sets that select the same field write its value once. One fresh cache per record.
 */
export type LeafJsonCache = (string | undefined)[];

export interface Projector {
  (record: Record<string, unknown>): Record<string, unknown>;
  /** JSON.stringify(project(record)), written from the record directly, reusing and filling `cache`. */
  readonly serialize: (record: Record<string, unknown>, cache: LeafJsonCache) => string;
}

/** A projected object's shape: its keys in output order. */
export interface FieldNode {
  readonly name: string;
  /** Children for an intermediate path segment; undefined for a selected leaf field. */
  readonly children?: FieldNode[];
}

type Node = FieldNode;

/** The shape of the object projected for a projection key (projectionKey): the keys in the order every projector writes them. */
export function fieldTree(key: string): FieldNode[] {
  return buildTree(key === '' ? [] : key.split(','));
}

/**
 * The canonical key of a field list: subscriptions with equal keys share a projector and its output.
 * Once a projector exists for the set, every caller gets that projector's own key string, so 10,000
 * routes keep one copy per field set instead of one each (bench/results/memory.md).
 */
export function projectionKey(fields: readonly string[]): string {
  const key = [...new Set(fields)].sort().join(',');
  return keys.get(key) ?? key;
}

const cache = new Map<string, Projector>();
/** The key string each projector in `cache` was stored under. */
const keys = new Map<string, string>();

/** A projector for the given dotted field names; equal field sets get the same function. */
export function projectorFor(fields: readonly string[]): Projector {
  const key = projectionKey(fields);
  let p = cache.get(key);
  if (p === undefined) {
    const tree = fieldTree(key);
    p = Object.assign(lazyProjector(tree), { serialize: compileSerializer(tree) });
    cache.set(key, p);
    keys.set(key, key);
  }
  return p;
}

/** Slots of the leaf JSON cache: one per dotted path ever selected, shared by every serializer. */
const slots = new Map<string, number>();

function leafSlot(path: string): number {
  let slot = slots.get(path);
  if (slot === undefined) slots.set(path, (slot = slots.size));
  return slot;
}

function buildTree(paths: readonly string[]): Node[] {
  const root: Node[] = [];
  for (const path of paths) {
    let level = root;
    const parts = path.split('.');
    parts.forEach((name, i) => {
      const leaf = i === parts.length - 1;
      let node = level.find((n) => n.name === name);
      if (node === undefined) {
        node = leaf ? { name } : { name, children: [] };
        level.push(node);
      }
      if (!leaf) {
        if (node.children === undefined) throw new Error(`field ${path} is selected both as a leaf and as a parent`);
        level = node.children;
      }
    });
  }
  return root;
}

/**
 * A property key in generated code. JSON string syntax is valid JS string syntax; "__proto__" is
 * written as a computed key, because as a plain key in an object literal it sets the prototype.
 */
const literalKey = (name: string): string => (name === '__proto__' ? `[${JSON.stringify(name)}]` : JSON.stringify(name));

/**
 * The projector function, generated on its first call. The hot path writes payloads with serialize();
 * the projected object is built only when a writer reads the envelope (a kafka key path, a log
 * timestamp), and the generated function of each of 1,000 field sets kept about 3 KB in every worker
 * whether it ran or not (bench/results/memory.md).
 */
function lazyProjector(tree: readonly Node[]): (record: Record<string, unknown>) => Record<string, unknown> {
  let compiled: ((record: Record<string, unknown>) => Record<string, unknown>) | undefined;
  return (record) => (compiled ??= compileProjector(tree))(record);
}

/**
 * The projector is generated as one function per field set that reads fixed property names and
 * returns one nested object literal, as avro-record.ts does for decoding. A tree of shared closures
 * reading computed keys made every property access megamorphic once many field sets were live:
 * with 1,000 distinct field sets it measured 7 µs per projection, the generated form well under 1 µs
 * (bench/results/PROFILE.md). Semantics: a field absent from the record is emitted as null, and a
 * selected group is always an object, so every event of a subscription has the same shape.
 */
function compileProjector(nodes: readonly Node[]): (record: Record<string, unknown>) => Record<string, unknown> {
  const lines: string[] = [];
  let groups = 0;
  // g is a source object or undefined; each selected group reads its child group once into a const.
  const expression = (level: readonly Node[], src: string): string => {
    const members = level.map((node) => {
      const key = JSON.stringify(node.name);
      if (node.children === undefined) {
        return `${literalKey(node.name)}: (${src} === undefined || ${src}[${key}] === undefined ? null : ${src}[${key}])`;
      }
      const g = `g${++groups}`;
      lines.push(`const ${g} = ${src} === undefined ? undefined : obj(${src}[${key}]);`);
      return `${literalKey(node.name)}: ${expression(node.children, g)}`;
    });
    return `{ ${members.join(', ')} }`;
  };
  const body = expression(nodes, 'g0');
  const source = `return function project(r) {\n  const g0 = obj(r);\n  ${lines.join('\n  ')}\n  return ${body};\n};`;
  return (new Function('obj', source) as (o: typeof obj) => (record: Record<string, unknown>) => Record<string, unknown>)(obj);
}

const obj = (v: unknown): Record<string, unknown> | undefined => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : undefined);

/**
 * The JSON text of the projected object without building it: the keys are constants of the generated
 * code and each leaf's JSON.stringify is cached per record. At 10,000 subscriptions a record meets
 * about 13 distinct field sets, mostly overlapping; serializing each projected object whole spent
 * most of the hot path re-serializing the same header maps (bench/results/PROFILE.md). The text equals
 * JSON.stringify(project(record)): same key order, null for an absent field, and the same leaf text.
 */
function compileSerializer(nodes: readonly Node[]): (record: Record<string, unknown>, cache: LeafJsonCache) => string {
  const lines: string[] = [];
  let groups = 0;
  const text = (level: readonly Node[], src: string, prefix: string): string => {
    const parts = level.map((node, i) => {
      const key = JSON.stringify(node.name);
      const open = JSON.stringify(`${i === 0 ? '{' : ','}${key}:`);
      const path = prefix === '' ? node.name : `${prefix}.${node.name}`;
      if (node.children === undefined) {
        const slot = leafSlot(path);
        return `${open} + (c[${slot}] ?? (c[${slot}] = J(${src} === undefined || ${src}[${key}] === undefined ? null : ${src}[${key}])))`;
      }
      const g = `g${++groups}`;
      lines.push(`const ${g} = ${src} === undefined ? undefined : obj(${src}[${key}]);`);
      return `${open} + ${text(node.children, g, path)}`;
    });
    return parts.length === 0 ? '"{}"' : `${parts.join(' + ')} + "}"`;
  };
  const body = text(nodes, 'g0', '');
  const source = `return function serialize(r, c) {\n  const g0 = obj(r);\n  ${lines.join('\n  ')}\n  return ${body};\n};`;
  return (new Function('obj', 'J', source) as (o: typeof obj, j: (v: unknown) => string) => (record: Record<string, unknown>, cache: LeafJsonCache) => string)(obj, JSON.stringify);
}
