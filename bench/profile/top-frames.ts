// Summarizes a V8 .cpuprofile (from node --cpu-prof): the functions with the most self time, as a Markdown table.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly hitCount?: number;
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

export interface Frame {
  readonly name: string;
  readonly where: string;
  readonly selfMs: number;
  readonly selfShare: number;
}

function where(url: string, line: number): string {
  if (url === '') return '(native)';
  const path = url.startsWith('file://') ? new URL(url).pathname : url;
  const rel = relative(process.cwd(), path);
  return `${rel.includes('node_modules') ? rel.slice(rel.lastIndexOf('node_modules/') + 13) : rel}:${line + 1}`;
}

/** Self time per function (frames of the same function and place are added up), largest first. */
export function topFrames(file: string, limit = 15, exclude: readonly string[] = ['(idle)', '(program)']): Frame[] {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  const samples = p.samples ?? [];
  const deltas = p.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) selfUs.set(samples[i] as number, (selfUs.get(samples[i] as number) ?? 0) + (deltas[i] ?? 0));
  const totals = new Map<string, { name: string; where: string; us: number }>();
  let all = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (node === undefined) continue;
    const name = node.callFrame.functionName || '(anonymous)';
    if (exclude.includes(name)) continue;
    all += us;
    const w = where(node.callFrame.url, node.callFrame.lineNumber);
    const key = `${name}@${w}`;
    const t = totals.get(key) ?? { name, where: w, us: 0 };
    t.us += us;
    totals.set(key, t);
  }
  return [...totals.values()]
    .sort((a, b) => b.us - a.us)
    .slice(0, limit)
    .map((t) => ({ name: t.name, where: t.where, selfMs: Math.round(t.us / 1000), selfShare: all > 0 ? t.us / all : 0 }));
}

export function framesTable(frames: readonly Frame[]): string {
  return [
    '| self % | self ms | function | where |',
    '| ---: | ---: | --- | --- |',
    ...frames.map((f) => `| ${(f.selfShare * 100).toFixed(1)} | ${f.selfMs} | \`${f.name}\` | ${f.where} |`),
  ].join('\n');
}

/** Self time grouped by where the code lives: a package, a src/ folder, node internals, native, GC. */
export function selfTimeByArea(file: string): { area: string; share: number }[] {
  const frames = topFrames(file, Number.MAX_SAFE_INTEGER);
  const areas = new Map<string, number>();
  for (const f of frames) {
    let area: string;
    if (f.name === '(garbage collector)') area = 'garbage collector';
    else if (f.where === '(native)') area = 'native (Buffer, crypto, JSON, ...)';
    else if (f.where.startsWith('node:')) area = 'node internals';
    else if (f.where.startsWith('src/') || f.where.startsWith('bench/')) area = f.where.split('/').slice(0, 2).join('/');
    else area = f.where.split('/')[0]?.startsWith('@') ? f.where.split('/').slice(0, 2).join('/') : (f.where.split('/')[0] ?? f.where);
    areas.set(area, (areas.get(area) ?? 0) + f.selfShare);
  }
  return [...areas].map(([area, share]) => ({ area, share })).sort((a, b) => b.share - a.share);
}

export function areasTable(rows: readonly { area: string; share: number }[], limit = 12): string {
  return ['| self % | area |', '| ---: | --- |', ...rows.slice(0, limit).map((r) => `| ${(r.share * 100).toFixed(1)} | ${r.area} |`)].join('\n');
}

/** A part of the work, told by a frame on the stack: a function name (or any) in a file whose path contains `file`. */
export interface PartRule {
  readonly part: string;
  readonly file: string;
  readonly fn?: RegExp;
}

/**
 * Every sample counted once, for the innermost frame on its stack that a rule names (a frame matching no
 * rule counts for the nearest caller that does): so a record parsed inside a socket read counts for the
 * parsing, and a handler the parser called counts for the handler. Garbage collection is its own part;
 * samples no rule claims are "the rest".
 */
export function partShares(file: string, rules: readonly PartRule[]): { part: string; share: number }[] {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const partOf = new Map<number, string | null>();
  const classify = (id: number): string | null => {
    const known = partOf.get(id);
    if (known !== undefined) return known;
    const n = byId.get(id);
    let part: string | null = null;
    if (n !== undefined) {
      const { functionName, url } = n.callFrame;
      if (functionName === '(garbage collector)') part = 'garbage collection';
      else if (functionName === '(idle)' || functionName === '(program)') part = null;
      else {
        const rule = rules.find((r) => url.includes(r.file) && (r.fn === undefined || r.fn.test(functionName)));
        const up = parent.get(id);
        part = rule?.part ?? (up === undefined ? 'the rest' : classify(up));
      }
    }
    partOf.set(id, part);
    return part;
  };
  const us = new Map<string, number>();
  let all = 0;
  const samples = p.samples ?? [];
  const deltas = p.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    const part = classify(samples[i] as number);
    if (part === null) continue;
    const d = deltas[i] ?? 0;
    us.set(part, (us.get(part) ?? 0) + d);
    all += d;
  }
  return [...us].map(([part, t]) => ({ part, share: all > 0 ? t / all : 0 })).sort((a, b) => b.share - a.share);
}

/** The parts' shares of the whole profile, and of its time after start-up (the parts named "start-up ..." left out). */
export function partsTable(rows: readonly { part: string; share: number }[]): string {
  const running = rows.filter((r) => !r.part.startsWith('start-up')).reduce((sum, r) => sum + r.share, 0);
  const after = (r: { part: string; share: number }): string => (r.part.startsWith('start-up') || running === 0 ? '' : ((r.share / running) * 100).toFixed(1));
  return ['| % | % after start-up | part |', '| ---: | ---: | --- |', ...rows.map((r) => `| ${(r.share * 100).toFixed(1)} | ${after(r)} | ${r.part} |`)].join('\n');
}
