// The azure_blob and gcs destinations end to end: preloaded raw records on a real local broker, one ingest
// worker, its events written as blobs to Azurite and as objects to fake-gcs-server (behind the contract
// token receiver's gate), against the same workload to a kafka destination in the same run. The rate is
// records committed per second (a commit follows only delivered events, so only written objects count);
// objects and events are read back with each store's own client and counted.
import type { StoredDestination } from '../src/configlog/resources.js';
import { SecretBox } from '../src/secrets/secret-box.js';
import { AZURITE_KEY, Azurite } from '../test/support/azurite.js';
import { FakeGcs } from '../test/support/fake-gcs.js';
import { BearerGate, GoogleTokenReceiver, type TestServiceAccount } from '../test/support/google-token-receiver.js';
import { startBenchBroker } from './e2e/broker.js';
import { startWorker } from './e2e/child.js';
import { benchKafka, benchTopics, createTopics, preload, trafficSource, uniquePrefix, workerEnv, writeTargets } from './e2e/setup.js';
import { endOffsets, watchDrain } from './e2e/watch.js';
import type { BenchContext, BenchReport, BenchRow } from './lib/types.js';

const RECORDS = Number(process.env.BENCH_OBJECT_STORES_COUNT ?? 30_000);
const ROUNDS = Number(process.env.BENCH_OBJECT_STORES_ROUNDS ?? 2);
const SUBSCRIPTIONS = 100;

interface Stores {
  readonly azurite: Azurite;
  readonly gcs: FakeGcs;
  readonly gate: BearerGate;
  readonly tokens: GoogleTokenReceiver;
  readonly account: TestServiceAccount;
}

interface Subject {
  readonly name: string;
  /** The stored target, its secret sealed; the store's container or bucket made first. */
  target(stores: Stores, ctx: { output: string; bucket: string }, box: SecretBox): Promise<StoredDestination['target']>;
  /** Objects and events written, read back; undefined for the kafka baseline. */
  readBack?(stores: Stores, bucket: string): Promise<{ objects: number; events: number; bytes: number }>;
}

function count(objects: readonly { name: string; raw: Buffer; text: string }[]) {
  const data = objects.filter((o) => !o.name.includes('_edge-events-check-'));
  return { objects: data.length, bytes: data.reduce((n, o) => n + o.raw.length, 0), events: data.reduce((n, o) => n + o.text.split('\n').filter(Boolean).length, 0) };
}

const SUBJECTS: readonly Subject[] = [
  { name: 'kafka destination (baseline)', target: async (_s, { output }) => ({ kafka: { topic: output } }) },
  {
    name: 'azure_blob, gzip NDJSON (defaults), Azurite',
    target: async (s, { bucket }, box) => {
      await s.azurite.createContainer(bucket);
      return { azure_blob: { auth: { shared_key: { account_key_enc: box.seal(AZURITE_KEY) } }, account_url: s.azurite.accountUrl, container: bucket } };
    },
    readBack: async (s, bucket) => count(await s.azurite.blobs(bucket)),
  },
  {
    name: 'gcs, gzip NDJSON (defaults), fake-gcs-server',
    target: async (s, { bucket }, box) => {
      await s.gcs.createBucket(bucket);
      return { gcs: { bucket, service_account_key_enc: box.seal(s.account.keyJson) } };
    },
    readBack: async (s, bucket) => count(await s.gcs.objects(bucket)),
  },
];

