// Projection: picks a subscription's selected fields out of a decoded record, nested by dotted path.
// Subscriptions whose field lists are equal (as sets) share one projector, so the work is done once a record.

export type Projector = (record: Record<string, unknown>) => Record<string, unknown>;

interface Node {
  readonly name: string;
  /** Children for an intermediate path segment; undefined for a selected leaf field. */
  readonly children?: Node[];
}

/** The canonical key of a field list: subscriptions with equal keys share a projector and its output. */
export function projectionKey(fields: readonly string[]): string {
  return [...new Set(fields)].sort().join(',');
}

const cache = new Map<string, Projector>();

/** A projector for the given dotted field names; equal field sets get the same function. */
export function projectorFor(fields: readonly string[]): Projector {
  const key = projectionKey(fields);
  let p = cache.get(key);
  if (p === undefined) {
    p = compileProjector(buildTree(key === '' ? [] : key.split(',')));
    cache.set(key, p);
  }
  return p;
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

type Step = (src: Record<string, unknown> | undefined, out: Record<string, unknown>) => void;

// A field absent from the record is emitted as null, so every event of a subscription has the same shape.
function compileProjector(nodes: readonly Node[]): Projector {
  const steps = nodes.map(compileNode);
  return (record) => {
    const out: Record<string, unknown> = {};
    for (const step of steps) step(record, out);
    return out;
  };
}

function compileNode(node: Node): Step {
  const { name, children } = node;
  if (children === undefined) {
    return (src, out) => {
      const v = src?.[name];
      out[name] = v === undefined ? null : v;
    };
  }
  const inner = children.map(compileNode);
  return (src, out) => {
    const v = src?.[name];
    const child = v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
    const o: Record<string, unknown> = {};
    for (const step of inner) step(child, o);
    out[name] = o;
  };
}
