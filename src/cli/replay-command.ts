// `edge-events replay`: sends a subscription the matching events of a past time range (a replay,
// docs/subscription-controls.md "Replay"), follows its progress (a bar at a terminal, plain lines
// otherwise, on stderr) and ends with its counts on stdout. Ctrl-C cancels the replay.
import { parseArgs } from 'node:util';
import { API_OPTIONS_USAGE, apiUrlOf, tokenOf } from './api-options.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError, type CliIO, type Command } from './command.js';

const USAGE = `Usage: edge-events replay <subscription id> --from <time> [--to <time>] [options]

Sends the subscription the events it matches among the records of [from, to): its current sources,
fields, filter and sample rate, to its destinations (or those named). Live delivery goes on meanwhile;
a replayed event has the id live delivery gave it, so a receiver drops overlaps by event_id.
Prints the progress on stderr (a bar at a terminal, a line every few seconds otherwise) and the
counts on stdout at the end.

A time is RFC 3339 (2026-12-02T05:00:00Z), "now", or a duration ago: 90s, 30m, 1h, 24h, 7d.

Options:
  --from <time>       the range's start (required), e.g. 1h for the last hour
  --to <time>         its end, excluded (default: the time the API takes the request)
  --destination <id>  a destination of the subscription to replay to; repeat for several
                      (default: all of the subscription's destinations)
  --source <type>     only this event type of the subscription's sources; repeat for several
  --detach            print the replay's id and leave it running, without following it
${API_OPTIONS_USAGE}
  -h, --help          show this text

Ctrl-C cancels the replay (DELETE) and waits for it to stop; a second Ctrl-C leaves at once.
Exit codes: 0 the replay is done (or --detach), 1 it failed or was cancelled, or the API could not
be reached or refused it, 2 bad usage or a range the API refused.
`;

/** How often the replay is asked for, in milliseconds. */
export const POLL_MS = 1000;
/** Away from a terminal, a progress line at most this often (and on every change of state). */
export const PLAIN_LINE_MS = 5000;
/** Polls that may fail in a row (the API restarting) before the command gives up following. */
const POLL_FAILURES = 10;
/** The rate is measured over this last stretch of samples. */
const RATE_WINDOW_MS = 10_000;

const DURATION = /^(\d+(?:\.\d+)?)\s*(s|m|h|d)(?:\s+ago)?$/i;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A time as the API takes it (RFC 3339): an RFC 3339 text as typed, "now" or a duration ago from `now`. */
export function parseTime(option: string, text: string, now: Date): string {
  const t = text.trim();
  if (t.toLowerCase() === 'now') return now.toISOString();
  const ago = DURATION.exec(t);
  if (ago !== null) return new Date(now.getTime() - Number(ago[1]) * (UNIT_MS[(ago[2] as string).toLowerCase()] as number)).toISOString();
  if (RFC3339.test(t) && !Number.isNaN(Date.parse(t))) return t;
  throw new UsageError(`--${option} "${text}" is not a time: give RFC 3339 (e.g. 2026-12-02T05:00:00Z), "now", or a duration ago (90s, 30m, 1h, 24h, 7d).`);
}

export interface ReplayBody {
  readonly from: string;
  readonly to?: string;
  readonly destination_ids?: string[];
  readonly sources?: string[];
}

export interface ReplayOptions {
  readonly url: string;
  readonly token: string;
  readonly subscription: string;
  readonly body: ReplayBody;
  readonly detach: boolean;
  /** The arguments as given, for pointing at the one the API refused. */
  readonly args: readonly string[];
}

export function parseReplayArgs(args: readonly string[], env: NodeJS.ProcessEnv = process.env, now: Date = new Date()): ReplayOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: {
        from: { type: 'string' },
        to: { type: 'string' },
        destination: { type: 'string', multiple: true },
        source: { type: 'string', multiple: true },
        detach: { type: 'boolean' },
        url: { type: 'string' },
        token: { type: 'string' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? 'give the subscription id, e.g. edge-events replay esb_… --from 1h.' : `one subscription id, got ${positionals.length}.`);
  if (values.from === undefined) throw new UsageError('--from is required, e.g. --from 1h for the last hour.');
  const body: ReplayBody = {
    from: parseTime('from', values.from, now),
    ...(values.to !== undefined && { to: parseTime('to', values.to, now) }),
    ...(values.destination !== undefined && { destination_ids: values.destination }),
    ...(values.source !== undefined && { sources: values.source }),
  };
  return { url: apiUrlOf(values.url, env), token: tokenOf(values.token, env), subscription: positionals[0] as string, body, detach: values.detach === true, args };
}

