// The splunk_hec and elasticsearch destinations end to end: preloaded raw records on a real local broker,
// one ingest worker, its events sent to the HEC contract receiver (test/support/splunk-hec-receiver.ts,
// with and without indexer acknowledgement) and to a real OpenSearch node (test/support/opensearch/),
// against the same workload to a kafka destination in the same run. The rate is records committed per
// second (a commit follows only delivered events); the events are read back and counted: the receiver's
// record, OpenSearch's _count after a refresh.
import type { StoredDestination } from '../src/configlog/resources.js';
import { SecretBox } from '../src/secrets/secret-box.js';
import { openSearchCall, startOpenSearch, type OpenSearchNode } from '../test/support/opensearch/opensearch-node.js';
import { SplunkHecReceiver } from '../test/support/splunk-hec-receiver.js';
import { startBenchBroker } from './e2e/broker.js';
import { startWorker } from './e2e/child.js';
import { benchKafka, benchTopics, createTopics, preload, trafficSource, uniquePrefix, workerEnv, writeTargets } from './e2e/setup.js';
import { endOffsets, watchDrain } from './e2e/watch.js';
import type { BenchContext, BenchReport, BenchRow } from './lib/types.js';

const RECORDS = Number(process.env.BENCH_VENDOR_COUNT ?? 30_000);
const ROUNDS = Number(process.env.BENCH_VENDOR_ROUNDS ?? 1);
const SUBSCRIPTIONS = 100;
const HEC_TOKEN = '11111111-2222-3333-4444-555555555555';
const HEC_ACK_TOKEN = '66666666-7777-8888-9999-000000000000';

interface Env {
  readonly output: string;
  readonly index: string;
  readonly hec: SplunkHecReceiver;
  readonly node: OpenSearchNode;
  readonly box: SecretBox;
}

interface Subject {
  readonly name: string;
  target(env: Env): StoredDestination['target'];
  /** The events delivered, read back from the destination. */
  delivered(env: Env, kafkaEvents: () => Promise<number>): Promise<number>;
  readonly topic?: true;
}

const hecEvents = (env: Env) => env.hec.events.filter((e) => (e.event as { event_type?: string }).event_type !== 'edge_events_check').length;

const SUBJECTS: readonly Subject[] = [
  { name: 'kafka destination (baseline)', topic: true, target: ({ output }) => ({ kafka: { topic: output } }), delivered: (_env, kafka) => kafka() },
  { name: 'splunk_hec (contract receiver)', target: ({ hec, box }) => ({ splunk_hec: { url: hec.url, token_enc: box.seal(HEC_TOKEN), sourcetype: '_json' } }), delivered: async (env) => hecEvents(env) },
  { name: 'splunk_hec, ack (contract receiver)', target: ({ hec, box }) => ({ splunk_hec: { url: hec.url, token_enc: box.seal(HEC_ACK_TOKEN), ack: true } }), delivered: async (env) => hecEvents(env) },
  {
    name: 'elasticsearch (OpenSearch 2.19 node)',
    target: ({ node, index }) => ({ elasticsearch: { url: node.url, index } }),
    delivered: async ({ node, index }) => {
      await openSearchCall(node.url, 'POST', `/${index}/_refresh`);
      return Number((await openSearchCall(node.url, 'GET', `/${index}/_count`)).json.count ?? 0);
    },
  },
];

