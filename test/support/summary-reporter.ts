// Prints one plain closing line, "tests: N passed, N failed, N skipped", after vitest's own summary;
// before it, the service's log of each test file that failed (test/support/test-logs.ts), and what
// the run left in the checkout, which counts as a failure (test/support/checkout-guard.ts).
import { existsSync, readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reporter, SerializedError, TestModule, TestRunEndReason } from 'vitest/node';
import { checkoutStatus, dirtiedBetween } from './checkout-guard.js';
import { pruneRunLogs, testLogFile } from './test-logs.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** A failed file's log is printed from here on: its last lines are the ones near the failure. */
const LOG_TAIL_LINES = 200;

export default class SummaryReporter implements Reporter {
  private checkoutBefore: Set<string> | null = null;

  onInit(): void {
    this.checkoutBefore = checkoutStatus(ROOT);
    pruneRunLogs();
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
  ): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (mod.state() === 'failed' && !mod.children.size) failed++;
      if (mod.state() === 'failed') printLog(mod.moduleId);
    }
    // A run that failed outside any test (a global setup that could not start the broker) is no pass.
    if (reason === 'failed' && failed === 0) failed = Math.max(1, unhandledErrors.length);
    const after = this.checkoutBefore === null ? null : checkoutStatus(ROOT);
    const dirtied = this.checkoutBefore === null || after === null ? [] : dirtiedBetween(this.checkoutBefore, after, process.env.CONSOLE_SCREENSHOTS);
    if (dirtied.length > 0) {
      failed++;
      process.exitCode = 1;
      process.stdout.write(
        `\nThe run left the checkout dirty (git status, new since it began):\n${dirtied.map((l) => `  ${l}`).join('\n')}\n` +
          'A test writes its output under an ignored folder (.local/); `npm run console:screenshots` alone refreshes docs/console/. ' +
          '(A file edited by hand during the run is listed too.)\n',
      );
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

function printLog(testPath: string): void {
  const runDir = process.env.TEST_LOG_DIR;
  if (runDir === undefined) return;
  const file = testLogFile(runDir, testPath);
  const name = relative(ROOT, file);
  if (!existsSync(file)) return;
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
  const shown = lines.slice(-LOG_TAIL_LINES);
  const head = shown.length < lines.length ? `its last ${shown.length} of ${lines.length} lines` : `${lines.length} line${lines.length === 1 ? '' : 's'}`;
  process.stdout.write(`\n${relative(ROOT, testPath)} failed; the service's log (${name}), ${head}:\n${shown.join('\n')}\n`);
}
