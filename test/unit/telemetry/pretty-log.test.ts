// Unit tests of the terminal log format: a person reads one short line per event, and the JSON format
// stays for everything that is not a terminal.
import { describe, expect, it } from 'vitest';
import { createRootLogger, logFormat } from '../../../src/telemetry/logger.js';
import { formatLogLine, prettyDestination } from '../../../src/telemetry/pretty-log.js';

const plain = { color: false };

function prettyLogger(level = 'info') {
  const out: string[] = [];
  const logger = createRootLogger(prettyDestination({ write: (s: string) => out.push(s) }, plain), level);
  return { logger, out };
}

describe('logFormat', () => {
  it('should be readable lines on a terminal and JSON lines on a pipe, a file or a container log', () => {
    expect(logFormat({}, { isTTY: true })).toBe('pretty');
    expect(logFormat({}, { isTTY: false })).toBe('json');
    expect(logFormat({}, {})).toBe('json');
  });

  it('should follow LOG_FORMAT over the terminal check', () => {
    expect(logFormat({ LOG_FORMAT: 'json' }, { isTTY: true })).toBe('json');
    expect(logFormat({ LOG_FORMAT: 'pretty' }, { isTTY: false })).toBe('pretty');
  });
});

describe('pretty log lines', () => {
  it('should print the time, the sentence and the fields on one line, with no level badge for info', () => {
    const { logger, out } = prettyLogger();
    logger.child({ component: 'config-log' }).info({ resources: 3, topic: 'edge.config' }, 'The config log is loaded.');
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^\d\d:\d\d:\d\d The config log is loaded\. {2}resources=3 topic=edge\.config\n$/);
  });

  it('should mark warnings and errors, and show an error message under a warning', () => {
    const { logger, out } = prettyLogger();
    logger.warn({ err: new Error('connect ECONNREFUSED 127.0.0.1:1') }, 'The destination failed.');
    expect(out[0]).toMatch(/^\d\d:\d\d:\d\d WARN The destination failed\.\n {2}connect ECONNREFUSED 127\.0\.0\.1:1\n$/);
  });

  it("should show an error's stack, indented under its line", () => {
    const { logger, out } = prettyLogger();
    logger.error({ err: new Error('boom') }, 'The service failed to start.');
    const lines = (out[0] as string).split('\n');
    expect(lines[0]).toMatch(/ ERROR The service failed to start\.$/);
    expect(lines[1]).toBe('  Error: boom');
    expect(lines[2]).toMatch(/^ +at /);
  });

  it('should quote values with spaces, write objects as JSON and cut very long values', () => {
    const line = formatLogLine(JSON.stringify({ level: 30, time: 0, msg: 'm', a: 'two words', b: { c: [1] }, d: 'x'.repeat(500) }), plain) as string;
    expect(line).toContain('a="two words" b={"c":[1]} d=');
    expect(line.endsWith(`${'x'.repeat(199)}…`)).toBe(true);
  });

  it('should still redact secrets, as the JSON format does', () => {
    const { logger, out } = prettyLogger();
    logger.info({ token: 'eek_secret', headers: { authorization: 'Bearer eek_secret' } }, 'A request.');
    expect(out.join('')).not.toContain('eek_secret');
  });

  it('should pass a line that is not JSON through unchanged and colour only when asked', () => {
    expect(formatLogLine('plain text\n', plain)).toBe('plain text');
    expect(formatLogLine(JSON.stringify({ level: 40, msg: 'w' }), { color: true })).toContain('\u001b[33mWARN\u001b[0m');
    expect(formatLogLine(JSON.stringify({ level: 40, msg: 'w' }), plain)).not.toContain('\u001b');
  });
});
