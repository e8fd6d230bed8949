// Samples a process's memory while something else runs, and fits a line to the samples to tell a leak from a plateau.
import { sampleProcess, type ProcSample } from './proc-stats.js';

export interface MemorySeries {
  /** Seconds since sampling started, and RSS in MiB. */
  readonly points: readonly (readonly [number, number])[];
  readonly peakRssMiB: number;
}

export class MemorySampler {
  private readonly points: [number, number][] = [];
  private peak = 0;
  private readonly timer: NodeJS.Timeout;
  /** When sampling started, in performance.now() milliseconds: the points' clock. */
  readonly started = performance.now();

  constructor(
    private readonly pid: number,
    everyMs = 1_000,
  ) {
    this.timer = setInterval(() => this.take(), everyMs);
    this.take();
  }

  private take(): ProcSample | undefined {
    const s = sampleProcess(this.pid);
    if (s !== undefined && Number.isFinite(s.rssMiB)) {
      this.points.push([(s.at - this.started) / 1000, s.rssMiB]);
      this.peak = Math.max(this.peak, s.peakRssMiB);
    }
    return s;
  }

  stop(): MemorySeries {
    clearInterval(this.timer);
    this.take();
    return { points: this.points, peakRssMiB: this.peak };
  }
}

/** Least-squares slope of y over x (MiB per second for a memory series). */
export function slope(points: readonly (readonly [number, number])[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  let sx = 0;
  let sy = 0;
  for (const [x, y] of points) {
    sx += x;
    sy += y;
  }
  const mx = sx / n;
  const my = sy / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? Number.NaN : num / den;
}
