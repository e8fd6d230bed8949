// Timing helpers for benchmarks: a calibrated loop over rotating inputs, warm-up, and the median of several runs.

export interface MeasureOptions {
  /** Runs whose median is reported. */
  readonly runs: number;
  /** Target duration of one run, in milliseconds. */
  readonly runMs: number;
  /** Warm-up before the first run (lets the JIT optimise the code under test). */
  readonly warmupMs: number;
}

export const DEFAULT_MEASURE: MeasureOptions = { runs: 7, runMs: 150, warmupMs: 300 };

export interface Measurement {
  /** Median CPU nanoseconds per call: the process's user+system time, which other processes on a busy machine do not inflate. */
  readonly nsPerOp: number;
  /** Median wall-clock nanoseconds per call. */
  readonly wallNsPerOp: number;
  readonly minNsPerOp: number;
  readonly maxNsPerOp: number;
  readonly runs: number;
  readonly opsPerRun: number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length === 0) return NaN;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

// Results are folded into a module-level sink so the JIT cannot drop the calls as dead code.
let sink = 0;
export function consumeSink(): number {
  return sink;
}

interface Elapsed {
  readonly cpuNs: number;
  readonly wallNs: number;
}

/** Calls `fn` `n` times over `inputs` in rotation (inputs.length must be a power of two). */
function loop<T>(fn: (input: T) => unknown, inputs: readonly T[], n: number): Elapsed {
  const mask = inputs.length - 1;
  let acc = 0;
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    if (fn(inputs[i & mask] as T)) acc++;
  }
  const wallNs = Number(process.hrtime.bigint() - start);
  const used = process.cpuUsage(cpu);
  sink += acc;
  return { cpuNs: (used.user + used.system) * 1000, wallNs };
}

/**
 * Nanoseconds per call of `fn`. Each benchmark subject should run in its own process (see
 * isolate.ts) so that this loop's call site stays monomorphic and one subject's garbage does not
 * slow the next.
 */
export function measure<T>(fn: (input: T) => unknown, inputs: readonly T[], options: MeasureOptions = DEFAULT_MEASURE): Measurement {
  if (inputs.length === 0 || (inputs.length & (inputs.length - 1)) !== 0) {
    throw new Error('measure() needs a power-of-two number of inputs.');
  }
  // Calibrate: grow n until one loop takes about a tenth of a run, warming up on the way.
  let n = 64;
  const warmupEnd = Date.now() + options.warmupMs;
  let ns = loop(fn, inputs, n).cpuNs;
  while (ns < options.runMs * 1e5 || Date.now() < warmupEnd) {
    if (ns < options.runMs * 1e5) n *= 2;
    ns = loop(fn, inputs, n).cpuNs;
  }
  const opsPerRun = Math.max(1, Math.round((n * options.runMs * 1e6) / Math.max(ns, 1)));
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let r = 0; r < options.runs; r++) {
    const e = loop(fn, inputs, opsPerRun);
    cpu.push(e.cpuNs / opsPerRun);
    wall.push(e.wallNs / opsPerRun);
  }
  return {
    nsPerOp: median(cpu),
    wallNsPerOp: median(wall),
    minNsPerOp: Math.min(...cpu),
    maxNsPerOp: Math.max(...cpu),
    runs: options.runs,
    opsPerRun,
  };
}
