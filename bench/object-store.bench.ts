// The object_store destination end to end: preloaded raw records on a real local broker, one ingest worker,
// its events written as objects to the AWS emulator's S3 (moto), against the same workload to a kafka
// destination in the same run. The rate is records committed per second (a commit follows only delivered
// events, so for object_store only written objects); objects and events are read back and counted.
import { gunzipSync } from 'node:zlib';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { StoredDestination } from '../src/configlog/resources.js';
import { SecretBox } from '../src/secrets/secret-box.js';
import { MOTO_CREDENTIALS, startMoto, type MotoServer } from '../test/support/moto.js';
import { startBenchBroker } from './e2e/broker.js';
import { startWorker } from './e2e/child.js';
import { benchKafka, benchTopics, createTopics, preload, trafficSource, uniquePrefix, workerEnv, writeTargets } from './e2e/setup.js';
import { endOffsets, watchDrain } from './e2e/watch.js';
import type { BenchContext, BenchReport, BenchRow } from './lib/types.js';

const RECORDS = Number(process.env.BENCH_OBJECT_STORE_COUNT ?? 100_000);
const ROUNDS = Number(process.env.BENCH_OBJECT_STORE_ROUNDS ?? 2);
const SUBSCRIPTIONS = 100;

interface Subject {
  readonly name: string;
  /** The destination's target, its secret in clear (sealed before it is stored). */
  target(ctx: { output: string; bucket: string; endpoint: string }): StoredDestination['target'];
  readonly bucket: boolean;
}

const CREDS = { cloud_access_key_id: MOTO_CREDENTIALS.accessKeyId, cloud_secret_access_key: MOTO_CREDENTIALS.secretAccessKey };
const SUBJECTS: readonly Subject[] = [
  { name: 'kafka destination (baseline)', bucket: false, target: ({ output }) => ({ kafka: { topic: output } }) },
  { name: 'object_store, gzip NDJSON (defaults)', bucket: true, target: ({ bucket, endpoint }) => ({ object_store: { auth: { creds: CREDS }, bucket, endpoint } }) },
  { name: 'object_store, gzip CSV', bucket: true, target: ({ bucket, endpoint }) => ({ object_store: { auth: { creds: CREDS }, bucket, endpoint, output_type: 'csv' } }) },
];

/** The target as the config log stores it: the secret sealed with the worker's SECRET_KEY. */
function sealed(target: StoredDestination['target'], box: SecretBox): StoredDestination['target'] {
  const store = (target as { object_store?: { auth: { creds: typeof CREDS } } }).object_store;
  if (store === undefined) return target;
  const { cloud_secret_access_key: secret, ...creds } = store.auth.creds;
  return { object_store: { ...store, auth: { creds: { ...creds, cloud_secret_access_key_enc: box.seal(secret) } } } };
}

async function readBack(s3: S3Client, bucket: string): Promise<{ objects: number; events: number; bytes: number }> {
  let objects = 0;
  let events = 0;
  let bytes = 0;
  let token: string | undefined;
  do {
    const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ...(token && { ContinuationToken: token }) }));
    for (const o of page.Contents ?? []) {
      if (o.Key?.includes('_edge-events-check-') === true) continue;
      const raw = Buffer.from((await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key }))).Body?.transformToByteArray()) ?? []);
      const lines = gunzipSync(raw).toString('utf8').split(/\r?\n/).filter(Boolean);
      objects++;
      bytes += raw.length;
      events += o.Key?.includes('.csv') === true ? lines.length - 1 : lines.length;
    }
    token = page.NextContinuationToken;
  } while (token !== undefined);
  return { objects, events, bytes };
}

async function drainOnce(subject: Subject, round: number, brokers: string, moto: MotoServer, s3: S3Client, progress: (m: string) => void): Promise<BenchRow> {
  const topics = benchTopics(uniquePrefix(`objstore-${round}`));
  const kafka = benchKafka(brokers);
  const output = `${topics.prefix}.out`;
  const bucket = `${topics.prefix}-bucket`.toLowerCase();
  await createTopics(kafka, topics, subject.bucket ? [] : [output]);
  if (subject.bucket) await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  const { universe, next } = trafficSource();
  const env = workerEnv(brokers, topics, `${topics.prefix}-ingest`);
  const box = new SecretBox(Buffer.from(env.SECRET_KEY ?? '', 'hex'));
  const workload = await writeTargets(kafka, topics, [sealed(subject.target({ output, bucket, endpoint: moto.endpoint }), box)], universe, {
    count: SUBSCRIPTIONS,
    kind: 'one-percent',
  });
  await preload(brokers, topics, RECORDS, next, progress);
  const worker = await startWorker(`worker (${subject.name})`, env);
  try {
    const raw = Object.values(topics.traffic);
    const drained = await watchDrain(kafka, `${topics.prefix}-ingest`, raw, RECORDS, [worker.pid], { timeoutMs: 600_000, progress, check: () => undefined });
    const written = subject.bucket ? await readBack(s3, bucket) : { objects: 0, events: await endOffsets(kafka, [output]), bytes: 0 };
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
  const moto = await startMoto();
  const s3 = new S3Client({ region: 'us-east-1', endpoint: moto.endpoint, credentials: MOTO_CREDENTIALS, forcePathStyle: true });
  const rows: BenchRow[] = [];
  try {
    // Alternating rounds spread the machine's other load over every subject.
    for (let round = 1; round <= ROUNDS; round++) {
      for (const subject of SUBJECTS) {
        ctx.progress(`round ${round}: ${subject.name}`);
        rows.push(await drainOnce(subject, round, broker.brokers, moto, s3, ctx.progress));
      }
    }
  } finally {
    s3.destroy();
    await moto.stop();
    await broker.stop();
  }
  const best = (name: string) => Math.max(...rows.filter((r) => r.subject === name).map((r) => Number(r['records/s'])));
  const baseline = best(SUBJECTS[0]!.name);
  const withRatio = rows.map((r) => ({ ...r, 'x kafka (best rounds)': Number((best(String(r.subject)) / baseline).toFixed(2)) }));
  return {
    title: 'object_store end to end: raw topics to objects in the emulator\'s S3, against a kafka destination',
    rows: withRatio,
    usesKafka: true,
    settings: { records: RECORDS, rounds: ROUNDS, subscriptions: SUBSCRIPTIONS, workload: 'one-percent' },
    notes: [
      `Each subject: ${RECORDS.toLocaleString('en-US')} preloaded records (80% http_request_complete.v0) on 6 partitions, one worker (the service from source through tsx, ROLES=worker), ${SUBSCRIPTIONS} subscriptions each matching about 1% of records (bench/workload/subscriptions.ts), all delivering to the one destination of the subject. The rate is records committed per second from the first commit seen (bench/e2e/watch.ts): a commit follows only delivered events, so an object_store record counts once the object holding its events is written.`,
      'The store is moto, a Python emulator on the same 2 cores: its PutObject costs more CPU than S3 would, so these figures bound the worker from below; the ratio to the kafka destination in the same run is the figure to compare.',
      'objects: one per (batch, event type) under the default prefix {event_type}/{date}/; with the default upload limits (8 MiB, 10,000 events, 30 s) an object is cut when the worker has routed a fetched batch (src/delivery/destinations/object-store/README.md), so objects are about one fetch per partition.',
    ],
  };
}