/** The replay resource as this command reads it (SPEC.md; docs/subscription-controls.md "Replay"). */
export interface Replay {
  readonly id: string;
  readonly uri: string;
  readonly state: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  readonly from: string;
  readonly to: string;
  readonly progress: {
    readonly records_scanned: number;
    readonly records_total: number;
    readonly events_delivered: number;
    readonly fraction: number;
    readonly estimated_done_at: string | null;
  };
  readonly created_at: string;
  readonly finished_at: string | null;
  readonly error: { readonly code: string; readonly message: string } | null;
}

const ENDED: ReadonlySet<Replay['state']> = new Set(['done', 'failed', 'cancelled']);
export const ended = (r: Pick<Replay, 'state'>): boolean => ENDED.has(r.state);

const count = (n: number): string => Math.round(n).toLocaleString('en-US');

/** Records a second over the last RATE_WINDOW_MS of samples, or undefined before two samples apart. */
export class RateMeter {
  private readonly samples: { at: number; scanned: number }[] = [];

  add(at: number, scanned: number): void {
    this.samples.push({ at, scanned });
    while (this.samples.length > 2 && at - (this.samples[1] as { at: number }).at >= RATE_WINDOW_MS) this.samples.shift();
  }

  perSecond(): number | undefined {
    const first = this.samples[0];
    const last = this.samples[this.samples.length - 1];
    if (first === undefined || last === undefined || last.at - first.at < 500) return undefined;
    return ((last.scanned - first.scanned) * 1000) / (last.at - first.at);
  }
}

/** "in 12 s", "in 3 min", "in 2 h 5 min": how far `iso` is from `now`. */
function fromNow(iso: string, now: number): string {
  const s = Math.max(0, Math.round((Date.parse(iso) - now) / 1000));
  if (s < 90) return `in ${s} s`;
  if (s < 5400) return `in ${Math.round(s / 60)} min`;
  return `in ${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

/** The figures of a progress line: fraction, records scanned of total, events, rate, estimated end. */
export function progressText(r: Replay, rate: number | undefined, now: number): string {
  const p = r.progress;
  const parts = [`${(p.fraction * 100).toFixed(1)}%`, `${count(p.records_scanned)} / ${count(p.records_total)} records`];
  parts.push(`${count(p.events_delivered)} events`);
  if (rate !== undefined && !ended(r)) parts.push(`${count(rate)} records/s`);
  if (p.estimated_done_at !== null && r.state === 'running') parts.push(`ends ~${p.estimated_done_at.slice(11, 19)}Z (${fromNow(p.estimated_done_at, now)})`);
  return parts.join('  ');
}

const BAR_WIDTH = 24;

/** The terminal's bar: [█████░░░] and the figures, redrawn in place. */
export function barLine(r: Replay, rate: number | undefined, now: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, r.progress.fraction)) * BAR_WIDTH);
  return `[${'█'.repeat(filled)}${'░'.repeat(BAR_WIDTH - filled)}] ${r.state.padEnd(9)} ${progressText(r, rate, now)}`;
}

/** The closing line, on stdout: the state, the counts, the time taken. */
export function summaryLine(r: Replay): string {
  const p = r.progress;
  const took = r.finished_at === null ? '' : ` in ${((Date.parse(r.finished_at) - Date.parse(r.created_at)) / 1000).toFixed(1)} s`;
  const scanned = `${count(p.records_scanned)} of ${count(p.records_total)} records scanned`;
  const why = r.error !== null ? `: ${r.error.message} (${r.error.code})` : '';
  return `replay ${r.id} ${r.state}${why}; ${scanned}, ${count(p.events_delivered)} events delivered${took}.`;
}

interface ApiError {
  readonly error_code?: unknown;
  readonly msg?: unknown;
  readonly details?: Record<string, unknown>;
}

/** Where the argument behind an API field is in `args`: --from's value for "from", the i-th --destination for "destination_ids[i]". */
function argumentOf(field: string, args: readonly string[]): number | undefined {
  const m = /^(from|to|destination_ids|sources)(?:\[(\d+)\])?/.exec(field);
  if (m === null) return undefined;
  const flag = { from: '--from', to: '--to', destination_ids: '--destination', sources: '--source' }[m[1] as 'from' | 'to' | 'destination_ids' | 'sources'];
  const wanted = m[2] === undefined ? 0 : Number(m[2]);
  let seen = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] as string;
    if (a === flag) {
      if (seen++ === wanted) return i + 1 < args.length ? i + 1 : undefined;
    } else if (a.startsWith(`${flag}=`) && seen++ === wanted) return i;
  }
  return undefined;
}

/** The command line with carets under one argument, as `edge-events filter` points at a filter's column. */
function pointAt(args: readonly string[], index: number): string {
  const words = ['edge-events', 'replay', ...args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`))];
  const at = index + 2;
  const before = words.slice(0, at).join(' ').length + 1;
  const width = Math.max(1, (words[at] as string).length);
  return `  ${words.join(' ')}\n  ${' '.repeat(before)}${'^'.repeat(width)}`;
}

