// `edge-events tap`: a subscription's live tap, or one for a filter not saved yet, printed as one JSON line
// per event on stdout; the tap's own notes (workers listening, events skipped, why it ended) go to stderr.
import { parseArgs } from 'node:util';
import { readSse } from '../tap/sse-reader.js';
import { TAP_DEFAULT_LIMIT, TAP_DEFAULT_SECONDS, TAP_MAX_LIMIT, TAP_MAX_SECONDS } from '../tap/tap-protocol.js';
import { API_OPTIONS_USAGE, apiUrlOf, tokenOf } from './api-options.js';
import { describeProblem } from './filter-command.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError, type CliIO, type Command } from './command.js';

const USAGE = `Usage: edge-events tap <subscription id> [options]
       edge-events tap --type <event type> --fields <a,b,...> [--filter <CEL>] [options]

Streams the events a subscription matches from now on (as its first destination receives them), or
those a source not saved yet would match, one JSON line per event. It ends by itself.

Options:
  --type <type>       the event type of an unsaved source, e.g. tcp_connection_closed.v0
  --fields <list>     its fields, comma-separated, e.g. conn.client_ip,conn.server_name
  --filter <CEL>      its filter, e.g. 'ev.conn.server_port == 443'
  --seconds <S>       end after S seconds (default ${TAP_DEFAULT_SECONDS}, at most ${TAP_MAX_SECONDS})
  --limit <N>         end after N events (default ${TAP_DEFAULT_LIMIT}, at most ${TAP_MAX_LIMIT})
${API_OPTIONS_USAGE}
  -h, --help          show this text

Exit codes: 0 the tap ended, 1 the API refused it or could not be reached, 2 bad usage.
`;

interface TapOptions {
  readonly url: string;
  readonly token: string;
  readonly path: string;
  readonly body: unknown;
}

function whole(name: string, text: string | undefined, max: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`--${name} must be a whole number from 1 to ${max}, got "${text}".`);
  return n;
}

export function parseTapArgs(args: readonly string[], env: NodeJS.ProcessEnv = process.env): TapOptions {
  const names = ['type', 'fields', 'filter', 'seconds', 'limit', 'url', 'token'];
  let parsed: { values: Record<string, string | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: [...args], options: Object.fromEntries(names.map((n) => [n, { type: 'string' as const }])), allowPositionals: true, strict: true }) as typeof parsed;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new UsageError(`one subscription id at most, got ${positionals.length}.`);
  const id = positionals[0];
  if ((id === undefined) === (values.type === undefined)) throw new UsageError('give either a subscription id or --type (with --fields and maybe --filter).');
  if (id !== undefined && (values.fields !== undefined || values.filter !== undefined)) throw new UsageError('--fields and --filter go with --type, not with a subscription id.');
  const query = new URLSearchParams();
  const seconds = whole('seconds', values.seconds, TAP_MAX_SECONDS);
  const limit = whole('limit', values.limit, TAP_MAX_LIMIT);
  if (seconds !== undefined) query.set('seconds', String(seconds));
  if (limit !== undefined) query.set('limit', String(limit));
  const qs = query.size > 0 ? `?${query.toString()}` : '';
  const url = apiUrlOf(values.url, env);
  const body =
    values.type === undefined
      ? undefined
      : { type: values.type, fields: (values.fields ?? '').split(',').map((f) => f.trim()).filter((f) => f !== ''), ...(values.filter !== undefined && { filter: values.filter }) };
  return { url, token: tokenOf(values.token, env), path: id === undefined ? `/tap${qs}` : `/event_subscriptions/${encodeURIComponent(id)}/tap${qs}`, body };
}

export const tapCommand: Command = {
  name: 'tap',
  summary: "print a subscription's (or a filter's) matching events live, one JSON line each",
  usage: USAGE,
  async run(args: readonly string[], io: CliIO): Promise<number> {
    const o = parseTapArgs(args);
    let res: Response;
    try {
      res = await fetch(`${o.url}${o.path}`, {
        method: o.body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${o.token}`, accept: 'text/event-stream', ...(o.body !== undefined && { 'content-type': 'application/json' }) },
        ...(o.body !== undefined && { body: JSON.stringify(o.body) }),
      });
    } catch (err) {
      io.stderr.write(`edge-events tap: the API at ${o.url} could not be reached: ${(err as Error).message}\n`);
      return EXIT_FAILURE;
    }
    if (res.status !== 200 || res.body === null) {
      io.stderr.write(refusal(res.status, await res.text(), o.body));
      return res.status === 400 ? EXIT_USAGE : EXIT_FAILURE;
    }
    for await (const item of readSse(res.body)) {
      if (item.kind === 'data') io.stdout.write(`${item.data}\n`);
      else io.stderr.write(`tap: ${item.text}\n`);
    }
    return EXIT_OK;
  },
};

/**
 * The API's refusal as a person reads it: an invalid filter as `edge-events filter` draws it (each
 * problem with its line and a caret under its column), anything else as the API's sentence.
 */
export function refusal(status: number, text: string, sent: unknown): string {
  let body: { error_code?: unknown; msg?: unknown; details?: { problems?: unknown } } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  if (typeof body?.msg !== 'string') return `edge-events tap: the API answered ${status}: ${text.slice(0, 500)}\n`;
  const filter = (sent as { filter?: unknown } | undefined)?.filter;
  const problems = Array.isArray(body.details?.problems) ? (body.details.problems as { line?: unknown; column?: unknown; reason?: unknown }[]) : [];
  const drawn = problems.filter((p) => typeof p.line === 'number' && typeof p.column === 'number' && typeof p.reason === 'string');
  if (body.error_code !== 'invalid_filter' || typeof filter !== 'string' || drawn.length === 0) return `edge-events tap: ${body.msg} (${status} ${String(body.error_code)})\n`;
  const lines = drawn.map((p) => describeProblem(filter, { line: p.line as number, column: p.column as number, message: p.reason as string }));
  return `${lines.join('\n')}\nedge-events tap: the filter is invalid (${drawn.length} problem${drawn.length === 1 ? '' : 's'}).\n`;
}
