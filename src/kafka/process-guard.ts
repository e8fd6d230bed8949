// Makes sure a child process the project started (the local broker) never outlives the Node process.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

const guarded = new Set<ChildProcess>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let installed = false;

function terminateAll(): void {
  // SIGTERM lets the JVM run its shutdown hook; the broker finishes its clean shutdown on its own
  // (about 2 s) even after this process has gone.
  for (const child of guarded) child.kill('SIGTERM');
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', terminateAll);
  for (const signal of SIGNALS) {
    const onSignal = (): void => {
      // Another handler owns this signal (the service's graceful shutdown, or the test runner): it
      // decides when to exit, and the 'exit' hook above still stops the children then.
      if (process.listenerCount(signal) > 1) return;
      // Nobody else listens: behave as if no handler were installed, after stopping the children.
      terminateAll();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/**
 * Stops `child` when this process exits normally, through process.exit(), an uncaught exception or an
 * unhandled SIGINT/SIGTERM/SIGHUP. A SIGKILL of this process cannot be intercepted: the child would stay.
 * Returns the function that drops the guard once the child has been stopped deliberately.
 */
export function killOnExit(child: ChildProcess): () => void {
  install();
  guarded.add(child);
  return () => {
    guarded.delete(child);
  };
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** SIGTERM by the child's own PID, wait up to `graceMs`, then SIGKILL and wait for the exit. */
export async function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (exited(child)) return;
  const done = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (!exited(child)) child.kill('SIGKILL');
  }, graceMs);
  try {
    await done;
  } finally {
    clearTimeout(timer);
  }
}
