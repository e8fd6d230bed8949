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
  /** The targets this benchmark measures; `npm run bench` prints them all in one table (bench/results/targets.md). */
  readonly targets?: readonly BenchTarget[];
}

/** One target with the figure a run measured for it. */
export interface BenchTarget {
  /** What is measured, e.g. "hot path, 100 subscriptions (47% matched), records/s a core". */
  readonly name: string;
  /** The bound as people read it, e.g. ">= 500,000" or ">= 0.9x Avro". */
  readonly target: string;
  /** The measured figure as people read it, e.g. "315,743" or "0.52x (18,203 against 35,014 records/s)". */
  readonly figure: string;
  /** Whether the figure meets the target; null when this run could not measure it (say why in `why`). */
  readonly met: boolean | null;
  /** For a missed or unmeasured target: why, from a profile, and what would close it (a short sentence or a PROFILE.md section). */
  readonly why?: string;
}

export interface BenchContext {
  /** The benchmark's name: the file name without ".bench.ts". */
  readonly name: string;
  /** Reports progress on stderr (not into the results). */
  progress(message: string): void;
}

export type BenchRun = (ctx: BenchContext) => Promise<BenchReport>;