async function drainOnce(subject: Subject, round: number, brokers: string, stores: Stores, progress: (m: string) => void): Promise<BenchRow> {
  const topics = benchTopics(uniquePrefix(`objstores-${round}`));
  const kafka = benchKafka(brokers);
  const output = `${topics.prefix}.out`;
  const bucket = `${topics.prefix}-b`.toLowerCase().replace(/[^a-z0-9-]/g, '-').slice(-60).replace(/^-+/, 'b');
  await createTopics(kafka, topics, subject.readBack === undefined ? [output] : []);
  const { universe, next } = trafficSource();
  const env: Record<string, string> = { ...workerEnv(brokers, topics, `${topics.prefix}-ingest`), GCS_API_URL: stores.gate.url, GCS_TOKEN_URL: stores.tokens.url };
  const box = new SecretBox(Buffer.from(env.SECRET_KEY ?? '', 'hex'));
  const workload = await writeTargets(kafka, topics, [await subject.target(stores, { output, bucket }, box)], universe, { count: SUBSCRIPTIONS, kind: 'one-percent' });
  await preload(brokers, topics, RECORDS, next, progress);
  const worker = await startWorker(`worker (${subject.name})`, env);
  try {
    const drained = await watchDrain(kafka, `${topics.prefix}-ingest`, Object.values(topics.traffic), RECORDS, [worker.pid], { timeoutMs: 600_000, progress, check: () => undefined });
    const written = subject.readBack === undefined ? { objects: 0, events: await endOffsets(kafka, [output]), bytes: 0 } : await subject.readBack(stores, bucket);
    return {
      subject: subject.name,
      round,
      'records/s': Math.round(drained.recordsPerSecond),
      'events/s': Math.round((drained.recordsPerSecond * written.events) / RECORDS),
      'events written': written.events,
      'expected matches/record': Number(workload.expectedMatchesPerRecord.toFixed(2)),
      objects: written.objects,
      'mean object KiB (as stored)': written.objects === 0 ? null : Number((written.bytes / written.objects / 1024).toFixed(1)),
      'worker cores': Number(drained.cores.toFixed(2)),
      'worker peak RSS MiB': Math.round(drained.peakRssMiB),
    };
  } finally {
    await worker.stop();
  }
}

export default async function run(ctx: BenchContext): Promise<BenchReport> {
  const broker = await startBenchBroker(ctx.progress);
  const [azurite, gcs] = await Promise.all([Azurite.start(), FakeGcs.start()]);
  const tokens = new GoogleTokenReceiver();
  await tokens.start();
  const gate = new BearerGate(tokens, gcs.url);
  await gate.start();
  const stores: Stores = { azurite, gcs, gate, tokens, account: tokens.addAccount('bench@edge-events-test.iam.gserviceaccount.com') };
  const rows: BenchRow[] = [];
  try {
    // Alternating rounds spread the machine's other load over every subject.
    for (let round = 1; round <= ROUNDS; round++) {
      for (const subject of SUBJECTS) {
        ctx.progress(`round ${round}: ${subject.name}`);
        rows.push(await drainOnce(subject, round, broker.brokers, stores, ctx.progress));
      }
    }
  } finally {
    await gate.stop();
    await tokens.stop();
    await Promise.all([azurite.stop(), gcs.stop()]);
    await broker.stop();
  }
  const best = (name: string) => Math.max(...rows.filter((r) => r.subject === name).map((r) => Number(r['records/s'])));
  const baseline = best(SUBJECTS[0]!.name);
  return {
    title: 'azure_blob and gcs end to end: raw topics to blobs in Azurite and objects in fake-gcs-server, against a kafka destination',
    rows: rows.map((r) => ({ ...r, 'x kafka (best rounds)': Number((best(String(r.subject)) / baseline).toFixed(2)) })),
    usesKafka: true,
    settings: { records: RECORDS, rounds: ROUNDS, subscriptions: SUBSCRIPTIONS, workload: 'one-percent' },
    notes: [
      `Each subject: ${RECORDS.toLocaleString('en-US')} preloaded records (80% http_request_complete.v0) on 6 partitions, one worker (the service from source through tsx, ROLES=worker), ${SUBSCRIPTIONS} subscriptions each matching about 1% of records (bench/workload/subscriptions.ts), all delivering to the one destination of the subject. The rate is records committed per second from the first commit seen (bench/e2e/watch.ts): a commit follows only delivered events, so a record counts once the object holding its events is written.`,
      'The stores are emulators on the same 2 cores (Azurite in Node, fake-gcs-server in Go, behind the test gate that checks each token against the contract token receiver); the ratio to the kafka destination in the same run is the figure to compare. The gcs worker makes one token exchange per destination and keeps the token.',
      'objects: one per (batch, event type) under the default prefix {event_type}/{date}/, cut as object_store cuts them (src/delivery/destinations/objects/README.md).',
    ],
  };
}
