// Runs one exported function of a benchmark module in a fresh Node process and returns its JSON result.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));
/** Marks the child's result line on its stdout. */
export const RESULT_PREFIX = '@@bench-result ';

/**
 * Imports `moduleUrl` in a child process (with this process's loader flags, i.e. tsx) and calls its
 * export `name` with `arg`. A fresh process gives each subject its own JIT feedback and heap.
 */
export function runIsolated<R>(moduleUrl: string, name: string, arg: unknown): Promise<R> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, CHILD, moduleUrl, name, JSON.stringify(arg)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
      if (code !== 0 || line === undefined) {
        reject(new Error(`${name} failed in its child process (exit ${code}): ${err.trim() || out.trim()}`));
        return;
      }
      resolve(JSON.parse(line.slice(RESULT_PREFIX.length)) as R);
    });
  });
}