/** The earliest time a refusal names (a range starting before the raw topics' retention): any string detail under a key with "earliest". */
function earliestOf(details: Record<string, unknown> | undefined): string | undefined {
  for (const [k, v] of Object.entries(details ?? {})) if (/earliest/i.test(k) && typeof v === 'string') return v;
  return undefined;
}

/**
 * The API's refusal of a replay as a person reads it: its sentence with the field named by its flag,
 * the command line with a caret under the argument it refused, and for a range older than the
 * retention, the --from to use instead. Never the raw JSON.
 */
export function replayRefusal(status: number, text: string, o: Pick<ReplayOptions, 'args' | 'subscription'>): string {
  let body: ApiError | undefined;
  try {
    body = JSON.parse(text) as ApiError;
  } catch {
    body = undefined;
  }
  if (typeof body?.msg !== 'string') return `edge-events replay: the API answered ${status}: ${text.slice(0, 500)}\n`;
  const field = typeof body.details?.field === 'string' ? body.details.field : undefined;
  let msg = body.msg;
  const named = field === undefined ? undefined : /^(from|to|destination_ids|sources)/.exec(field)?.[1];
  if (field !== undefined && named !== undefined) msg = msg.replace(`The field ${field} `, `--${{ from: 'from', to: 'to', destination_ids: 'destination', sources: 'source' }[named as 'from']} `);
  const lines = [`edge-events replay: ${msg} (${status} ${String(body.error_code)})`];
  // An empty range names no one field: its end is what to move.
  const blamed = field ?? (body.error_code === 'replay_range_invalid' ? (o.args.some((a) => a === '--to' || a.startsWith('--to=')) ? 'to' : 'from') : undefined);
  const index = blamed === undefined ? undefined : argumentOf(blamed, o.args);
  const subscriptionIndex = o.args.indexOf(o.subscription);
  if (index !== undefined) lines.push(pointAt(o.args, index));
  else if (status === 404 && subscriptionIndex >= 0) lines.push(pointAt(o.args, subscriptionIndex));
  const earliest = earliestOf(body.details);
  if (earliest !== undefined) lines.push(`The earliest time still kept is ${earliest}: try --from ${earliest}`);
  return `${lines.join('\n')}\n`;
}

/** Exit code of a refused request: the range or an argument (400, 422) is bad usage; the rest an operational failure. */
const refusalExit = (status: number): number => (status === 400 || status === 422 ? EXIT_USAGE : EXIT_FAILURE);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export interface FollowOptions {
  readonly pollMs?: number;
  /** Aborted on the first Ctrl-C (cancel), and on the second (leave). */
  readonly interrupts?: { cancel: AbortSignal; leave: AbortSignal };
}

