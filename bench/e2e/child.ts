// Child processes of the Kafka benchmarks: the real service (src/main.ts), passthrough clients and kcat, started, watched and stopped.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface BenchChild {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** It ends by itself once its work is done (an exit with status 0 is no failure). */
  readonly mayExit: boolean;
  /** The processes whose CPU and memory count, when not `pid` itself (a shell's pipeline). */
  readonly pids?: readonly number[];
  /** The last lines it printed, for error messages. */
  tail(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Runs `node --import tsx <script>` from the repository root (`node <script>` for compiled JavaScript)
 * and resolves once a line of its output contains `readyText`. Node is the direct child, so its pid is
 * the one to sample.
 */
export async function startChild(
  name: string,
  script: string,
  env: Record<string, string>,
  readyText: string,
  opts: { timeoutMs?: number; nodeArgs?: readonly string[]; compiled?: boolean; root?: string } = {},
): Promise<BenchChild> {
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const loader = opts.compiled === true ? [] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...loader, script], { cwd: opts.root ?? ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let ready = false;
  const c = childOf(name, child, { onLine: (line) => (ready ||= line.includes(readyText)) });
  const started = Date.now();
  while (!ready) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited before it was ready:\n${c.tail()}`);
    if (Date.now() - started > timeoutMs) {
      await c.stop(1_000);
      throw new Error(`${name} was not ready after ${timeoutMs} ms:\n${c.tail()}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return c;
}

/** Watches a spawned process: keeps its last lines (of the streams it pipes) and stops it on request. */
export function childOf(name: string, child: ChildProcess, opts: { mayExit?: boolean; onLine?: (line: string) => void } = {}): BenchChild {
  const lines: string[] = [];
  const onLine = (line: string): void => {
    lines.push(line);
    if (lines.length > 200) lines.shift();
    opts.onLine?.(line);
  };
  // One reader per stream: a line split across chunks of stdout is never joined to one from stderr.
  if (child.stdout !== null) createInterface({ input: child.stdout as Readable }).on('line', onLine);
  if (child.stderr !== null) createInterface({ input: child.stderr as Readable }).on('line', onLine);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (graceMs = 20_000): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  return { name, child, pid: child.pid as number, mayExit: opts.mayExit === true, tail: () => lines.slice(-25).join('\n'), stop };
}

/**
 * The real service as one ingest worker (ROLES=worker), on the benchmark's topics and group: its
 * TypeScript through tsx, or `compiled`, the JavaScript `npm start` runs (buildService() first); from
 * another checkout of the repository when `root` names one (a before-and-after comparison).
 */
export function startWorker(name: string, env: Record<string, string>, nodeArgs: readonly string[] = [], compiled = false, root?: string): Promise<BenchChild> {
  const script = compiled ? 'dist/main.js' : 'src/main.ts';
  return startChild(name, script, { ROLES: 'worker', LOG_LEVEL: 'info', ...env }, 'The ingest worker is consuming.', { nodeArgs, compiled, ...(root !== undefined && { root }) });
}

/** Compiles the service to dist/ (`npm run build`), so a compiled worker runs the current source. */
export function buildService(): void {
  execFileSync(process.execPath, [`${ROOT}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
}

/** The Node flags `npm start` gives the service (package.json's start script), so a benchmark's worker runs as it does. */
export function serviceNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: Record<string, string> };
  const m = / node ((?:--\S+ )*)dist\/main\.js/.exec(pkg.scripts.start ?? '');
  if (m === null) throw new Error('package.json: the start script does not run `node [flags] dist/main.js`');
  return (m[1] ?? '').split(' ').filter((a) => a !== '');
}
