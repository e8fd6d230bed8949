// `edge-events filter`: runs one CEL filter over NDJSON raw records, the way the pipeline would, and prints the matches.
import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { compile } from '../cel/compile.js';
import type { FilterProblem } from '../cel/types.js';
import { EVENT_VARIABLE } from '../cel/filter-env.js';
import { EXAMPLE_FIELDS, FILTERABLE, TRAFFIC_EVENT_TYPES, exampleFilter, type TrafficEventType } from '../events/catalog.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError, type CliIO, type Command } from './command.js';
import { LineWriter, readLines } from './ndjson.js';

/** A raw record holding only the example field, as one NDJSON line: {"group":{"field":value}}. */
const exampleRecord = EXAMPLE_FIELDS.filter
  .split('.')
  .reduceRight<unknown>((inner, name) => ({ [name]: inner }), FILTERABLE[EXAMPLE_FIELDS.filter]?.example);

const USAGE = `Usage: edge-events filter --type <event type> --expr '<CEL>' [--count] [file]

Reads raw records as NDJSON (one nested JSON object per line, e.g. ${JSON.stringify(exampleRecord)})
from the file, or from stdin when no file is given, and writes the records the filter matches.

Options:
  --type <event type>  ${TRAFFIC_EVENT_TYPES.join(' or ')}
  --expr <CEL>         the filter, over the variable ${EVENT_VARIABLE}, e.g. '${exampleFilter(EVENT_VARIABLE)}'
  --count              print only the number of matching records
  -h, --help           show this text

Exit codes: 0 done, 1 the input could not be read, 2 bad usage or an invalid filter.
A malformed input line is reported on stderr with its line number and skipped.
`;

interface FilterOptions {
  readonly eventType: TrafficEventType;
  readonly expr: string;
  readonly count: boolean;
  readonly file: string | undefined;
}

function parseOptions(args: readonly string[]): FilterOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options: { type: { type: 'string' }, expr: { type: 'string' }, count: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.type === undefined) throw new UsageError('--type is required.');
  if (values.expr === undefined) throw new UsageError('--expr is required.');
  if (!(TRAFFIC_EVENT_TYPES as readonly string[]).includes(values.type)) {
    throw new UsageError(`"${values.type}" is not a traffic event type; filters apply to ${TRAFFIC_EVENT_TYPES.join(' and ')}.`);
  }
  if (positionals.length > 1) throw new UsageError('at most one input file may be given.');
  return {
    eventType: values.type as TrafficEventType,
    expr: values.expr,
    count: values.count === true,
    file: positionals[0],
  };
}

/** A problem as "expr:line:column: message", then the offending line of the filter and a caret under the column. */
export function describeProblem(text: string, p: Pick<FilterProblem, 'line' | 'column' | 'message'>): string {
  const source = text.split('\n')[p.line - 1];
  const head = `expr:${p.line}:${p.column}: ${p.message}`;
  if (source === undefined) return head;
  return `${head}\n  ${source}\n  ${' '.repeat(Math.max(0, p.column - 1))}^`;
}

async function run(args: readonly string[], io: CliIO): Promise<number> {
  const options = parseOptions(args);
  const compiled = compile(options.expr, options.eventType);
  if (!compiled.ok) {
    for (const p of compiled.problems) io.stderr.write(`${describeProblem(options.expr, p)}\n`);
    io.stderr.write(`edge-events filter: the filter is invalid (${compiled.problems.length} problem${compiled.problems.length === 1 ? '' : 's'}).\n`);
    return EXIT_USAGE;
  }
  const filter = compiled.filter;
  const input = options.file === undefined ? io.stdin : createReadStream(options.file);
  const out = new LineWriter(io.stdout);
  let matched = 0;
  let malformed = 0;
  try {
    for await (const { text, line } of readLines(input)) {
      if (text.trim() === '') continue;
      let record: unknown;
      try {
        record = JSON.parse(text);
      } catch (err) {
        malformed++;
        io.stderr.write(`line ${line}: skipped, not valid JSON (${(err as Error).message}).\n`);
        continue;
      }
      if (typeof record !== 'object' || record === null || Array.isArray(record)) {
        malformed++;
        io.stderr.write(`line ${line}: skipped, a record must be a JSON object.\n`);
        continue;
      }
      if (!filter.evaluate(record)) continue;
      matched++;
      if (!options.count) await out.write(text);
      if (!out.open) break;
    }
  } catch (err) {
    io.stderr.write(`edge-events filter: cannot read ${options.file ?? 'stdin'}: ${(err as Error).message}\n`);
    return EXIT_FAILURE;
  }
  if (options.count) await out.write(String(matched));
  await out.flush();
  if (malformed > 0) io.stderr.write(`${malformed} malformed line${malformed === 1 ? '' : 's'} skipped.\n`);
  return EXIT_OK;
}

export const filterCommand: Command = {
  name: 'filter',
  summary: 'print the NDJSON raw records a CEL filter matches',
  usage: USAGE,
  run,
};