async function run(args: readonly string[], io: CliIO, follow: FollowOptions = {}): Promise<number> {
  const o = parseReplayArgs(args);
  const headers = { authorization: `Bearer ${o.token}` };
  const base = `${o.url}/event_subscriptions/${encodeURIComponent(o.subscription)}/replays`;
  let res: Response;
  try {
    res = await fetch(base, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(o.body) });
  } catch (err) {
    io.stderr.write(`edge-events replay: the API at ${o.url} could not be reached: ${(err as Error).message}\n`);
    return EXIT_FAILURE;
  }
  if (res.status !== 201) {
    io.stderr.write(replayRefusal(res.status, await res.text(), o));
    return refusalExit(res.status);
  }
  let replay = (await res.json()) as Replay;
  // The replay's path at the API this command was given: its uri names the host the service knows itself by.
  const uri = `${o.url}${new URL(replay.uri, `${o.url}/`).pathname}`;
  if (o.detach) {
    io.stdout.write(`replay ${replay.id} ${replay.state}: ${replay.from} to ${replay.to}; follow it with GET ${uri}\n`);
    return EXIT_OK;
  }
  io.stderr.write(`replay ${replay.id}: ${replay.from} to ${replay.to}${o.body.destination_ids === undefined ? '' : ` to ${o.body.destination_ids.join(', ')}`} (Ctrl-C cancels it)\n`);
  const tty = (io.stderr as { isTTY?: boolean }).isTTY === true;
  const meter = new RateMeter();
  let lastLine = 0;
  let lastState = '';
  let failures = 0;
  let cancelSent = false;
  const pollMs = follow.pollMs ?? POLL_MS;
  for (;;) {
    const now = Date.now();
    meter.add(now, replay.progress.records_scanned);
    if (tty) io.stderr.write(`\r\x1b[K${barLine(replay, meter.perSecond(), now)}`);
    else if (replay.state !== lastState || now - lastLine >= PLAIN_LINE_MS || ended(replay)) {
      io.stderr.write(`replay ${replay.id} ${replay.state}: ${progressText(replay, meter.perSecond(), now)}\n`);
      lastLine = now;
    }
    lastState = replay.state;
    if (ended(replay)) break;
    if (follow.interrupts?.leave.aborted === true) {
      if (tty) io.stderr.write('\n');
      io.stderr.write(`edge-events replay: left without waiting; replay ${replay.id} is ${cancelSent ? 'being cancelled' : replay.state}: GET ${uri}\n`);
      return EXIT_FAILURE;
    }
    if (follow.interrupts?.cancel.aborted === true && !cancelSent) {
      cancelSent = true;
      if (tty) io.stderr.write('\n');
      io.stderr.write(`edge-events replay: cancelling replay ${replay.id} (Ctrl-C again leaves without waiting)\n`);
      try {
        const answer = await fetch(uri, { method: 'DELETE', headers });
        if (!answer.ok) io.stderr.write(replayRefusal(answer.status, await answer.text(), o));
      } catch (err) {
        io.stderr.write(`edge-events replay: the cancel could not reach the API: ${(err as Error).message}\n`);
      }
    }
    await Promise.race([sleep(pollMs), ...(follow.interrupts === undefined ? [] : [once(follow.interrupts.cancel), once(follow.interrupts.leave)].filter((p) => p !== undefined))]);
    try {
      const answer = await fetch(uri, { headers });
      if (!answer.ok) {
        io.stderr.write(`${tty ? '\n' : ''}${replayRefusal(answer.status, await answer.text(), o)}`);
        return EXIT_FAILURE;
      }
      replay = (await answer.json()) as Replay;
      failures = 0;
    } catch (err) {
      if (++failures >= POLL_FAILURES) {
        io.stderr.write(`${tty ? '\n' : ''}edge-events replay: lost the API (${(err as Error).message}); replay ${replay.id} may still run: GET ${uri}\n`);
        return EXIT_FAILURE;
      }
    }
  }
  if (tty) io.stderr.write('\n');
  io.stdout.write(`${summaryLine(replay)}\n`);
  return replay.state === 'done' ? EXIT_OK : EXIT_FAILURE;
}

/** Resolves when the signal aborts (at once when it is aborted already). */
function once(signal: AbortSignal): Promise<void> | undefined {
  if (signal.aborted) return undefined;
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** Ctrl-C while the command follows a replay: the first cancels it, the second leaves. */
function interruptsOfProcess(): { interrupts: { cancel: AbortSignal; leave: AbortSignal }; release(): void } {
  const cancel = new AbortController();
  const leave = new AbortController();
  const onSigint = (): void => (cancel.signal.aborted ? leave : cancel).abort();
  process.on('SIGINT', onSigint);
  return { interrupts: { cancel: cancel.signal, leave: leave.signal }, release: () => process.off('SIGINT', onSigint) };
}

export const replayCommand: Command = {
  name: 'replay',
  summary: "send a subscription the matching events of a past time range, with its progress",
  usage: USAGE,
  async run(args: readonly string[], io: CliIO): Promise<number> {
    const { interrupts, release } = interruptsOfProcess();
    try {
      return await run(args, io, { interrupts });
    } finally {
      release();
    }
  },
};

/** The command with its waits and interrupts given, for tests. */
export const runReplay = run;
