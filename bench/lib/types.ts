// The contract between the benchmark runner (bench/run.ts) and each bench/<name>.bench.ts file.
//
// A benchmark file default-exports `run`:
//
//   export default async function run(ctx: BenchContext): Promise<BenchReport> { ... }
//
// The runner discovers bench/*.bench.ts, calls `run`, prints the table, and writes
// bench/results/<name>.json (machine, Node and Kafka versions, date, rows), bench/results/<name>.md and its SVG charts.

import type { Chart } from './svg-chart.js';

/** One table cell: numbers are written as they are in JSON and formatted for Markdown. */
export type BenchCell = string | number | boolean | null;

/** One table row, keyed by column name. */
export type BenchRow = Readonly<Record<string, BenchCell>>;

export interface BenchReport {
  /** A heading for the Markdown file, e.g. "CEL filter evaluation". */
  readonly title: string;
  /** Column order; when omitted, the keys of the first row in their order. */
  readonly columns?: readonly string[];
  readonly rows: readonly BenchRow[];
  /** Sentences printed under the table: method, targets met or missed, caveats. */
  readonly notes?: readonly string[];
  /** Charts written as bench/results/<name>-<id>.svg and shown in the Markdown file. */
  readonly charts?: readonly Chart[];
  /** True when the benchmark ran a Kafka broker; the results then name its version. */
  readonly usesKafka?: boolean;
  /** Settings of the run worth keeping beside the figures (record counts, durations, JVM flags). */
  readonly settings?: Readonly<Record<string, BenchCell>>;
}

export interface BenchContext {
  /** The benchmark's name: the file name without ".bench.ts". */
  readonly name: string;
  /** Reports progress on stderr (not into the results). */
  progress(message: string): void;
}

export type BenchRun = (ctx: BenchContext) => Promise<BenchReport>;
