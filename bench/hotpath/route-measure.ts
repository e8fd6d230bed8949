// Child-process side of the hot-path benchmark: builds N subscriptions and times one record through the router (or the decoder alone).
import { DEFAULT_SUBSCRIPTION_CLOCK_SKEW_MS } from '../../src/config/service-config.js';
import { copyPayload, payloadSize } from '../../src/delivery/contract.js';
import type { TrafficEventType } from '../../src/events/catalog.js';
import { createClient } from '../../src/kafka/client.js';
import { RecordRouter, type ConsumedMessage } from '../../src/ingest/record-router.js';
import { createAuditDecoder } from '../../src/records/audit-decoder.js';
import { createRecordDecoder, type RecordDecoderOptions } from '../../src/records/record-decoder.js';
import { SubscriptionSet } from '../../src/subscriptions/subscription-set.js';
import { TapHub } from '../../src/tap/tap-hub.js';
import { TrafficGenerator, buildUniverse } from '../../src/traffic/generator.js';
import { DEFAULT_MEASURE, measure, median, type MeasureOptions } from '../lib/measure.js';
import { buildSubscriptions } from '../workload/subscriptions.js';

/**
 * - decode: decodeFilterable then full() on every record, the baseline (what a consumer that only decodes pays);
 * - filterable: decodeFilterable alone, the floor of the cheap read;
 * - route: the router's whole hot path (decode filterable, match, full decode on a match, project, serialize, list deliveries);
 * - route-write: route, then every delivery's payload bytes written into one request body, as the http
 *   and file writers do (the router leaves the bytes to the writers: src/ingest/event-item.ts).
 */
export type RouteMode = 'decode' | 'filterable' | 'route' | 'route-write';

export interface RouteArgs {
  readonly mode: RouteMode;
  readonly subscriptions: number;
  /** The filters' kind (bench/workload/subscriptions.ts); default 'one-percent'. */
  readonly workload?: 'one-percent' | 'rare';
  readonly records: number;
  readonly httpShare: number;
  /** The producers' form of the records (docs/record-formats.md); default 'avro'. JSON records carry a content-type header. */
  readonly form?: 'avro' | 'json';
  /** Decoder options under test (e.g. validating every record). */
  readonly decoder?: RecordDecoderOptions;
  readonly measure?: MeasureOptions;
}

export interface RouteStats {
  readonly matchesPerRecord: number;
  readonly matchedRecordShare: number;
  readonly deliveriesPerRecord: number;
  /** Distinct serialized objects per record (one per distinct field set among the matches). */
  readonly objectsPerRecord: number;
  readonly meanPayloadBytes: number;
  readonly meanRecordBytes: number;
  readonly expectedMatchesPerRecord: number;
  readonly distinctFilters: number;
  readonly distinctFieldSets: number;
  readonly setupMs: number;
}

export interface RouteResult extends RouteStats {
  readonly nsPerRecord: number;
  readonly rssMiB: number;
}

interface Input {
  readonly topic: string;
  readonly eventType: TrafficEventType;
  readonly msg: ConsumedMessage;
}

const TOPICS: Readonly<Record<TrafficEventType, string>> = {
  'http_request_complete.v0': 'bench.http',
  'tcp_connection_closed.v0': 'bench.tcp',
};

/** The bytes of a fetch response the bench's record values share, as a Kafka client hands them over. */
const FETCH_BYTES = 1024 * 1024;
/** The record header bytes before each value in a fetch response (length, attributes, deltas, key), so values start unaligned. */
const RECORD_HEADER_BYTES = 7;

/**
 * The values copied into fetch-sized slabs, each a view of its slab: Kafka clients hand over record
 * values as slices of the fetch response they read them from, not as buffers of their own.
 */
