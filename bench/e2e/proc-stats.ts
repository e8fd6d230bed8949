// CPU time and memory of a child process from /proc (Linux): what a benchmark reports as the worker's CPU and peak RSS.
import { readFileSync } from 'node:fs';

export interface ProcSample {
  /** User + system CPU seconds since the process started. */
  readonly cpuSeconds: number;
  /** Resident set size now, in MiB. */
  readonly rssMiB: number;
  /** Peak resident set size (VmHWM), in MiB. */
  readonly peakRssMiB: number;
  readonly at: number;
}

// proc(5): utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (USER_HZ, 100 on Linux).
const TICKS_PER_SECOND = 100;

function statusKiB(status: string, key: string): number {
  const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status);
  return m === null ? Number.NaN : Number(m[1]);
}

/** A sample of the process, or undefined when it has exited or /proc is unavailable; an exited process not yet reaped has CPU times and NaN memory. */
export function sampleProcess(pid: number): ProcSample | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after it start behind the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return {
      cpuSeconds: ticks / TICKS_PER_SECOND,
      rssMiB: statusKiB(status, 'VmRSS') / 1024,
      peakRssMiB: statusKiB(status, 'VmHWM') / 1024,
      at: performance.now(),
    };
  } catch {
    return undefined;
  }
}
