// Test configuration: unit tests run without a broker; integration tests share one broker and one AWS
// emulator that the global setups start on free ports and stop afterwards.
import { defineConfig } from 'vitest/config';

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
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          globalSetup: ['./test/support/kafka-global-setup.ts', './test/support/moto-global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
