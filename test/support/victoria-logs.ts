// VictoriaLogs (Apache-2.0), a log store that implements Datadog's logs intake, as the real intake of the
// datadog tests: built once with `go install` into .local/victoria-logs/<version>/ (like the broker's jars),
// on first use or ahead of time with `npm run victorialogs:fetch` (.ci/run does), and started per test on a
// free loopback port. Events are read back through its LogsQL query API.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findFreePorts } from '../../src/kafka/free-port.js';

export const VICTORIA_LOGS_VERSION = 'v1.52.1';
const MODULE = 'github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DIR = join(ROOT, '.local', 'victoria-logs', VICTORIA_LOGS_VERSION);
const BINARY = join(DIR, 'victoria-logs');

/** The binary's path, built with Go first when it is not cached (about a minute). */
export function victoriaLogsBinary(): string {
  if (existsSync(BINARY)) return BINARY;
  const staging = `${DIR}.tmp-${process.pid}`;
  mkdirSync(staging, { recursive: true });
  try {
    const r = spawnSync('go', ['install', `${MODULE}@${VICTORIA_LOGS_VERSION}`], { encoding: 'utf8', env: { ...process.env, GOBIN: staging }, maxBuffer: 64 * 1024 * 1024 });
    if (r.error !== undefined || r.status !== 0) throw new Error(`go install ${MODULE}@${VICTORIA_LOGS_VERSION} failed (Go 1.23+ is needed): ${r.error?.message ?? `${r.stdout}${r.stderr}`.slice(-2000)}`);
    mkdirSync(DIR, { recursive: true });
    renameSync(join(staging, 'victoria-logs'), BINARY);
    return BINARY;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** One row of a LogsQL answer: `_msg`, `_time` and the log's other fields, all strings. */
export type LogRow = Readonly<Record<string, string>>;

export class VictoriaLogs {
  private proc: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly dataDir: string,
  ) {}

  /** A running VictoriaLogs on a free loopback port with an empty store. */
  static async start(): Promise<VictoriaLogs> {
    const [port] = await findFreePorts(1);
    const vl = new VictoriaLogs(port as number, mkdtempSync(join(tmpdir(), 'edge-events-vlogs-')));
    await vl.restart();
    return vl;
  }

  /** What DATADOG_BASE_URL names: its Datadog intake, /insert/datadog/api/v2/logs and /api/v1/validate under it. */
  get datadogBaseUrl(): string {
    return `http://127.0.0.1:${this.port}/insert/datadog`;
  }

  /** Starts it again on the same port and data (after stop()). */
  async restart(): Promise<void> {
    const proc = spawn(victoriaLogsBinary(), [`-httpListenAddr=127.0.0.1:${this.port}`, `-storageDataPath=${this.dataDir}`, '-loggerLevel=ERROR', '-retentionPeriod=30d'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    proc.stderr?.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-4000)));
    this.proc = proc;
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`VictoriaLogs exited with ${proc.exitCode}: ${err}`);
      try {
        if ((await fetch(`http://127.0.0.1:${this.port}/health`)).ok) return;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error(`VictoriaLogs did not answer /health within 30 s: ${err}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    const proc = this.proc;
    this.proc = undefined;
    if (proc === undefined || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGTERM');
    await exited;
  }

  async cleanup(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** Every log matching a LogsQL query (all time), as stored. */
  async query(logsql: string): Promise<LogRow[]> {
    const body = new URLSearchParams({ query: logsql, start: '2000-01-01T00:00:00Z' });
    const r = await fetch(`http://127.0.0.1:${this.port}/select/logsql/query`, { method: 'POST', body });
    if (!r.ok) throw new Error(`LogsQL ${logsql}: ${r.status} ${await r.text()}`);
    return (await r.text()).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as LogRow);
  }

  /** The logs of a query, waiting up to `timeoutMs` for at least `atLeast` of them (ingested logs show within about a second). */
  async rowsAtLeast(logsql: string, atLeast: number, timeoutMs = 10_000): Promise<LogRow[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const rows = await this.query(logsql);
      if (rows.length >= atLeast || Date.now() > deadline) return rows;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.stdout.write(`VictoriaLogs ${VICTORIA_LOGS_VERSION}: ${victoriaLogsBinary()}\n`);
}
