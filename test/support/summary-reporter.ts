// Prints one plain closing line, "tests: N passed, N failed, N skipped", after vitest's own summary.
import type { Reporter, SerializedError, TestModule, TestRunEndReason } from 'vitest/node';

export default class SummaryReporter implements Reporter {
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
    }
    // A run that failed outside any test (a global setup that could not start the broker) is no pass.
    if (reason === 'failed' && failed === 0) failed = Math.max(1, unhandledErrors.length);
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
