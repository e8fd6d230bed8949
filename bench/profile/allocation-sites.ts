// Sums a V8 sampling heap profile (allocation-probe.js) by allocating function: `npx tsx bench/profile/allocation-sites.ts <file> [rows]`.
// Bytes are the sampled estimate of everything the function allocated, freed or not; "by caller" adds the calling function.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface HeapNode {
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly selfSize: number;
  readonly children: readonly HeapNode[];
}

function frameName(node: HeapNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  if (url === '') return `${functionName || '(anonymous)'} (native)`;
  const path = url.startsWith('file://') ? new URL(url).pathname : url;
  const rel = relative(process.cwd(), path);
  const shown = rel.includes('node_modules') ? rel.slice(rel.lastIndexOf('node_modules/') + 13) : rel;
  return `${functionName || '(anonymous)'} ${shown}:${lineNumber + 1}`;
}

/** Bytes allocated per function, and per (function, caller), largest first. */
export function allocationSites(file: string): { bySite: [string, number][]; byCaller: [string, number][]; total: number } {
  const root = (JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode }).head;
  const bySite = new Map<string, number>();
  const byCaller = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode, caller: string): void => {
    const name = frameName(node);
    if (node.selfSize > 0) {
      total += node.selfSize;
      bySite.set(name, (bySite.get(name) ?? 0) + node.selfSize);
      const pair = `${name} <- ${caller}`;
      byCaller.set(pair, (byCaller.get(pair) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, name);
  };
  walk(root, '(root)');
  const sorted = (m: Map<string, number>): [string, number][] => [...m].sort((a, b) => b[1] - a[1]);
  return { bySite: sorted(bySite), byCaller: sorted(byCaller), total };
}

export function allocationTable(rows: readonly [string, number][], total: number, limit: number, perUnit?: { count: number; unit: string }): string {
  const head = perUnit === undefined ? '| share | MiB | allocated by |\n| ---: | ---: | --- |' : `| share | MiB | bytes a ${perUnit.unit} | allocated by |\n| ---: | ---: | ---: | --- |`;
  const lines = rows.slice(0, limit).map(([name, bytes]) => {
    const share = `${((bytes / total) * 100).toFixed(1)}%`;
    const mib = (bytes / 2 ** 20).toFixed(1);
    return perUnit === undefined ? `| ${share} | ${mib} | \`${name}\` |` : `| ${share} | ${mib} | ${Math.round(bytes / perUnit.count)} | \`${name}\` |`;
  });
  return [head, ...lines].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, rows = '25'] = process.argv.slice(2);
  if (file === undefined) throw new Error('usage: allocation-sites.ts <file> [rows]');
  const { bySite, byCaller, total } = allocationSites(file);
  process.stdout.write(`${(total / 2 ** 20).toFixed(0)} MiB allocated (sampled)\n\n${allocationTable(bySite, total, Number(rows))}\n\n${allocationTable(byCaller, total, Number(rows))}\n`);
}
