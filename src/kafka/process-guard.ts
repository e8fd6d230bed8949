// Makes sure a process the project started (the local broker) never outlives the Node process, and stops
// one by its ChildProcess or, for a broker left running by an earlier start, by its pid alone.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

/** A process to stop: one this process spawned, or the pid of one it adopted. */
export type GuardedProcess = ChildProcess | number;

const guarded = new Set<GuardedProcess>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let installed = false;

function signal(target: GuardedProcess, name: NodeJS.Signals): void {
  if (typeof target !== 'number') {
    target.kill(name);
    return;
  }
  try {
    process.kill(target, name);
  } catch {
    // Gone already.
  }
}

function terminateAll(): void {
  // SIGTERM lets the JVM run its shutdown hook; the broker finishes its clean shutdown on its own
  // (about 2 s) even after this process has gone.
  for (const target of guarded) signal(target, 'SIGTERM');
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', terminateAll);
  for (const name of SIGNALS) {
    const onSignal = (): void => {
      // Another handler owns this signal (the service's graceful shutdown, or the test runner): it
      // decides when to exit, and the 'exit' hook above still stops the children then.
      if (process.listenerCount(name) > 1) return;
      // Nobody else listens: behave as if no handler were installed, after stopping the children.
      terminateAll();
      process.removeListener(name, onSignal);
      process.kill(process.pid, name);
    };
    process.on(name, onSignal);
  }
}

/**
 * Stops `target` when this process exits normally, through process.exit(), an uncaught exception or an
 * unhandled SIGINT/SIGTERM/SIGHUP. A SIGKILL of this process cannot be intercepted: the child would stay.
 * Returns the function that drops the guard once the child has been stopped deliberately.
 */
export function killOnExit(target: GuardedProcess): () => void {
  install();
  guarded.add(target);
  return () => {
    guarded.delete(target);
  };
}

/** True while a process with this pid exists (signal 0 checks without signalling). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function exited(target: GuardedProcess): boolean {
  if (typeof target === 'number') return !processAlive(target);
  return target.exitCode !== null || target.signalCode !== null;
}

/** SIGTERM, wait up to `graceMs`, then SIGKILL and wait for the exit. */
export async function stopProcess(target: GuardedProcess, graceMs: number): Promise<void> {
  if (exited(target)) return;
  if (typeof target === 'number') {
    signal(target, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (!exited(target) && Date.now() < deadline) await sleep(100);
    if (exited(target)) return;
    signal(target, 'SIGKILL');
    while (!exited(target)) await sleep(50);
    return;
  }
  const done = once(target, 'exit');
  target.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (!exited(target)) target.kill('SIGKILL');
  }, graceMs);
  try {
    await done;
  } finally {
    clearTimeout(timer);
  }
}
