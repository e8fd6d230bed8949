// Vitest setup file of both projects: the in-process loggers of a test file (src/telemetry/logger.ts)
// write to that file's log in the run's folder, not among the runner's results (test/support/test-logs.ts).
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { pino } from 'pino';
import { expect, vi } from 'vitest';
import { testLogFile } from './test-logs.js';

const runDir = process.env.TEST_LOG_DIR;
const testPath = expect.getState().testPath;
if (runDir !== undefined && testPath !== undefined) {
  const file = testLogFile(runDir, testPath);
  mkdirSync(dirname(file), { recursive: true });
  process.env.TEST_LOG_FILE = file;
}

vi.mock(import('../../src/telemetry/logger.js'), async (importOriginal) => {
  const real = await importOriginal();
  const file = process.env.TEST_LOG_FILE;
  if (file === undefined) return real;
  const root = real.createRootLogger(pino.destination({ dest: file, append: true, sync: true }));
  return { ...real, createLogger: (component: string) => root.child({ component }) };
});
