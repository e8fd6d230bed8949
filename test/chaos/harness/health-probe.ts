// Polls a service's /healthz the whole time a scenario runs, one request after another, and keeps how long
// each answer took; and reads /metrics now and then for the process's heap. A worker whose event loop is
// held answers late or not at all, which is what these figures show.
import { sleep } from './timing.js';

export interface ProbeFigures {
  readonly polls: number;
  readonly slowestMs: number;
  /** Polls answered later than the bound, or not with 200 (a timeout counts). */
  readonly late: number;
  readonly p99Ms: number;
  /** The most nodejs_heap_size_used_bytes any /metrics read showed, in MB. */
  readonly mostHeapMb: number;
}

export class HealthProbe {
  private readonly durations: number[] = [];
  private late = 0;
  private mostHeap = 0;
  private stopped = false;
  private running: Promise<void> | undefined;

  /** `boundMs`: the slowest an answer may be; a request still unanswered at twice that is given up as late. */
  constructor(
    private readonly url: string,
    private readonly boundMs = 1_000,
    private readonly everyMs = 200,
  ) {}

  start(): void {
    this.running = this.loop();
  }

  /** Stops polling and returns the figures so far. */
  async stop(): Promise<ProbeFigures> {
    this.stopped = true;
    await this.running;
    return this.figures();
  }

  figures(): ProbeFigures {
    const sorted = [...this.durations].sort((a, b) => a - b);
    return {
      polls: sorted.length,
      slowestMs: sorted.at(-1) ?? 0,
      late: this.late,
      p99Ms: sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? 0,
      mostHeapMb: this.mostHeap / 1e6,
    };
  }

  private async loop(): Promise<void> {
    for (let n = 0; !this.stopped; n++) {
      const started = performance.now();
      let ok = false;
      try {
        const res = await fetch(`${this.url}/healthz`, { signal: AbortSignal.timeout(2 * this.boundMs) });
        await res.text();
        ok = res.status === 200;
      } catch {
        ok = false;
      }
      const ms = performance.now() - started;
      this.durations.push(ms);
      if (!ok || ms > this.boundMs) this.late++;
      if (n % 10 === 0) await this.readHeap();
      await sleep(this.everyMs);
    }
  }

  /** The process's CPU seconds so far (process_cpu_seconds_total), or NaN when /metrics does not answer. */
  async cpuSeconds(): Promise<number> {
    try {
      const text = await (await fetch(`${this.url}/metrics`, { signal: AbortSignal.timeout(5 * this.boundMs) })).text();
      return Number(/^process_cpu_seconds_total (\S+)$/m.exec(text)?.[1] ?? Number.NaN);
    } catch {
      return Number.NaN;
    }
  }

  private async readHeap(): Promise<void> {
    try {
      const text = await (await fetch(`${this.url}/metrics`, { signal: AbortSignal.timeout(2 * this.boundMs) })).text();
      const m = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(text);
      if (m !== null) this.mostHeap = Math.max(this.mostHeap, Number(m[1]));
    } catch {
      // A /metrics read that failed is not a health poll; the polls count the lateness.
    }
  }
}
