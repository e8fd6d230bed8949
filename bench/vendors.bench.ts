// The datadog and azure_logs_ingestion destinations end to end: preloaded raw records on a real local
// broker, one ingest worker, its events delivered into VictoriaLogs through its Datadog intake (the real
// intake of the datadog tests) and into the Azure contract receiver (test/support/), against the same
// workload to a kafka destination in the same run. The rate is records committed per second (a commit
// follows only delivered events); the events are read back and counted at each store.
import type { StoredDestination } from '../src/configlog/resources.js';
import { SecretBox } from '../src/secrets/secret-box.js';
import { AzureContractReceiver } from '../test/support/azure-contract-receiver.js';
import { VictoriaLogs } from '../test/support/victoria-logs.js';
import { startBenchBroker } from './e2e/broker.js';
import { startWorker } from './e2e/child.js';
import { benchKafka, benchTopics, createTopics, preload, trafficSource, uniquePrefix, workerEnv, writeTargets } from './e2e/setup.js';
import { endOffsets, watchDrain } from './e2e/watch.js';
import type { BenchContext, BenchReport, BenchRow } from './lib/types.js';

const RECORDS = Number(process.env.BENCH_VENDORS_COUNT ?? 30_000);
const ROUNDS = Number(process.env.BENCH_VENDORS_ROUNDS ?? 2);
const SUBSCRIPTIONS = 100;
const DD_KEY = '0123456789abcdef0123456789abcdef';
const APP = { tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47', clientId: '00000000-1111-2222-3333-444444444444', clientSecret: 'Abc8Q~bench-secret' };
const RULE = 'dcr-0123456789abcdef0123456789abcdef';

interface Stores {
  readonly vl: VictoriaLogs;
  readonly azure: AzureContractReceiver;
}

interface Subject {
  readonly name: string;
  target(ctx: { output: string; stream: string; service: string; stores: Stores; box: SecretBox }): StoredDestination['target'];
  /** Events delivered so far. */
  count(ctx: { output: string; stream: string; service: string; stores: Stores; kafka: ReturnType<typeof benchKafka> }): Promise<number>;
}

const SUBJECTS: readonly Subject[] = [
  { name: 'kafka destination (baseline)', target: ({ output }) => ({ kafka: { topic: output } }), count: ({ kafka, output }) => endOffsets(kafka, [output]) },
  {
    name: 'datadog into VictoriaLogs',
    target: ({ service, box }) => ({ datadog: { api_key_enc: box.seal(DD_KEY), service } }),
    count: async ({ stores, service }) => (await stores.vl.rowsAtLeast(`service:${service} | count()`, 1, 2_000)).reduce((n, r) => n + Number(r['count(*)'] ?? 0), 0),
  },
  {
    name: 'azure_logs_ingestion into the contract receiver',
    target: ({ stream, stores, box }) => ({
      azure_logs_ingestion: {
        tenant_id: APP.tenantId,
        client_id: APP.clientId,
        client_secret_enc: box.seal(APP.clientSecret),
        logs_ingestion_uri: stores.azure.ingestionUri,
        data_collection_rule_id: RULE,
        data_collection_stream_name: stream,
      },
    }),
    count: async ({ stores, stream }) => stores.azure.rowsOf(RULE, stream).length,
  },
];

async function drainOnce(subject: Subject, round: number, brokers: string, stores: Stores, progress: (m: string) => void): Promise<BenchRow> {
  const topics = benchTopics(uniquePrefix(`vendors-${round}`));
  const kafka = benchKafka(brokers);
  const output = `${topics.prefix}.out`;
  const stream = `Custom-Bench${round}`;
  const service = `bench-${round}-${subject.name.split(' ')[0]}`;
  await createTopics(kafka, topics, [output]);
  const { universe, next } = trafficSource();
  const env: Record<string, string> = {
    ...workerEnv(brokers, topics, `${topics.prefix}-ingest`),
    DATADOG_BASE_URL: stores.vl.datadogBaseUrl,
    AZURE_AUTHORITY_URL: stores.azure.authorityUrl,
    AZURE_LOGS_INGESTION_DOMAINS: '127.0.0.1',
    EGRESS_ALLOW_HTTP: 'true',
    EGRESS_ALLOW_CIDRS: '127.0.0.0/8',
  };
  const box = new SecretBox(Buffer.from(env.SECRET_KEY ?? '', 'hex'));
  const workload = await writeTargets(kafka, topics, [subject.target({ output, stream, service, stores, box })], universe, { count: SUBSCRIPTIONS, kind: 'one-percent' });
  await preload(brokers, topics, RECORDS, next, progress);
  const worker = await startWorker(`worker (${subject.name})`, env);
  try {
    const raw = Object.values(topics.traffic);
    const drained = await watchDrain(kafka, `${topics.prefix}-ingest`, raw, RECORDS, [worker.pid], { timeoutMs: 600_000, progress, check: () => undefined });
    // VictoriaLogs shows ingested logs within about a second.
    await new Promise((r) => setTimeout(r, 2_000));
    const events = await subject.count({ output, stream, service, stores, kafka });
    return {
      subject: subject.name,
      round,
      'records/s': Math.round(drained.recordsPerSecond),
      'events/s': Math.round((drained.recordsPerSecond * events) / RECORDS),
      'events delivered': events,
      'expected matches/record': Number(workload.expectedMatchesPerRecord.toFixed(2)),
      'worker cores': Number(drained.cores.toFixed(2)),
      'worker peak RSS MiB': Math.round(drained.peakRssMiB),
    };
  } finally {
    await worker.stop();
  }
}

export default async function run(ctx: BenchContext): Promise<BenchReport> {
  const broker = await startBenchBroker(ctx.progress);
  const vl = await VictoriaLogs.start();
  const streams = Array.from({ length: ROUNDS }, (_, i) => `Custom-Bench${i + 1}`);
  const azure = new AzureContractReceiver([APP], [{ ruleId: RULE, streams, publishers: [APP.clientId] }]);
  await azure.start();
  const rows: BenchRow[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const subject of SUBJECTS) {
        ctx.progress(`round ${round}: ${subject.name}`);
        rows.push(await drainOnce(subject, round, broker.brokers, { vl, azure }, ctx.progress));
      }
    }
  } finally {
    await azure.stop();
    await vl.cleanup();
    await broker.stop();
  }
  const best = (name: string) => Math.max(...rows.filter((r) => r.subject === name).map((r) => Number(r['records/s'])));
  const baseline = best(SUBJECTS[0]!.name);
  return {
    title: 'datadog and azure_logs_ingestion end to end: raw topics into VictoriaLogs (Datadog intake) and the Azure contract receiver, against a kafka destination',
    rows: rows.map((r) => ({ ...r, 'x kafka (best rounds)': Number((best(String(r.subject)) / baseline).toFixed(2)) })),
    usesKafka: true,
    settings: { records: RECORDS, rounds: ROUNDS, subscriptions: SUBSCRIPTIONS, workload: 'one-percent' },
    notes: [
      `Each subject: ${RECORDS.toLocaleString('en-US')} preloaded records (80% http_request_complete.v0) on 6 partitions, one worker (the service from source through tsx, ROLES=worker), ${SUBSCRIPTIONS} subscriptions each matching about 1% of records (bench/workload/subscriptions.ts), all delivering to the one destination of the subject. The rate is records committed per second from the first commit seen (bench/e2e/watch.ts): a commit follows only delivered events.`,
      'datadog: gzipped JSON arrays of at most 1,000 logs to VictoriaLogs v1.52.1 (/insert/datadog/api/v2/logs), counted back with LogsQL. azure_logs_ingestion: gzipped rows to the Azure contract receiver (Node, checking each call), a token fetched once. Both stores run on the same 2 cores as the broker and the worker.',
    ],
  };
}
