// Line-by-line reading of NDJSON input and buffered, backpressure-aware writing of output lines.
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** Yields each line of `input` with its 1-based number; a trailing "\r" (CRLF input) is dropped. */
export async function* readLines(input: Readable): AsyncGenerator<{ readonly text: string; readonly line: number }> {
  const rl = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  for await (const text of rl) {
    line++;
    yield { text: text.endsWith('\r') ? text.slice(0, -1) : text, line };
  }
}

const FLUSH_AT = 64 * 1024;

/** Collects output lines into large writes and waits for 'drain' when the stream asks it to. */
export class LineWriter {
  private buffer = '';
  private closed = false;

  constructor(private readonly out: Writable) {
    // A closed pipe (e.g. `| head`) ends the output, not the process.
    out.on('error', () => {
      this.closed = true;
    });
  }

  /** False once the reader went away: the caller may stop producing. */
  get open(): boolean {
    return !this.closed;
  }

  async write(line: string): Promise<void> {
    this.buffer += `${line}\n`;
    if (this.buffer.length >= FLUSH_AT) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.buffer === '' || this.closed) return;
    const chunk = this.buffer;
    this.buffer = '';
    if (!this.out.write(chunk)) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.out.off('drain', done);
          this.out.off('error', done);
          this.out.off('close', done);
          resolve();
        };
        this.out.on('drain', done);
        this.out.on('error', done);
        this.out.on('close', done);
      });
    }
  }
}
