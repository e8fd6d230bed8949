// Test configuration: unit tests run without a broker; integration tests share one broker and one AWS
// emulator that the global setups start on free ports and stop afterwards.
import { defineConfig } from 'vitest/config';
import { newRunLogDir } from './test/support/test-logs.js';

// The run's folder for the service's logs, which the workers inherit (test/support/test-logs.ts).
process.env.TEST_LOG_DIR ??= newRunLogDir();

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/unit/**/*.test.ts'],
          setupFiles: ['./test/support/log-setup.ts'],
          testTimeout: 30_000,
          // The integration project's figure: projects that run side by side must have the same.
          maxWorkers: 2,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          setupFiles: ['./test/support/log-setup.ts'],
          globalSetup: ['./test/support/kafka-global-setup.ts', './test/support/moto-global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          // Two files at a time: most of an integration test's time is waiting on the broker, timers and
          // child processes, and each file makes its own topics, groups, services and brokers.
          maxWorkers: 2,
        },
      },
    ],
  },
});
