// The service's logs during a test run go to files, one per test file, in a folder per run under
// .local/test-logs/; the summary reporter prints a test file's log only when one of its tests failed.
// vitest.config.ts names the run's folder (TEST_LOG_DIR, inherited by the workers), log-setup.ts sends
// the in-process loggers of a test file there, and the service processes the tests start copy their
// lines there too (service-process.ts, process-group.ts).
import { appendFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The folder of runs' logs; ignored by git with the rest of .local/. */
export const TEST_LOGS_ROOT = join(ROOT, '.local', 'test-logs');

/** A new run's folder, named by its start time (so runs sort), e.g. .local/test-logs/2026-12-02T03-40-01Z. */
export function newRunLogDir(now = new Date()): string {
  return join(TEST_LOGS_ROOT, now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-'));
}

/** The log file of one test file in a run's folder: its path from the checkout, slashes as "__". */
export function testLogFile(runDir: string, testPath: string): string {
  return join(runDir, `${relative(ROOT, testPath).replace(/[\\/]/g, '__')}.log`);
}

/** The current test file's log (set by log-setup.ts in the worker), or undefined outside the suite. */
export function currentTestLog(): string | undefined {
  return process.env.TEST_LOG_FILE;
}

/** Appends a child process's lines to the current test file's log, each with the name of who wrote it. */
export function copyToTestLog(source: string): (line: string) => void {
  const file = currentTestLog();
  if (file === undefined) return () => undefined;
  mkdirSync(join(file, '..'), { recursive: true });
  return (line) => appendFileSync(file, `${source}: ${line}\n`);
}

/** Runs' folders kept: the newest ones; older ones are removed when a run begins. */
export const KEPT_RUNS = 10;

/** Removes all but the newest KEPT_RUNS run folders (their names sort by start time). */
export function pruneRunLogs(root = TEST_LOGS_ROOT, keep = KEPT_RUNS): void {
  if (!existsSync(root)) return;
  const runs = readdirSync(root).sort();
  for (const old of runs.slice(0, Math.max(0, runs.length - keep))) rmSync(join(root, old), { recursive: true, force: true });
}
