// The peer's binary: Redpanda Connect built from bench/peer (main.go, go.mod, go.sum) with Go, kept under
// .local/peer keyed by go.sum's hash, so only the first run (or a changed go.sum) builds it.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(new URL('.', import.meta.url));
const CACHE = fileURLToPath(new URL('../../.local/peer/', import.meta.url));
const PROGRESS_EVERY_MS = 15_000;

/** The cached binary's path for the current go.sum (which pins every module, so it names the build). */
export function peerBinaryPath(): string {
  const hash = createHash('sha256').update(readFileSync(join(SOURCE, 'go.sum'))).update(readFileSync(join(SOURCE, 'main.go'))).digest('hex').slice(0, 16);
  return join(CACHE, `rpcn-${hash}`);
}

/**
 * The binary, built first when missing: `nice go build` with GOSUMDB=off (bench/peer/README.md says why),
 * printing the packages compiled so far every 15 s. Throws with Go's own last lines when the build fails.
 */
export async function ensurePeerBinary(progress: (m: string) => void): Promise<string> {
  const bin = peerBinaryPath();
  if (existsSync(bin)) return bin;
  mkdirSync(CACHE, { recursive: true });
  const tmp = `${bin}.building-${process.pid}`;
  progress(`building Redpanda Connect into ${bin} (go build in bench/peer; the first build downloads its modules, about 13 minutes here)`);
  const started = Date.now();
  const child = spawn('nice', ['-n', '10', 'go', 'build', '-v', '-o', tmp, '.'], { cwd: SOURCE, env: { ...process.env, GOSUMDB: 'off' }, stdio: ['ignore', 'ignore', 'pipe'] });
  const lines: string[] = [];
  let packages = 0;
  createInterface({ input: child.stderr }).on('line', (line) => {
    // `go build -v` names each package as it is compiled; downloads and errors come on the same stream.
    if (/^[\w.-]+(\/[\w.~-]+)*$/.test(line)) packages++;
    lines.push(line);
    if (lines.length > 40) lines.shift();
  });
  const timer = setInterval(() => progress(`building Redpanda Connect: ${Math.round((Date.now() - started) / 1000)} s, ${packages} packages compiled; last: ${lines.at(-1) ?? '(downloading modules)'}`), PROGRESS_EVERY_MS);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (c) => resolve(c));
  }).finally(() => clearInterval(timer));
  if (code !== 0) {
    rmSync(tmp, { force: true });
    throw new Error(`go build of bench/peer failed (exit ${code}):\n${lines.join('\n')}`);
  }
  renameSync(tmp, bin);
  progress(`built Redpanda Connect in ${Math.round((Date.now() - started) / 1000)} s (${packages} packages)`);
  return bin;
}

/** "Redpanda Connect 4.63.0 (Benthos 4.55.0)": the versions go.mod pins (the binary reports Benthos's). */
export function peerVersion(): string {
  const mod = readFileSync(join(SOURCE, 'go.mod'), 'utf8');
  const v = (path: string): string => new RegExp(`${path.replace(/[./]/g, '\\$&')} v(\\S+)`).exec(mod)?.[1] ?? '?';
  return `Redpanda Connect ${v('github.com/redpanda-data/connect/v4')} (Benthos ${v('github.com/redpanda-data/benthos/v4')})`;
}
