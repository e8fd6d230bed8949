// A command run in a process group of its own (e.g. `npm start`, whose node process is npm's child), its
// output lines collected, and the whole group signalled at once, as a terminal's Ctrl-C does.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { copyToTestLog } from './test-logs.js';

export class GroupProcess {
  readonly child: ChildProcess;
  /** Every line of standard output and standard error so far. */
  readonly lines: string[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly exited: Promise<unknown>;
  private readonly closed: Promise<unknown>;

  constructor(
    readonly command: string,
    args: readonly string[],
    cwd: string,
    env: NodeJS.ProcessEnv,
  ) {
    this.child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    // A command that cannot start emits 'error' instead: the waits end on it too.
    this.exited = new Promise((resolve) => {
      this.child.once('exit', resolve);
      this.child.once('error', resolve);
    });
    // 'close' comes after the exit and the last line of both streams.
    this.closed = new Promise((resolve) => {
      this.child.once('close', resolve);
      this.child.once('error', resolve);
    });
    const toTestLog = copyToTestLog(`${command} ${this.child.pid ?? '?'}`);
    const onLine = (line: string): void => {
      this.lines.push(line);
      toTestLog(line);
      for (const wake of this.waiters) wake();
    };
    // One reader per stream: a line split across chunks of stdout is never joined to one from stderr.
    createInterface({ input: this.child.stdout as Readable }).on('line', onLine);
    createInterface({ input: this.child.stderr as Readable }).on('line', onLine);
  }

  private lastLines(): string {
    return `its last lines:\n${this.lines.slice(-40).join('\n')}`;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Resolves with the first line `test` accepts; rejects with the last lines after `timeoutMs`, or as soon as
   * the process has ended without writing it.
   */
  lineMatching(test: (line: string) => boolean, timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const check = (): void => {
        const found = this.lines.find(test);
        if (found === undefined) return;
        done();
        resolve(found);
      };
      const fail = (why: string): void => {
        if (settled) return;
        done();
        reject(new Error(`no such line from ${this.command}: ${why}; ${this.lastLines()}`));
      };
      const timer = setTimeout(() => fail(`none after ${timeoutMs} ms`), timeoutMs);
      const done = (): void => {
        settled = true;
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
      void this.closed.then(() => {
        check();
        fail(`it exited (code ${this.child.exitCode}, signal ${this.child.signalCode})`);
      });
    });
  }

  /** The pid of the group leader's only child (the node process `npm start` runs). */
  childPid(): number {
    const out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(this.child.pid)], { encoding: 'utf8' });
    const pids = out.split('\n').map((s) => Number(s.trim())).filter((n) => n > 0);
    if (pids.length !== 1) throw new Error(`expected one child of ${this.command} (pid ${this.child.pid}), found ${pids.length}`);
    return pids[0] as number;
  }

  /** Sends `signal` to every process of the group. */
  signalGroup(signal: NodeJS.Signals): void {
    if (this.running && this.child.pid !== undefined) process.kill(-this.child.pid, signal);
  }

  /**
   * Resolves with the leader's exit code once it has exited; rejects with the last lines when it is still
   * running after `timeoutMs`.
   */
  async exit(timeoutMs = 60_000): Promise<number | null> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.command} still ran after ${timeoutMs} ms; ${this.lastLines()}`)), timeoutMs);
    });
    try {
      await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
    }
    return this.child.exitCode;
  }

  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves once the leader has exited. */
  async stop(graceMs = 30_000): Promise<void> {
    if (!this.running) return;
    this.signalGroup('SIGTERM');
    const timer = setTimeout(() => this.signalGroup('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
