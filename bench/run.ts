// Benchmark runner: `npm run bench [-- <name>...]` runs bench/<name>.bench.ts (all when none is named) and writes bench/results.
import { readdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { markdownTable, targetsTable, writeResults, writeTargets, type MeasuredTarget } from './lib/report.js';
import type { BenchContext, BenchRun } from './lib/types.js';

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
/** BENCH_RESULTS_DIR writes a run's files elsewhere, e.g. a quick run that must not replace the committed results. */
const RESULTS_DIR = process.env.BENCH_RESULTS_DIR ?? join(BENCH_DIR, 'results');
const SUFFIX = '.bench.ts';

async function discover(): Promise<string[]> {
  const files = await readdir(BENCH_DIR);
  return files.filter((f) => f.endsWith(SUFFIX)).map((f) => f.slice(0, -SUFFIX.length)).sort();
}

async function runOne(name: string, targets: MeasuredTarget[]): Promise<boolean> {
  const started = Date.now();
  const ctx: BenchContext = {
    name,
    progress: (message) => process.stderr.write(`[${name} ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`),
  };
  try {
    const mod = (await import(pathToFileURL(join(BENCH_DIR, `${name}${SUFFIX}`)).href)) as { default?: unknown };
    if (typeof mod.default !== 'function') throw new Error(`bench/${name}${SUFFIX} has no default-exported run function.`);
    const report = await (mod.default as BenchRun)(ctx);
    const paths = await writeResults(RESULTS_DIR, name, report);
    process.stdout.write(`\n## ${report.title}\n\n${markdownTable(report)}\n\n`);
    for (const note of report.notes ?? []) process.stdout.write(`- ${note}\n`);
    for (const target of report.targets ?? []) targets.push({ ...target, bench: name });
    ctx.progress(`done; wrote ${paths.map((p) => relative(process.cwd(), p)).join(' and ')}`);
    return true;
  } catch (err) {
    process.stderr.write(`[${name}] failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return false;
  }
}

async function main(): Promise<number> {
  const available = await discover();
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !available.includes(w));
  if (unknown.length > 0) {
    process.stderr.write(`Unknown benchmark ${unknown.join(', ')}. Available: ${available.join(', ') || 'none'}.\n`);
    return 2;
  }
  let ok = true;
  const targets: MeasuredTarget[] = [];
  for (const name of wanted.length > 0 ? wanted : available) ok = (await runOne(name, targets)) && ok;
  if (targets.length > 0) {
    const file = await writeTargets(RESULTS_DIR, targets);
    process.stdout.write(`\n## Targets\n\n${targetsTable(targets)}\n\n(all targets, with earlier runs of the other benchmarks: ${relative(process.cwd(), file)})\n`);
  }
  return ok ? 0 : 1;
}

process.exitCode = await main();
