// Turns a BenchReport into the files of bench/results: <name>.json for machines, <name>.md and <name>-<chart>.svg for people.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { pinnedKafkaVersion } from '../../src/kafka/broker-jars.js';
import { renderChart } from './svg-chart.js';
import type { BenchCell, BenchReport, BenchTarget } from './types.js';

export interface MachineInfo {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly platform: string;
  readonly arch: string;
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    platform: process.platform,
    arch: process.arch,
  };
}

export function columnsOf(report: BenchReport): readonly string[] {
  return report.columns ?? Object.keys(report.rows[0] ?? {});
}

/** Numbers get at most three significant decimals; large ones get thousands separators. */
export function formatCell(cell: BenchCell | undefined): string {
  if (cell === undefined || cell === null) return '';
  if (typeof cell === 'number') {
    if (!Number.isFinite(cell)) return String(cell);
    const abs = Math.abs(cell);
    const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
    return cell.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 });
  }
  return String(cell).replace(/\|/g, '\\|');
}

export function markdownTable(report: BenchReport): string {
  const columns = columnsOf(report);
  const lines = [`| ${columns.join(' | ')} |`, `| ${columns.map(() => '---').join(' | ')} |`];
  for (const row of report.rows) lines.push(`| ${columns.map((c) => formatCell(row[c])).join(' | ')} |`);
  return lines.join('\n');
}

/** The Kafka version a benchmark ran against, or undefined when it ran no broker. */
export function kafkaVersionOf(report: BenchReport): string | undefined {
  return report.usesKafka ? pinnedKafkaVersion() : undefined;
}

export function markdown(report: BenchReport, machine: MachineInfo, date: string, chartFiles: readonly string[] = []): string {
  const notes = (report.notes ?? []).map((n) => `- ${n}`);
  const kafka = kafkaVersionOf(report);
  const settings = Object.entries(report.settings ?? {}).map(([k, v]) => `\`${k}\` = ${formatCell(v)}`);
  return [
    `# ${report.title}`,
    '',
    `${date}, Node ${process.version}${kafka === undefined ? '' : `, Kafka ${kafka}`}, ${machine.cpu} (${machine.cores} cores, ${machine.memoryGiB} GiB), ${machine.platform}/${machine.arch}.`,
    '',
    ...(settings.length > 0 ? [`Settings: ${settings.join(', ')}.`, ''] : []),
    markdownTable(report),
    '',
    ...(notes.length > 0 ? [...notes, ''] : []),
    ...chartFiles.flatMap((file, i) => [`![${report.charts?.[i]?.title ?? file}](${file})`, '']),
  ].join('\n');
}

/** Writes <dir>/<name>.json, <dir>/<name>.md and one <dir>/<name>-<id>.svg per chart; returns their paths. */
export async function writeResults(dir: string, name: string, report: BenchReport): Promise<string[]> {
  const machine = machineInfo();
  const date = new Date().toISOString();
  await mkdir(dir, { recursive: true });
  const json = join(dir, `${name}.json`);
  const md = join(dir, `${name}.md`);
  const charts = (report.charts ?? []).map((c) => ({ chart: c, file: `${name}-${c.id}.svg` }));
  const data = {
    name,
    title: report.title,
    date,
    node: process.version,
    // The broker version the project pins, and whether this benchmark ran one.
    kafka: pinnedKafkaVersion(),
    kafkaUsed: report.usesKafka === true,
    machine,
    loadAverage1m: Math.round((loadavg()[0] ?? 0) * 100) / 100,
    settings: report.settings ?? {},
    columns: columnsOf(report),
    rows: report.rows,
    notes: report.notes ?? [],
    charts: charts.map((c) => c.file),
  };
  await writeFile(json, `${JSON.stringify(data, null, 2)}\n`);
  for (const { chart, file } of charts) await writeFile(join(dir, file), renderChart(chart));
  await writeFile(md, markdown(report, machine, date, charts.map((c) => c.file)));
  return [json, md, ...charts.map((c) => join(dir, c.file))];
}

/** A benchmark's targets, each tagged with the benchmark that measured it. */
export interface MeasuredTarget extends BenchTarget {
  readonly bench: string;
}

function metText(met: boolean | null): string {
  return met === null ? 'not measured' : met ? 'met' : '**missed**';
}

/** The targets of one `npm run bench` as a Markdown table, a row each, with met or missed and why. */
export function targetsTable(targets: readonly MeasuredTarget[]): string {
  const lines = ['| target | bound | figure | met? | benchmark | why (missed) |', '| --- | --- | --- | --- | --- | --- |'];
  const cell = (text: string | undefined): string => (text ?? '').replace(/\|/g, '\\|');
  for (const t of targets) lines.push(`| ${cell(t.name)} | ${cell(t.target)} | ${cell(t.figure)} | ${metText(t.met)} | ${t.bench} | ${cell(t.why)} |`);
  return lines.join('\n');
}

/**
 * Merges this run's targets into <dir>/targets.md and targets.json: a benchmark run now replaces its own
 * rows, the others' rows stay with the date they were measured, so one file lists every target.
 */
export async function writeTargets(dir: string, measured: readonly MeasuredTarget[]): Promise<string> {
  const json = join(dir, 'targets.json');
  let previous: (MeasuredTarget & { readonly date: string })[] = [];
  try {
    previous = (JSON.parse(await readFile(json, 'utf8')) as { targets: (MeasuredTarget & { date: string })[] }).targets;
  } catch {
    previous = [];
  }
  const date = new Date().toISOString();
  const ran = new Set(measured.map((t) => t.bench));
  const all = [...previous.filter((t) => !ran.has(t.bench)), ...measured.map((t) => ({ ...t, date }))];
  const machine = machineInfo();
  await writeFile(json, `${JSON.stringify({ machine, targets: all }, null, 2)}\n`);
  const met = all.filter((t) => t.met === true).length;
  const md = [
    '# Targets',
    '',
    `Every target a benchmark measures, from the latest run of each (\`npm run bench\` rewrites the rows of the benchmarks it ran). ${met} of ${all.length} met. ${machine.cpu} (${machine.cores} cores).`,
    '',
    targetsTable(all),
    '',
    `Measured: ${[...new Set(all.map((t) => `${t.bench} ${t.date.slice(0, 16).replace('T', ' ')} UTC`))].join('; ')}.`,
    '',
  ].join('\n');
  await writeFile(join(dir, 'targets.md'), md);
  return join(dir, 'targets.md');
}
