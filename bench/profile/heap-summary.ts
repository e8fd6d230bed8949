// Sums a V8 heap snapshot's objects by kind: `node --max-old-space-size=4096 --import tsx bench/profile/heap-summary.ts <file> [rows]`.
// Self sizes by node type and by constructor (or string, code, array kind), the largest first.
import { readFileSync } from 'node:fs';

const [path, rowsArg = '40'] = process.argv.slice(2);
if (path === undefined) throw new Error('usage: heap-summary.ts <file.heapsnapshot> [rows]');
const snap = JSON.parse(readFileSync(path, 'utf8')) as {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
};
const fields = snap.snapshot.meta.node_fields;
const types = snap.snapshot.meta.node_types[0];
const stride = fields.length;
const typeAt = fields.indexOf('type');
const nameAt = fields.indexOf('name');
const sizeAt = fields.indexOf('self_size');
const byType = new Map<string, [number, number]>();
const byName = new Map<string, [number, number]>();
let total = 0;
const add = (m: Map<string, [number, number]>, k: string, size: number): void => {
  const e = m.get(k);
  if (e === undefined) m.set(k, [size, 1]);
  else {
    e[0] += size;
    e[1] += 1;
  }
};
for (let i = 0; i < snap.nodes.length; i += stride) {
  const type = types[snap.nodes[i + typeAt] as number] as string;
  const size = snap.nodes[i + sizeAt] as number;
  total += size;
  add(byType, type, size);
  const name = type === 'string' || type === 'concatenated string' || type === 'sliced string' ? '(string)' : `${type}: ${(snap.strings[snap.nodes[i + nameAt] as number] ?? '').slice(0, 80)}`;
  add(byName, name, size);
}
const table = (m: Map<string, [number, number]>, rows: number): string =>
  [...m.entries()]
    .sort((a, b) => b[1][0] - a[1][0])
    .slice(0, rows)
    .map(([k, [s, n]]) => `${(s / 1048576).toFixed(2).padStart(8)} MiB ${String(n).padStart(9)}  ${k}`)
    .join('\n');
process.stdout.write(`total self size ${(total / 1048576).toFixed(1)} MiB\n\nby type:\n${table(byType, 20)}\n\nby name:\n${table(byName, Number(rowsArg))}\n`);
