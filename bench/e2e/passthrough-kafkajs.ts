// The passthrough baseline with kafkajs: consume the raw topics and produce every record unchanged, with the worker's client settings.
// Run as a child process: BENCH_BROKERS, BENCH_IN_TOPICS (comma-separated), BENCH_OUT_TOPIC, BENCH_GROUP.
import { createKafkaClient, createProducer } from '../../src/kafka/kafkajs/kafkajs-client.js';

const env = (name: string): string => {
  const v = process.env[name];
  if (v === undefined || v === '') throw new Error(`${name} is required`);
  return v;
};

const kafka = createKafkaClient({ clientId: 'bench-passthrough', brokers: env('BENCH_BROKERS'), logLevel: 'error' });
const out = env('BENCH_OUT_TOPIC');
// The same settings as the ingest worker's consumer (ingest-worker.ts) and the kafka writer's producer (kafka-writer.ts).
const consumer = kafka.consumer({ groupId: env('BENCH_GROUP'), maxWaitTimeInMs: 250, readUncommitted: false });
const producer = createProducer(kafka, { idempotent: true, maxInFlightRequests: 1 });
await producer.connect();
await consumer.connect();
for (const topic of env('BENCH_IN_TOPICS').split(',')) await consumer.subscribe({ topic, fromBeginning: true });
await consumer.run({
  autoCommit: false,
  eachBatchAutoResolve: false,
  partitionsConsumedConcurrently: 4,
  eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
    const last = batch.messages[batch.messages.length - 1];
    if (last === undefined) return;
    // The raw record's create time travels in a header, so latency is measured as for the worker's events.
    const messages = batch.messages.map((m) => ({ value: m.value, headers: { 'x-in-ts': m.timestamp } }));
    // kafka-writer.ts caps a write at 1000 records; so does the baseline.
    for (let i = 0; i < messages.length; i += 1000) await producer.send({ topic: out, messages: messages.slice(i, i + 1000), acks: -1 });
    resolveOffset(last.offset);
    await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: String(Number(last.offset) + 1) }]);
    await heartbeat();
  },
});
process.stdout.write('passthrough ready\n');
const stop = (): void => {
  void Promise.allSettled([consumer.disconnect(), producer.disconnect()]).then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
