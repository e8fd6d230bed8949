// Runs schemathesis (Python, pinned in test/requirements.txt) against a running service: the fuzzer reads the
// OpenAPI document and checks every response against it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The version test/requirements.txt pins; the fuzz test refuses to run with none. */
export const SCHEMATHESIS_VERSION = '4.32.5';

/** The checks of the issue: no 5xx, and nothing the OpenAPI document does not describe. */
export const CHECKS = ['not_a_server_error', 'response_schema_conformance', 'status_code_conformance', 'content_type_conformance'];

export function schemathesisVersion(): string {
  const r = spawnSync('schemathesis', ['--version'], { encoding: 'utf8' });
  if (r.error !== undefined || r.status !== 0) {
    throw new Error(
      `schemathesis is not installed (${r.error?.message ?? r.stderr.trim()}); the API fuzz test needs it: ` +
        `python3 -m pip install -r test/requirements.txt (schemathesis==${SCHEMATHESIS_VERSION}; .ci/run does this).`,
    );
  }
  return r.stdout.trim();
}

export interface FuzzOptions {
  readonly url: string;
  readonly token: string;
  readonly maxExamples: number;
  readonly seed: number;
  /** Operations whose path matches are left out. */
  readonly excludePathRegex?: string;
  readonly timeoutMs: number;
}

export interface FuzzResult {
  readonly code: number | null;
  readonly output: string;
}

export function runSchemathesis(o: FuzzOptions): Promise<FuzzResult> {
  const args = [
    'run',
    `${o.url}/openapi.json`,
    '--url',
    o.url,
    '--header',
    `Authorization: Bearer ${o.token}`,
    '--checks',
    CHECKS.join(','),
    '--phases',
    'examples,coverage,fuzzing',
    '--max-examples',
    String(o.maxExamples),
    '--seed',
    String(o.seed),
    '--workers',
    '1',
    '--request-timeout',
    '10',
    '--suppress-health-check',
    'all',
    // The token is ours; the sanitizer would only hide which header a failing request sent.
    '--output-sanitize',
    'false',
    ...(o.excludePathRegex !== undefined ? ['--exclude-path-regex', o.excludePathRegex] : []),
  ];
  return new Promise((resolve, reject) => {
    // In a folder of its own: schemathesis and hypothesis leave their databases in the working directory.
    const cwd = mkdtempSync(join(tmpdir(), 'edge-fuzz-'));
    const child = spawn('schemathesis', args, { cwd, env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_HOOKS: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`schemathesis did not finish within ${o.timeoutMs} ms:\n${output.slice(-4000)}`));
    }, o.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
