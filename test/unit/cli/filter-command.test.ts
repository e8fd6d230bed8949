// Tests of `edge-events filter`, run as a real child process through the bin launcher.
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'edge-events.js');

interface Outcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: readonly string[], stdin = ''): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

const cli = (args: readonly string[], stdin = ''): Promise<Outcome> => run(process.execPath, [BIN, ...args], stdin);
const filter = (args: readonly string[], stdin = ''): Promise<Outcome> => cli(['filter', ...args], stdin);

const rec = (port: number, clientIp: string, name = 'a.example.com'): string =>
  JSON.stringify({ conn: { client_ip: clientIp, server_ip: '10.0.0.1', server_name: name, server_port: port } });

const RECORDS = [rec(443, '10.1.2.3'), rec(80, '10.1.2.3'), rec(443, '192.168.0.1'), rec(443, '10.9.9.9', 'b.example.org')];
const TYPE = ['--type', 'tcp_connection_closed.v0'];

// Each case starts a Node process (and the npx case npm too), which takes seconds on a busy machine.
describe('edge-events filter', { timeout: 60_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'edge-events-cli-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('should write the matching records from stdin as NDJSON, unchanged and in order', async () => {
    const out = await filter([...TYPE, '--expr', 'ev.conn.server_port == 443 && ev.conn.client_ip.startsWith("10.")'], `${RECORDS.join('\n')}\n`);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(`${RECORDS[0]}\n${RECORDS[3]}\n`);
  });

  it('should count the matches in a file with --count', async () => {
    const file = join(dir, 'records.ndjson');
    await writeFile(file, `${RECORDS.join('\r\n')}\r\n`);
    const out = await filter([...TYPE, '--count', '--expr', 'cidr("10.0.0.0/8").containsIP(ev.conn.client_ip)', file]);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe('3\n');
  });

  it('should report a malformed line with its number, skip it and go on', async () => {
    const input = [RECORDS[0], '{"conn": ', '[1, 2]', RECORDS[3]].join('\n');
    const out = await filter([...TYPE, '--expr', 'ev.conn.server_port == 443'], input);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(`${RECORDS[0]}\n${RECORDS[3]}\n`);
    expect(out.stderr).toMatch(/^line 2: skipped, not valid JSON/m);
    expect(out.stderr).toMatch(/^line 3: skipped, a record must be a JSON object/m);
    expect(out.stderr).toMatch(/^2 malformed lines skipped\.$/m);
  });

  it('should exit with 2 and print every problem of an invalid filter with its line and column', async () => {
    const expr = 'ev.conn.client_port == 1 &&\n  ev.conn.server_port == "443"';
    const out = await filter([...TYPE, '--expr', expr], `${RECORDS[0]}\n`);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(/^expr:1:\d+: .*client_port/m);
    expect(out.stderr).toMatch(/^expr:2:\d+: /m);
    expect(out.stderr).toMatch(/the filter is invalid \(2 problems\)/);
  });

  it.each([
    [['--expr', 'true'], /--type is required/],
    [[...TYPE], /--expr is required/],
    [[...TYPE, '--expr', 'true', '--bogus'], /Unknown option '--bogus'/],
    [['--type', 'api_key_created.v0', '--expr', 'true'], /not a traffic event type/],
    [[...TYPE, '--expr', 'true', 'a', 'b'], /at most one input file/],
  ])('should print the usage and exit with 2 for bad usage %j', async (args, message) => {
    const out = await filter(args);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(message);
    expect(out.stderr).toContain('Usage: edge-events filter');
  });

  it('should exit with 2 for an unknown command and with 1 for an unreadable file', async () => {
    const unknown = await cli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const missing = await filter([...TYPE, '--expr', 'true', join(dir, 'nope.ndjson')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read');
  });

  it('should run through npx from the repository root', async () => {
    const out = await run('npx', ['--no-install', 'edge-events', 'filter', ...TYPE, '--count', '--expr', 'ev.conn.server_port == 80'], `${RECORDS.join('\n')}\n`);
    expect(out.code).toBe(0);
    expect(out.stdout).toBe('1\n');
  });
});
