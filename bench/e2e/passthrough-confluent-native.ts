// The passthrough on @confluentinc/kafka-javascript's native API (librdkafka's own consumer and producer,
// not its KafkaJS-compatible layer): the same job as passthrough-platformatic.ts. The package is not a
// dependency of the project (bench/results/kafka-client-choice.md says why): CKJS_MODULE_DIR names a
// directory whose node_modules holds a build of it.
// Run as a child process: BENCH_BROKERS, BENCH_IN_TOPICS (comma-separated), BENCH_OUT_TOPIC, BENCH_GROUP, CKJS_MODULE_DIR.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const env = (name: string): string => {
  const v = process.env[name];
  if (v === undefined || v === '') throw new Error(`${name} is required`);
  return v;
};

interface NativeMessage {
  readonly value: Buffer | null;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
}
interface NativeConsumer {
  connect(options: object, cb: (err: Error | null) => void): void;
  subscribe(topics: string[]): void;
  consume(count: number, cb: (err: Error | null, messages: NativeMessage[]) => void): void;
  commit(offsets: { topic: string; partition: number; offset: number }[]): void;
  setDefaultConsumeTimeout(ms: number): void;
  disconnect(cb: () => void): void;
}
interface NativeProducer {
  connect(options: object, cb: (err: Error | null) => void): void;
  produce(topic: string, partition: number | null, value: Buffer | null, key: Buffer | null, timestamp: number | null, opaque: unknown, headers: Record<string, string>[]): boolean;
  setPollInBackground(on: boolean): void;
  on(event: 'delivery-report', cb: (err: Error | null, report: { opaque: unknown }) => void): void;
  flush(ms: number, cb: () => void): void;
  disconnect(cb: () => void): void;
}
interface Native {
  KafkaConsumer: new (conf: object, topicConf: object) => NativeConsumer;
  Producer: new (conf: object, topicConf?: object) => NativeProducer;
}

const Kafka = createRequire(join(env('CKJS_MODULE_DIR'), 'package.json'))('@confluentinc/kafka-javascript') as Native;
const brokers = env('BENCH_BROKERS');
const out = env('BENCH_OUT_TOPIC');
/** As the other passthroughs: reads of at most 1000 records, at most 4 being written. */
const MAX_BATCH = 1000;
const MAX_IN_FLIGHT = 4;

const connect = (c: NativeConsumer | NativeProducer): Promise<void> => new Promise((resolve, reject) => c.connect({}, (err) => (err === null ? resolve() : reject(err))));
// The worker's consumer settings: a 30 s session, 3 s heartbeats, fetches held up to 250 ms, read committed.
const consumer = new Kafka.KafkaConsumer(
  { 'bootstrap.servers': brokers, 'group.id': env('BENCH_GROUP'), 'enable.auto.commit': false, 'session.timeout.ms': 30_000, 'heartbeat.interval.ms': 3_000, 'fetch.wait.max.ms': 250, 'isolation.level': 'read_committed' },
  { 'auto.offset.reset': 'earliest' },
);
// The kafka writer's: idempotent with acks=all, and a short linger as the passthroughs'.
const producer = new Kafka.Producer({ 'bootstrap.servers': brokers, 'enable.idempotence': true, acks: 'all', 'linger.ms': 5, dr_cb: true });

interface Batch {
  pending: number;
  readonly last: Map<string, { topic: string; partition: number; offset: number }>;
}
/** Reads being written, in the order they were read: commits go out in that order, so none moves an offset back. */
const reads: Batch[] = [];
let stopping = false;

producer.on('delivery-report', (err, report) => {
  if (err !== null) {
    process.stderr.write(`passthrough write failed: ${err.message}\n`);
    process.exit(1);
  }
  (report.opaque as Batch).pending--;
  // Commit behind what was written: the next offset of each partition's last record in each read done.
  while (reads[0]?.pending === 0) {
    const done = reads.shift() as Batch;
    consumer.commit([...done.last.values()].map((p) => ({ ...p, offset: p.offset + 1 })));
  }
  read();
});

let reading = false;

function read(): void {
  if (stopping || reading || reads.length >= MAX_IN_FLIGHT) return;
  reading = true;
  consumer.consume(MAX_BATCH, (err, messages) => {
    reading = false;
    if (err !== null) {
      process.stderr.write(`passthrough read failed: ${err.message}\n`);
      process.exit(1);
    }
    if (messages.length === 0) {
      setImmediate(read);
      return;
    }
    const batch: Batch = { pending: messages.length, last: new Map() };
    reads.push(batch);
    for (const m of messages) {
      producer.produce(out, null, m.value, null, null, batch, [{ 'x-in-ts': String(m.timestamp) }]);
      batch.last.set(`${m.topic}/${m.partition}`, { topic: m.topic, partition: m.partition, offset: m.offset });
    }
    read();
  });
}

await Promise.all([connect(consumer), connect(producer)]);
producer.setPollInBackground(true);
consumer.setDefaultConsumeTimeout(250);
consumer.subscribe(env('BENCH_IN_TOPICS').split(','));
read();
process.stdout.write('passthrough ready\n');
const stop = (): void => {
  stopping = true;
  consumer.disconnect(() => producer.flush(5_000, () => producer.disconnect(() => process.exit(0))));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
