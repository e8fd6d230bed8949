import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateSource } from '../../../src/admin/event-subscriptions/source-input.js';
import { UsageError } from '../../../src/cli/command.js';
import { runCli } from '../../../src/cli/main.js';
import { parseTapArgs, refusal } from '../../../src/cli/tap-command.js';

const env = { EDGE_EVENTS_TOKEN: 'tok', EDGE_EVENTS_URL: 'http://api.test:9000/' };

describe('edge-events tap arguments', () => {
  it("should tap a subscription by id with the given limits, at the API from the environment", () => {
    expect(parseTapArgs(['esb_1', '--limit', '5', '--seconds', '10'], env)).toEqual({ url: 'http://api.test:9000', token: 'tok', path: '/event_subscriptions/esb_1/tap?seconds=10&limit=5', body: undefined });
  });

  it('should tap an unsaved source from --type, --fields and --filter', () => {
    const o = parseTapArgs(['--type', 'tcp_connection_closed.v0', '--fields', 'conn.client_ip, conn.bytes_in', '--filter', 'ev.conn.server_port == 443'], env);
    expect(o.path).toBe('/tap');
    expect(o.body).toEqual({ type: 'tcp_connection_closed.v0', fields: ['conn.client_ip', 'conn.bytes_in'], filter: 'ev.conn.server_port == 443' });
  });

  it('should refuse both an id and --type, neither, a limit out of range, and no token to be found', () => {
    expect(() => parseTapArgs(['esb_1', '--type', 'x'], env)).toThrow(UsageError);
    expect(() => parseTapArgs([], env)).toThrow(UsageError);
    expect(() => parseTapArgs(['esb_1', '--limit', '10001'], env)).toThrow(/--limit must be a whole number from 1 to 10000/);
    expect(() => parseTapArgs(['esb_1'], { API_TOKEN_FILE: '/nonexistent/token' })).toThrow(/no token/);
  });
});

describe('edge-events tap refusals', () => {
  it('should draw a refused filter as `edge-events filter` does, a caret under each column the API reports, never its raw JSON', () => {
    const body = { type: 'tcp_connection_closed.v0', fields: ['conn.client_ip'], filter: 'ev.conn.server_port == 443 &&\n  ev.conn.nope == = 1' };
    // The API's own answer to that source (the tap route validates it so).
    const checked = validateSource(body);
    if (checked.ok) throw new Error('the source was accepted');
    const answer = checked.error.toBody();
    const problems = answer.details.problems as { line: number; column: number }[];
    const out = refusal(400, JSON.stringify(answer), body);
    expect(out).not.toContain('"error_code"');
    const lines = out.split('\n');
    for (const p of problems) {
      const at = lines.findIndex((l) => l.startsWith(`expr:${p.line}:${p.column}: `));
      expect(at, out).toBeGreaterThanOrEqual(0);
      expect(lines[at + 1]).toBe(`  ${body.filter.split('\n')[p.line - 1]}`);
      expect(lines[at + 2]).toBe(`  ${' '.repeat(p.column - 1)}^`);
    }
    expect(out).toContain(`the filter is invalid (${problems.length} problem`);
  });

  it("should give any other refusal in the API's sentence, and a body that is not the API's as it came", () => {
    expect(refusal(404, JSON.stringify({ error_code: 'not_found', status_code: 404, msg: 'There is no event subscription with id esb_1.', details: {} }), undefined)).toBe(
      'edge-events tap: There is no event subscription with id esb_1. (404 not_found)\n',
    );
    expect(refusal(502, 'Bad Gateway', undefined)).toBe('edge-events tap: the API answered 502: Bad Gateway\n');
  });
});

describe('edge-events --version', () => {
  it("should print the package's version and exit 0", async () => {
    const out: string[] = [];
    const io = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => out.push(s) } };
    expect(await runCli(['--version'], io as never)).toBe(0);
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(out.join('')).toBe(`edge-events ${pkg.version}\n`);
  });
});