function asFetched(values: readonly Buffer[]): Buffer[] {
  const out: Buffer[] = [];
  let slab = Buffer.alloc(0);
  let at = 0;
  for (const v of values) {
    if (at + RECORD_HEADER_BYTES + v.length > slab.length) {
      slab = Buffer.allocUnsafeSlow(Math.max(FETCH_BYTES, RECORD_HEADER_BYTES + v.length)).fill(0);
      at = 0;
    }
    at += RECORD_HEADER_BYTES;
    v.copy(slab, at);
    out.push(slab.subarray(at, at + v.length));
    at += v.length;
  }
  return out;
}

export function inputs(count: number, httpShare: number, form: 'avro' | 'json' = 'avro'): Input[] {
  // The same seed in both forms: the same records' content.
  const g = new TrafficGenerator({ seed: 101, httpShare });
  const base = Date.UTC(2024, 4, 1);
  const messages = Array.from({ length: count }, () => g.nextMessage(form));
  const values = asFetched(messages.map((m) => m.value as Buffer));
  return messages.map((m, i) => ({
    topic: TOPICS[m.eventType],
    eventType: m.eventType,
    msg: { key: null, value: values[i] as Buffer, offset: String(1_000_000 + i), timestamp: String(base + i), headers: { ...m.headers } },
  }));
}

export interface PreparedRoute {
  readonly fn: (input: Input) => unknown;
  readonly records: readonly Input[];
  readonly stats: RouteStats;
}

/** Builds the subscriptions, router and records of one subject, and the function that handles one record. */
export function prepareRoute(args: RouteArgs): PreparedRoute {
  const started = performance.now();
  const universe = buildUniverse({ httpShare: args.httpShare });
  const workload = buildSubscriptions(universe, {
    count: args.subscriptions,
    destinationIds: Array.from({ length: 20 }, (_, i) => `ed_BENCH${String(i).padStart(22, '0')}`),
    httpShare: args.httpShare,
    kind: args.workload ?? 'one-percent',
  });
  const subscriptions = new SubscriptionSet();
  for (const s of workload.subscriptions) subscriptions.put(s);
  const decoder = createRecordDecoder(args.decoder);
  const router = new RecordRouter({
    subscriptions,
    decoder,
    auditDecoder: createAuditDecoder(),
    trafficTopics: new Map(Object.entries(TOPICS).map(([t, topic]) => [topic, t as TrafficEventType])),
    auditTopic: 'bench.audit',
    clockSkewMs: DEFAULT_SUBSCRIPTION_CLOCK_SKEW_MS,
    // The service's wiring: a worker always has a tap hub, here with no tap open (it never connects).
    taps: new TapHub({ kafka: createClient({ clientId: 'bench', brokers: '127.0.0.1:1' }), requestsTopic: 'bench.tap.requests', eventsTopic: 'bench.tap.events', owners: subscriptions.owners, memberId: () => undefined }),
  });
  const records = inputs(args.records, args.httpShare, args.form);
  const setupMs = performance.now() - started;

  // One pass to describe the workload, and to check that every record goes through without a dead letter.
  let matches = 0;
  let matched = 0;
  let deliveries = 0;
  let objects = 0;
  let payloadBytes = 0;
  let recordBytes = 0;
  for (const { topic, eventType, msg } of records) {
    recordBytes += (msg.value as Buffer).length;
    const decoded = decoder.decodeFilterable(eventType, msg);
    if (!decoded.ok) throw new Error(`a generated record failed to decode: ${decoded.message}`);
    const routes = subscriptions.matcher(eventType).match(decoded.filterable);
    matches += routes.length;
    if (routes.length > 0) matched++;
    const result = router.route(topic, 0, msg, 0);
    if (result.type !== 'deliver') throw new Error(`a generated record was dead-lettered: ${result.letter.errorMessage}`);
    deliveries += result.deliveries.length;
    // The deliveries of one field set share their projected object (record-router.ts).
    const distinct = new Set(result.deliveries.map((d) => d.item.envelope?.object));
    objects += distinct.size;
    for (const d of result.deliveries) payloadBytes += d.item.payload.length;
  }

  let fn: (input: Input) => unknown;
  switch (args.mode) {
    case 'decode':
      fn = ({ eventType, msg }) => {
        const d = decoder.decodeFilterable(eventType, msg);
        return d.ok && d.full().ok;
      };
      break;
    case 'filterable':
      fn = ({ eventType, msg }) => decoder.decodeFilterable(eventType, msg).ok;
      break;
    case 'route':
      fn = ({ topic, msg }) => router.route(topic, 0, msg, 0).type === 'deliver';
      break;
    case 'route-write':
      fn = ({ topic, msg }) => {
        const result = router.route(topic, 0, msg, 0);
        if (result.type !== 'deliver') return false;
        let total = 0;
        for (const d of result.deliveries) total += payloadSize(d.item);
        const body = Buffer.allocUnsafe(total);
        let at = 0;
        for (const d of result.deliveries) at += copyPayload(d.item, body, at);
        return at === total;
      };
      break;
  }
  const n = records.length;
  const stats: RouteStats = {
    matchesPerRecord: matches / n,
    matchedRecordShare: matched / n,
    deliveriesPerRecord: deliveries / n,
    objectsPerRecord: objects / n,
    meanPayloadBytes: deliveries === 0 ? 0 : payloadBytes / deliveries,
    meanRecordBytes: recordBytes / n,
    expectedMatchesPerRecord: workload.expectedMatchesPerRecord,
    distinctFilters: workload.distinctFilters,
    distinctFieldSets: workload.distinctFieldSets,
    setupMs,
  };
  return { fn, records, stats };
}

