// One client's live tap as a server-sent event stream: each event one `data:` line, comments (lines
// starting with ":") for what is not an event. It paces the client to TAP_EVENTS_PER_SECOND, holds at
// most TAP_BUFFER_BYTES it has not sent (waiting for `drain` once the socket is full), says how many
// events it skipped for either, and ends by itself at its limit or its deadline.
import type { ServerResponse } from 'node:http';
import { TAP_BUFFER_BYTES, TAP_EVENTS_PER_SECOND } from './tap-protocol.js';
import type { TapListener } from './tap-streams.js';

/** How long a tap waits for every worker of the group to say it listens, before saying how many do. */
export const TAP_ACK_WAIT_MS = 3000;

export interface TapSessionOptions {
  readonly tap: string;
  readonly limit: number;
  readonly seconds: number;
  /** Called once when the stream ends, however it ends. */
  readonly onEnd: () => void;
  /** Asked every second: why the tap may no longer stream (its key or subscription deleted), or undefined. */
  readonly revoked?: () => string | undefined;
}

export class TapSession implements TapListener {
  private sent = 0;
  private skippedHere = 0;
  /** Events skipped because the client had not read what it was sent. */
  private skippedSlow = 0;
  /** The last write filled the socket: nothing more is written until it drains. */
  private waitingForDrain = false;
  private windowStart = 0;
  private inWindow = 0;
  private ended = false;
  private readonly acked = new Set<string>();
  private expected: readonly string[] | undefined;
  private announced = false;
  private readonly timers: NodeJS.Timeout[] = [];
  /** Events that came before begin(), sent by it: at most TAP_BUFFER_BYTES of them. */
  private early: Buffer[] | undefined = [];
  private earlyBytes = 0;

  constructor(
    private readonly raw: ServerResponse,
    private readonly opts: TapSessionOptions,
  ) {}

  /** Sends the headers and the first comment; the deadline starts now. */
  begin(): void {
    this.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    this.comment(`tap ${this.opts.tap}: up to ${this.opts.limit} events in ${this.opts.seconds} s`);
    this.raw.on('close', () => this.end(undefined));
    this.raw.on('drain', () => {
      this.waitingForDrain = false;
      this.reportSkipped();
    });
    this.timers.push(setTimeout(() => this.end(`${this.opts.seconds} s passed`), this.opts.seconds * 1000));
    // Skipped events are reported once a second, not once each; what was revoked ends the tap as soon.
    this.timers.push(
      setInterval(() => {
        this.reportSkipped();
        const revoked = this.opts.revoked?.();
        if (revoked !== undefined) this.end(revoked);
      }, 1000),
    );
    const early = this.early ?? [];
    this.early = undefined;
    for (const payload of early) this.event(payload);
  }

  /** The workers of the group when the tap opened (undefined: unknown). With none, nothing can reach the tap. */
  waitFor(members: readonly string[] | undefined): void {
    if (members !== undefined && members.length === 0) {
      this.end('no worker of the consumer group is running, so no event can reach this tap');
      return;
    }
    this.expected = members;
    this.maybeAnnounce();
    this.timers.push(setTimeout(() => this.announce(), TAP_ACK_WAIT_MS));
  }

  event(payload: Buffer): void {
    if (this.ended) return;
    if (this.early !== undefined) {
      if (this.early.length < this.opts.limit && this.earlyBytes + payload.length <= TAP_BUFFER_BYTES) {
        this.early.push(payload);
        this.earlyBytes += payload.length;
      } else this.skippedSlow++;
      return;
    }
    const now = Date.now();
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.inWindow = 0;
    }
    if (this.inWindow >= TAP_EVENTS_PER_SECOND) {
      this.skippedHere++;
      return;
    }
    const line = `data: ${payload.toString('utf8')}\n\n`;
    // Bounded before it is written: a client that has not read what it was sent is skipped, not buffered for.
    const unsent = this.raw.writableLength;
    if (this.waitingForDrain || (unsent > 0 && unsent + Buffer.byteLength(line) > TAP_BUFFER_BYTES)) {
      this.skippedSlow++;
      return;
    }
    this.inWindow++;
    this.sent++;
    if (!this.raw.write(line)) this.waitingForDrain = true;
    if (this.sent >= this.opts.limit) this.end(`its limit of ${this.opts.limit} events was reached`);
  }

  skipped(count: number): void {
    this.skippedHere += count;
  }

  ack(member: string | undefined): void {
    if (member !== undefined) this.acked.add(member);
    this.maybeAnnounce();
  }

  /** Ends the stream with a last comment saying why (none when the client left). */
  end(reason: string | undefined): void {
    if (this.ended) return;
    for (const t of this.timers) clearTimeout(t);
    if (reason !== undefined) {
      this.reportSkipped(true);
      this.comment(`the tap ended: ${reason}`);
    }
    this.ended = true;
    this.raw.end();
    this.opts.onEnd();
  }

  private maybeAnnounce(): void {
    if (this.expected !== undefined && this.expected.every((m) => this.acked.has(m))) this.announce();
  }

  /** Says once how many of the group's workers listen: events from the others are not seen until they do. */
  private announce(): void {
    if (this.announced || this.ended) return;
    this.announced = true;
    const of = this.expected === undefined ? '' : ` of ${this.expected.length}`;
    const listening = this.expected === undefined ? this.acked.size : this.expected.filter((m) => this.acked.has(m)).length;
    this.comment(`listening on ${listening}${of} workers`);
  }

  /**
   * Says what was skipped since the last report. While the client has not read what it was sent, the
   * counts wait for it (at the end they are said anyway: a few bytes, once).
   */
  private reportSkipped(atEnd = false): void {
    if (this.ended || (this.waitingForDrain && !atEnd)) return;
    if (this.skippedHere > 0) this.comment(`skipped ${this.skippedHere} events (over ${TAP_EVENTS_PER_SECOND} events/s)`);
    if (this.skippedSlow > 0) this.comment(`skipped ${this.skippedSlow} events (the client read too slowly)`);
    this.skippedHere = 0;
    this.skippedSlow = 0;
  }

  private comment(text: string): void {
    if (!this.raw.writableEnded) this.raw.write(`: ${text}\n\n`);
  }
}
