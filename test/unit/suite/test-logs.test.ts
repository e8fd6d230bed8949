// The suite's own habit (test/support/test-logs.ts): the service's logs during a test go to the test
// file's log in the run's folder, which the summary reporter prints when the file fails; not to the runner's output.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/telemetry/logger.js';
import { currentTestLog, newRunLogDir, pruneRunLogs, testLogFile } from '../../support/test-logs.js';

describe("the suite's service logs", () => {
  it("should write a component's log lines to this test file's log, in the run's folder", () => {
    const file = currentTestLog();
    expect(file).toBe(testLogFile(String(process.env.TEST_LOG_DIR), new URL(import.meta.url).pathname));
    const marker = `marker ${randomUUID()}`;
    createLogger('suite').warn({ marker }, 'A line for the test log.');
    const lines = readFileSync(String(file), 'utf8').split('\n').filter((l) => l.includes(marker));
    expect(lines.map((l) => (JSON.parse(l) as { component: string }).component)).toEqual(['suite']);
  });

  it('should keep the newest runs only, by their start times', () => {
    const root = mkdtempSync(join(tmpdir(), 'test-logs-'));
    const names = [0, 1, 2, 3].map((m) => newRunLogDir(new Date(Date.UTC(2026, 11, 2, 3, m))).split('/').pop() as string);
    for (const n of [...names].reverse()) mkdirSync(join(root, n));
    pruneRunLogs(root, 2);
    expect(readdirSync(root).sort()).toEqual(names.slice(2));
    rmSync(root, { recursive: true, force: true });
  });
});
