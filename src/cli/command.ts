// The shape of one edge-events subcommand, so that new ones (e.g. `produce`) plug into main.ts.
import type { Readable, Writable } from 'node:stream';

export interface CliIO {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly stderr: Writable;
}

/** Exit codes: 0 done, 1 an operational failure (e.g. unreadable file), 2 bad usage or an invalid filter. */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

export interface Command {
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** The full usage text, printed on bad usage and for --help. */
  readonly usage: string;
  run(args: readonly string[], io: CliIO): Promise<number>;
}

export class UsageError extends Error {
  readonly code = 'CLI_USAGE';
  readonly retryable = false;
}
