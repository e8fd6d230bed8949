// Renders the service's JSON log lines for a person at a terminal: one short line per event that matters.

/** pino's numeric levels. */
const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const INFO = 30;
const WARN = 40;
const ERROR = 50;

/** Fields every line carries, or that the line shows in its own place: not repeated as key=value. */
const SHOWN_ELSEWHERE = new Set(['level', 'time', 'service', 'component', 'msg', 'pid', 'hostname', 'err', 'logger', 'timestamp']);
/** Longest value shown in full; a longer one is cut (the JSON format keeps it whole). */
const MAX_VALUE_CHARS = 200;

export interface PrettyOptions {
  /** ANSI colours for the level and the fields. */
  readonly color: boolean;
}

interface LogRecord {
  readonly level?: number;
  readonly time?: string | number;
  readonly component?: string;
  readonly msg?: string;
  readonly err?: { readonly message?: string; readonly stack?: string; readonly code?: string };
  readonly [field: string]: unknown;
}

const paint = (on: boolean, code: string, text: string): string => (on ? `\u001b[${code}m${text}\u001b[0m` : text);

function clock(time: LogRecord['time']): string {
  const d = time === undefined ? new Date() : new Date(time);
  return Number.isNaN(d.getTime()) ? '--:--:--' : d.toTimeString().slice(0, 8);
}

function valueText(value: unknown): string {
  const text = typeof value === 'string' ? (/^[^\s"=]+$/.test(value) ? value : JSON.stringify(value)) : JSON.stringify(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

/** The line for one JSON log record. */
export function formatLogLine(json: string, options: PrettyOptions): string {
  let record: LogRecord;
  try {
    record = JSON.parse(json) as LogRecord;
  } catch {
    return json.replace(/\n$/, '');
  }
  const level = record.level ?? INFO;
  const name = LEVEL_NAMES[level] ?? String(level);
  const badge = level >= ERROR ? paint(options.color, '31;1', name) : level >= WARN ? paint(options.color, '33', name) : level < INFO ? paint(options.color, '2', name) : '';
  const fields = Object.entries(record)
    .filter(([key, value]) => !SHOWN_ELSEWHERE.has(key) && value !== undefined)
    .map(([key, value]) => `${key}=${valueText(value)}`);
  const parts = [paint(options.color, '2', clock(record.time)), badge, record.msg ?? ''].filter((p) => p !== '');
  let line = parts.join(' ');
  if (fields.length > 0) line += `  ${paint(options.color, '2', fields.join(' '))}`;
  const err = record.err;
  if (err !== undefined) {
    // An error's stack helps only when something failed; a warning says what happened in its message.
    const detail = level >= ERROR && err.stack !== undefined ? err.stack : (err.message ?? '');
    if (detail !== '') line += `\n  ${detail.replace(/\n/g, '\n  ')}`;
  }
  return line;
}

/** A pino destination that writes each record as formatLogLine renders it. */
export function prettyDestination(out: { write(text: string): unknown }, options: PrettyOptions): { write(json: string): void } {
  return {
    write(json: string): void {
      out.write(`${formatLogLine(json, options)}\n`);
    },
  };
}