/** Exported for isolate.ts: runs in its own process. */
export function measureRoute(args: RouteArgs): RouteResult {
  const { fn, records, stats } = prepareRoute(args);
  const m = measure(fn, records, args.measure ?? DEFAULT_MEASURE);
  return { ...stats, nsPerRecord: m.nsPerOp, rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20) };
}

export interface RoutePairArgs {
  readonly avro: RouteArgs;
  readonly json: RouteArgs;
  /** Alternating timed slices of each subject. */
  readonly slices: number;
  /** Which subject each slice times first. */
  readonly first: 'avro' | 'json';
}

export interface RoutePairResult {
  /** Each subject's median CPU ns a record over its slices. */
  readonly avro: RouteResult;
  readonly json: RouteResult;
  /** The median over the slices of Avro ns / JSON ns (JSON's rate as a share of Avro's), each pair timed back to back. */
  readonly share: number;
  readonly shares: readonly number[];
}

/**
 * Exported for isolate.ts: an Avro subject and its JSON twin (the same records' content) in one process,
 * timed in alternating slices, so the machine's load, which moves fresh processes' figures by up to 2x
 * on this shared machine (bench/results/PROFILE.md), hits both alike.
 */
export function measureRoutePair(args: RoutePairArgs): RoutePairResult {
  const subjects = { avro: prepareRoute(args.avro), json: prepareRoute(args.json) };
  const order = args.first === 'avro' ? (['avro', 'json'] as const) : (['json', 'avro'] as const);
  const slice = { runs: 1, runMs: DEFAULT_MEASURE.runMs, warmupMs: 0 };
  for (const k of order) measure(subjects[k].fn, subjects[k].records, { ...slice, warmupMs: DEFAULT_MEASURE.warmupMs });
  const ns = { avro: [] as number[], json: [] as number[] };
  const shares: number[] = [];
  for (let s = 0; s < args.slices; s++) {
    for (const k of order) ns[k].push(measure(subjects[k].fn, subjects[k].records, slice).nsPerOp);
    shares.push((ns.avro[s] as number) / (ns.json[s] as number));
  }
  const rssMiB = Math.round(process.memoryUsage().rss / 2 ** 20);
  return {
    avro: { ...subjects.avro.stats, nsPerRecord: median(ns.avro), rssMiB },
    json: { ...subjects.json.stats, nsPerRecord: median(ns.json), rssMiB },
    share: median(shares),
    shares,
  };
}
