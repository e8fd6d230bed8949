// What the objects of given constructors keep alive in a V8 heap snapshot:
// `node --max-old-space-size=4096 --import tsx bench/profile/heap-retained.ts <file> Name[,Name...] ...`.
// Each argument after the file is a group of constructor names; its retained size is what is reachable from
// the roots only through objects of the group (weak edges do not count), as in the DevTools dominator view.
import { readFileSync } from 'node:fs';

const [path, ...groups] = process.argv.slice(2);
if (path === undefined || groups.length === 0) throw new Error('usage: heap-retained.ts <file.heapsnapshot> Name[,Name...] ...');
const snap = JSON.parse(readFileSync(path, 'utf8')) as {
  snapshot: { meta: { node_fields: string[]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
};
const { node_fields: nf, edge_fields: ef } = snap.snapshot.meta;
const ns = nf.length;
const es = ef.length;
const count = snap.nodes.length / ns;
const [nameAt, sizeAt, edgesAt] = [nf.indexOf('name'), nf.indexOf('self_size'), nf.indexOf('edge_count')];
const [typeAt, toAt] = [ef.indexOf('type'), ef.indexOf('to_node')];
const weak = snap.snapshot.meta.edge_types[0].indexOf('weak');
const firstEdge = new Uint32Array(count + 1);
for (let i = 0; i < count; i++) firstEdge[i + 1] = (firstEdge[i] as number) + (snap.nodes[i * ns + edgesAt] as number);

/** Self sizes of the nodes reachable from the root without entering a node marked in `blocked`. */
function reachable(blocked: Uint8Array): { seen: Uint8Array; size: number } {
  const seen = new Uint8Array(count);
  const stack = [0];
  seen[0] = 1;
  let size = 0;
  while (stack.length > 0) {
    const n = stack.pop() as number;
    size += snap.nodes[n * ns + sizeAt] as number;
    for (let e = firstEdge[n] as number; e < (firstEdge[n + 1] as number); e++) {
      if (snap.edges[e * es + typeAt] === weak) continue;
      const to = (snap.edges[e * es + toAt] as number) / ns;
      if (seen[to] === 1 || blocked[to] === 1) continue;
      seen[to] = 1;
      stack.push(to);
    }
  }
  return { seen, size };
}

const all = reachable(new Uint8Array(count)).size;
process.stdout.write(`reachable from the roots: ${(all / 1048576).toFixed(1)} MiB\n`);
for (const group of groups) {
  const names = new Set(group.split(','));
  const blocked = new Uint8Array(count);
  let objects = 0;
  for (let i = 0; i < count; i++) {
    if (names.has(snap.strings[snap.nodes[i * ns + nameAt] as number] as string)) {
      blocked[i] = 1;
      objects++;
    }
  }
  const without = reachable(blocked).size;
  process.stdout.write(`${((all - without) / 1048576).toFixed(2).padStart(8)} MiB retained by ${objects} ${group}\n`);
}
