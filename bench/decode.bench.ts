// Decode benchmark: does reading the filterable fields first pay off? Records/s of the cheap read, the full decode and an eager decode.
import { isUtf8 } from 'node:buffer';
import { cpus, loadavg } from 'node:os';
import avro from 'avsc';
import type { TrafficEventType } from '../src/events/catalog.js';
import { createAvroCodec } from '../src/records/avro-record.js';
import { compileJsonValidator } from '../src/records/json-record.js';
import { createRecordDecoder } from '../src/records/record-decoder.js';
import { encodeRecord } from '../src/records/record-encoder.js';
import type { RawMessage, WireForm } from '../src/records/record-types.js';
import { seededRecord } from '../src/traffic/seeded-records.js';
import { latestSchema } from '../src/records/schema-registry.js';
import { runIsolated } from './lib/isolate.js';
import { DEFAULT_MEASURE, measure } from './lib/measure.js';
import type { BenchContext, BenchReport, BenchRow } from './lib/types.js';

const RECORDS = 1024;

/**
 * - filterable: decodeFilterable alone, what every record costs;
 * - filterable+full: decodeFilterable then full(), what a matched record costs;
 * - eager: the whole record decoded and validated directly, what every record would cost without the cheap read;
 * - avsc: avsc's decode alone, no validation and no conversion (Avro forms only), as a floor.
 */
const MODES = ['filterable', 'filterable+full', 'eager', 'avsc'] as const;
type Mode = (typeof MODES)[number];

interface DecodeArgs {
  readonly eventType: TrafficEventType;
  readonly form: WireForm;
  readonly mode: Mode;
}

interface DecodeResult {
  readonly nsPerOp: number;
  readonly meanBytes: number;
}

function messages(eventType: TrafficEventType, form: WireForm): RawMessage[] {
  return Array.from({ length: RECORDS }, (_, i) => encodeRecord(eventType, seededRecord(eventType, i + 1), form));
}

/** Child-process side: times one mode over 1024 distinct realistic records. */
export function measureDecode(args: DecodeArgs): DecodeResult {
  const { eventType, form, mode } = args;
  const inputs = messages(eventType, form);
  const meanBytes = inputs.reduce((s, m) => s + (m.value as Buffer).length, 0) / inputs.length;
  const decoder = createRecordDecoder();
  const start = form === 'confluent' ? 5 : 0;
  let fn: (m: RawMessage) => unknown;
  switch (mode) {
    case 'filterable':
      fn = (m) => decoder.decodeFilterable(eventType, m).ok;
      break;
    case 'filterable+full':
      fn = (m) => {
        const r = decoder.decodeFilterable(eventType, m);
        return r.ok && r.full().ok;
      };
      break;
    case 'eager': {
      const codec = createAvroCodec(latestSchema(eventType));
      if (form === 'json') {
        const validate = compileJsonValidator(codec.plan, { checkSurrogates: false });
        fn = (m) => isUtf8(m.value as Buffer) && validate(JSON.parse((m.value as Buffer).toString('utf8')));
      } else {
        fn = (m) => codec.decodeFull(m.value as Buffer, start);
      }
      break;
    }
    case 'avsc': {
      const type = avro.Type.forSchema(latestSchema(eventType).schema as avro.Schema, { omitRecordMethods: true });
      fn = (m) => type.decode(m.value as Buffer, start).offset;
      break;
    }
  }
  // Every input must decode, or the timing would be of the error path.
  for (const m of inputs) if (!fn(m)) throw new Error(`${mode} failed on a sample ${eventType} ${form} record`);
  const { nsPerOp } = measure(fn, inputs, DEFAULT_MEASURE);
  return { nsPerOp, meanBytes };
}

const round = (n: number, digits = 0): number => Math.round(n * 10 ** digits) / 10 ** digits;

const SUBJECTS: readonly { eventType: TrafficEventType; form: WireForm }[] = [
  { eventType: 'http_request_complete.v0', form: 'avro' },
  { eventType: 'http_request_complete.v0', form: 'confluent' },
  { eventType: 'http_request_complete.v0', form: 'json' },
  { eventType: 'tcp_connection_closed.v0', form: 'avro' },
  { eventType: 'tcp_connection_closed.v0', form: 'json' },
];

/** Rounds per subject; each mode keeps its fastest round, the one least disturbed by other work on the machine. */
const ROUNDS = 3;

export default async function run(ctx: BenchContext): Promise<BenchReport> {
  const rows: BenchRow[] = [];
  const loadBefore = loadavg()[0] ?? 0;
  const notes: string[] = [
    `Each cell is the fastest of ${ROUNDS} rounds; a round is the median of ${DEFAULT_MEASURE.runs} runs in a fresh process over ${RECORDS} distinct records of the traffic generator (src/traffic/seeded-records.ts, seeds 1 to ${RECORDS}). http records carry request and response header maps.`,
    'At match rate m, reading the filterable fields first costs filterable + m x (filterable+full - filterable) per record. Decoding everything up front costs eager. The cheap read pays off below the break-even rate.',
  ];
  for (const { eventType, form } of SUBJECTS) {
    const modes = MODES.filter((m) => !(m === 'avsc' && form === 'json'));
    const ns = new Map<Mode, number>();
    let bytes = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      for (const mode of modes) {
        ctx.progress(`${eventType} ${form}: timing ${mode}, round ${round}`);
        const r = await runIsolated<DecodeResult>(import.meta.url, 'measureDecode', { eventType, form, mode } satisfies DecodeArgs);
        ns.set(mode, Math.min(ns.get(mode) ?? Infinity, r.nsPerOp));
        bytes = r.meanBytes;
      }
    }
    for (const mode of modes) {
      const n = ns.get(mode) as number;
      rows.push({ 'event type': eventType, form, 'mean bytes': round(bytes), decode: mode, 'ns/record': round(n), 'records/s': round(1e9 / n) });
    }
    const cheap = ns.get('filterable') as number;
    const matched = ns.get('filterable+full') as number;
    const eager = ns.get('eager') as number;
    // filterable + m (matched - filterable) = eager  =>  m = (eager - filterable) / (matched - filterable)
    const breakEven = Math.min(Math.max((eager - cheap) / (matched - cheap), 0), 1);
    const at = (m: number): number => round(1e9 / (cheap + m * (matched - cheap)));
    notes.push(
      `${eventType} ${form}: the cheap read costs ${round((cheap / eager) * 100)}% of an eager decode. It pays off below a match rate of ${round(breakEven * 100)}%. ` +
        `Records/s: ${at(0.01)} at 1% matched, ${at(0.1)} at 10%, ${at(1)} at 100%, against ${round(1e9 / eager)} eager.`,
    );
  }
  notes.push(
    `Machine: ${cpus().length} CPUs, 1-minute load average ${round(loadBefore, 1)} at the start and ${round(loadavg()[0] ?? 0, 1)} at the end. Under load the absolute figures are inflated; the ratios between the modes of one subject are the result.`,
  );
  return { title: 'Decoding raw records: filterable fields first, or everything', rows, notes };
}