async function drainOnce(subject: Subject, round: number, brokers: string, node: OpenSearchNode, expected: number | undefined, progress: (m: string) => void): Promise<BenchRow> {
  const topics = benchTopics(uniquePrefix(`vendor-${round}`));
  const kafka = benchKafka(brokers);
  const output = `${topics.prefix}.out`;
  const index = `${topics.prefix}-events`.toLowerCase();
  await createTopics(kafka, topics, subject.topic === true ? [output] : []);
  const hec = new SplunkHecReceiver([{ token: HEC_TOKEN }, { token: HEC_ACK_TOKEN, ack: true }]);
  await hec.start();
  const { universe, next } = trafficSource();
  // The receiver and the node listen on loopback over http.
  const env: Record<string, string> = { ...workerEnv(brokers, topics, `${topics.prefix}-ingest`), EGRESS_ALLOW_HTTP: 'true', EGRESS_ALLOW_CIDRS: '127.0.0.0/8' };
  const box = new SecretBox(Buffer.from(env.SECRET_KEY ?? '', 'hex'));
  const ctx: Env = { output, index, hec, node, box };
  const workload = await writeTargets(kafka, topics, [subject.target(ctx)], universe, { count: SUBSCRIPTIONS, kind: 'one-percent' });
  await preload(brokers, topics, RECORDS, next, progress);
  const worker = await startWorker(`worker (${subject.name})`, env);
  try {
    const raw = Object.values(topics.traffic);
    const drained = await watchDrain(kafka, `${topics.prefix}-ingest`, raw, RECORDS, [worker.pid], { timeoutMs: 600_000, progress, check: () => undefined });
    // A commit follows parked events too (src/delivery/README.md "Parking and re-driving"): the worker keeps
    // running until the destination holds the events the baseline delivered, re-driven ones included.
    const drainedAt = Date.now();
    let events = await subject.delivered(ctx, () => endOffsets(kafka, [output]));
    while (expected !== undefined && events < expected && Date.now() - drainedAt < 120_000) {
      await new Promise((r) => setTimeout(r, 1000));
      events = await subject.delivered(ctx, () => endOffsets(kafka, [output]));
    }
    const lateSeconds = Number(((Date.now() - drainedAt) / 1000).toFixed(1));
    return {
      subject: subject.name,
      round,
      'records/s': Math.round(drained.recordsPerSecond),
      'events/s': Math.round((drained.recordsPerSecond * events) / RECORDS),
      'events delivered': events,
      's after the drain until all delivered': expected === undefined ? 0 : lateSeconds,
      'expected matches/record': Number(workload.expectedMatchesPerRecord.toFixed(2)),
      'worker cores': Number(drained.cores.toFixed(2)),
      'worker peak RSS MiB': Math.round(drained.peakRssMiB),
    };
  } finally {
    await worker.stop();
    await hec.stop();
    if (subject.name.startsWith('elasticsearch')) await openSearchCall(node.url, 'DELETE', `/${index}`);
  }
}

export default async function run(ctx: BenchContext): Promise<BenchReport> {
  const broker = await startBenchBroker(ctx.progress);
  const node = await startOpenSearch();
  const rows: BenchRow[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const subject of SUBJECTS) {
        ctx.progress(`round ${round}: ${subject.name}`);
        // The baseline's events are what every subject must hold: the same seeded records and subscriptions.
        const expected = rows.find((r) => r.subject === SUBJECTS[0]!.name)?.['events delivered'] as number | undefined;
        rows.push(await drainOnce(subject, round, broker.brokers, node, expected, ctx.progress));
      }
    }
  } finally {
    await node.stop();
    await broker.stop();
  }
  const best = (name: string) => Math.max(...rows.filter((r) => r.subject === name).map((r) => Number(r['records/s'])));
  const baseline = best(SUBJECTS[0]!.name);
  return {
    title: 'splunk_hec and elasticsearch end to end: raw topics to the HEC contract receiver and to a real OpenSearch node, against a kafka destination',
    rows: rows.map((r) => ({ ...r, 'x kafka (best rounds)': Number((best(String(r.subject)) / baseline).toFixed(2)) })),
    usesKafka: true,
    settings: { records: RECORDS, rounds: ROUNDS, subscriptions: SUBSCRIPTIONS, workload: 'one-percent' },
    notes: [
      `Each subject: ${RECORDS.toLocaleString('en-US')} preloaded records on 6 partitions, one worker (the service from source through tsx, ROLES=worker), ${SUBSCRIPTIONS} subscriptions each matching about 1% of records (bench/workload/subscriptions.ts), all delivering to the one destination of the subject. The rate is records committed per second from the first commit seen (bench/e2e/watch.ts): a commit follows only delivered events (with ack, acknowledged ones) or parked ones: a destination whose writes take longer than PARK_AFTER_MS (10 s) parks its events, re-driven later, so the worker runs on until the destination holds every event the baseline delivered, and the seconds that took after the drain are their own column.`,
      'splunk_hec: the HEC contract receiver runs in the benchmark process (token check, gunzip, the concatenated objects parsed; with ack, acknowledged at once and polled from 200 ms), so the figure is the worker\'s cost of the kind, not Splunk\'s indexing. elasticsearch: a real OpenSearch 2.19.6 node (-Xmx512m) on the same 2 cores, the index created on first write; events delivered is its _count, each event one document under its event id.',
    ],
  };
}
