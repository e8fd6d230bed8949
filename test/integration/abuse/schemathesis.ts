// Runs schemathesis (Python, pinned in test/requirements.txt) against a running service: the fuzzer reads the
// OpenAPI document, generates requests from it in every phase, and applies every check it has. It reads the
// repository's schemathesis.toml (the hooks and settings RELIABILITY.md "API abuse" describes), and writes its
// JSON report to a folder of its own, where the figures are read from.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The version test/requirements.txt pins; the fuzz test refuses to run with none. */
export const SCHEMATHESIS_VERSION = '4.32.5';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CONFIG_FILE = join(ROOT, 'schemathesis.toml');

export const PHASES = ['examples', 'coverage', 'fuzzing', 'stateful'] as const;

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

/** Who the requests of one run come from: a name for the summary and the Authorization header it sends. */
export interface FuzzIdentity {
  readonly name: string;
  readonly authorization: string;
}

export interface FuzzOptions {
  readonly url: string;
  /** One run per identity, each of another account (a second account's key is one more entry). */
  readonly identities: readonly FuzzIdentity[];
  /**
   * Identities that must not see each other's objects: one more run acts as each of them (schemathesis's
   * `[auth.wfc]` document of users, with `peers`), so `object_level_authorization` replays each one's
   * reads of its own objects as the others and fails when one gets them.
   */
  readonly peers?: readonly FuzzIdentity[];
  readonly maxExamples: number;
  readonly seed: number;
  /** Operations whose path matches are left out. */
  readonly excludePathRegex?: string;
  /** The time one run may take before it is killed and the test fails. */
  readonly timeoutMs: number;
}

/** What the JSON report of a run says (the parts the test reads). */
export interface FuzzReport {
  readonly running_time: number;
  readonly exit_code: number;
  readonly operations: { readonly selected: number; readonly tested: number; readonly errored: number };
  readonly phases: Readonly<Record<string, { readonly status: string }>>;
  readonly test_cases: { readonly generated: number; readonly with_failures: number; readonly errored: number };
  readonly failures: readonly { readonly code: string; readonly title: string; readonly count: number; readonly operations: readonly string[] }[];
  readonly errors: readonly { readonly title: string; readonly count: number }[];
}

export interface FuzzRun {
  readonly identity: string;
  readonly code: number | null;
  readonly output: string;
  readonly report: FuzzReport;
}

/**
 * Runs schemathesis once per identity and once as the peers, all at the same time: no two runs act as the
 * same account, and accounts see only their own resources, so a run cannot delete what another reads (the
 * operator's key reaches other accounts' API keys only, and schemathesis.toml keeps it from deleting them).
 */
export async function runSchemathesis(o: FuzzOptions): Promise<FuzzRun[]> {
  const runs = o.identities.map((identity) => runOnce(o, identity.name, { identity }));
  if (o.peers !== undefined && o.peers.length > 1) runs.push(runOnce(o, `peers ${o.peers.map((p) => p.name).join(' and ')}`, { peers: o.peers }));
  return Promise.all(runs);
}

/**
 * The repository's settings with the peers' users added: a Web Fuzzing Commons authentication document
 * (each user with its fixed Authorization header) and `[auth.wfc]` naming them all as peers.
 */
function peersConfig(dir: string, peers: readonly FuzzIdentity[]): string {
  const users = join(dir, 'users.json');
  const auth = peers.map((p) => ({ name: p.name, fixedHeaders: [{ name: 'Authorization', value: p.authorization }] }));
  writeFileSync(users, JSON.stringify({ schemaVersion: '0.2.0', auth }));
  const config = join(dir, 'schemathesis.toml');
  const section = `\n[auth.wfc]\npath = ${JSON.stringify(users)}\npeers = [${peers.map((p) => JSON.stringify(p.name)).join(', ')}]\n`;
  writeFileSync(config, readFileSync(CONFIG_FILE, 'utf8') + section);
  return config;
}

function runOnce(o: FuzzOptions, name: string, who: { identity?: FuzzIdentity; peers?: readonly FuzzIdentity[] }): Promise<FuzzRun> {
  // Reports and hypothesis's own files go to a folder of the run's own; the working directory is the
  // repository's root, against which schemathesis.toml names its hooks file.
  const dir = mkdtempSync(join(tmpdir(), 'edge-fuzz-'));
  const args = [
    '--config-file',
    who.peers === undefined ? CONFIG_FILE : peersConfig(dir, who.peers),
    'run',
    `${o.url}/openapi.json`,
    '--url',
    o.url,
    ...(who.identity === undefined ? [] : ['--header', `Authorization: ${who.identity.authorization}`]),
    '--checks',
    'all',
    '--phases',
    PHASES.join(','),
    '--max-examples',
    String(o.maxExamples),
    '--seed',
    String(o.seed),
    // One worker: runs repeat with a seed, and hypothesis's lambda descriptions are not thread-safe.
    '--workers',
    '1',
    '--request-timeout',
    '10',
    '--suppress-health-check',
    'all',
    // The token is the test's own; the sanitizer would only hide which header a failing request sent.
    '--output-sanitize',
    'false',
    '--report',
    'json',
    '--report-dir',
    dir,
    ...(o.excludePathRegex !== undefined ? ['--exclude-path-regex', o.excludePathRegex] : []),
  ];
  return new Promise((resolve, reject) => {
    const env = { ...process.env, NO_COLOR: '1', SCHEMATHESIS_HOOKS: '', HYPOTHESIS_STORAGE_DIRECTORY: join(dir, 'hypothesis') };
    const child = spawn('schemathesis', args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
      reject(new Error(`schemathesis did not finish within ${o.timeoutMs} ms:\n${withoutBanners(output).slice(-4000)}`));
    }, o.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      // A run killed at its deadline was already answered; its report is cut short.
      if (timedOut) return;
      const file = readdirSync(dir).find((f) => f.startsWith('json-') && f.endsWith('.json'));
      if (file === undefined) return reject(new Error(`schemathesis (exit ${code}) wrote no JSON report:\n${withoutBanners(output).slice(-4000)}`));
      resolve({ identity: name, code, output, report: JSON.parse(readFileSync(join(dir, file), 'utf8')) as FuzzReport });
    });
  });
}

/** The number of failures and errors a run reports: the suite fails on any. */
export function problemCount(run: FuzzRun): number {
  return run.report.failures.reduce((n, f) => n + f.count, 0) + run.report.errors.reduce((n, e) => n + e.count, 0);
}

/**
 * One line per run, the test's own: schemathesis's closing banner reads like a pytest run's last line, and a
 * reader of the suite's output (CI among them) would take it for the suite's.
 */
export function summaryLine(run: FuzzRun, seed: number): string {
  const r = run.report;
  const phases = PHASES.map((p) => `${p} ${r.phases[p]?.status ?? 'absent'}`).join(', ');
  return (
    `schemathesis (${run.identity}, seed ${seed}): ${r.operations.tested} operations, ${r.test_cases.generated} cases, ` +
    `phases ${phases}; ${problemCount(run)} failures; ${r.running_time.toFixed(0)} s`
  );
}

/** The run's text without schemathesis's "=== ... ===" banner lines, for failure messages. */
export function withoutBanners(output: string): string {
  return output
    .split('\n')
    .filter((line) => !/^=+ .* =+$/.test(line.trim()))
    .join('\n');
}
