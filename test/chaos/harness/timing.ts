// Time helpers of the fault scenarios: sleeping, bounded waiting, a seeded random source and progress lines.

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** Polls `check` until it returns true; fails with `what` after the timeout, so no scenario can hang. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, everyMs = 250): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** The kill points and poison bytes are random but repeatable from the scenario's seed. */
export { seededRandom } from '../../../src/traffic/random.js';

export type Progress = (message: string) => void;

/** Progress lines on standard error, stamped with the seconds since the scenario started. */
export function progressLog(name: string, write: (line: string) => void = (l) => process.stderr.write(l)): Progress {
  const started = Date.now();
  return (message) => write(`[${name} ${((Date.now() - started) / 1000).toFixed(1)}s] ${message}\n`);
}
