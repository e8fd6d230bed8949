// The passthrough through the service's own Kafka seam on @platformatic/kafka (src/kafka/platformatic/): the
// worker's group consumer (per-partition batches, four partitions at a time, commits by hand) and the kafka
// writer's idempotent producer, copying every record unchanged to one topic and committing behind what was
// written. What the service's client path costs with none of the service's routing; passthrough-platformatic.ts
// is the same job on the bare client.
// Run as a child process: BENCH_BROKERS, BENCH_IN_TOPICS (comma-separated), BENCH_OUT_TOPIC, BENCH_GROUP.
import { platformaticClient } from '../../src/kafka/platformatic/platformatic-adapter.js';
import type { OutgoingMessage } from '../../src/kafka/seam.js';

const env = (name: string): string => {
  const v = process.env[name];
  if (v === undefined || v === '') throw new Error(`${name} is required`);
  return v;
};

/** As the kafka writer's batches: at most 1,000 records a send. */
const MAX_BATCH = 1000;
const out = env('BENCH_OUT_TOPIC');
const client = platformaticClient({ clientId: 'bench-passthrough-adapter', brokers: env('BENCH_BROKERS').split(',') });
const producer = client.idempotentProducer({ retries: 10 });
await producer.connect();
const consumer = client.groupConsumer({
  groupId: env('BENCH_GROUP'),
  topics: env('BENCH_IN_TOPICS').split(','),
  sessionTimeoutMs: 30_000,
  heartbeatIntervalMs: 3_000,
  maxWaitMs: 250,
  partitionsConcurrently: 4,
});
await consumer.start(async (batch, scope) => {
  for (let i = 0; i < batch.messages.length; i += MAX_BATCH) {
    const part = batch.messages.slice(i, i + MAX_BATCH);
    const messages: OutgoingMessage[] = part.map((m) => ({ value: m.value, headers: { 'x-in-ts': m.timestamp } }));
    await producer.send(out, messages);
    const last = part[part.length - 1];
    if (last === undefined) continue;
    scope.resolve(last.offset);
    // Gathered by the consumer's commit timer, as the worker's commits are: the next batch need not wait for it.
    consumer.commit(batch.topic, batch.partition, Number(last.offset) + 1).catch((err: unknown) => process.stderr.write(`passthrough commit failed: ${String(err)}\n`));
  }
});
process.stdout.write('passthrough ready\n');
const stop = (): void => {
  void (async () => {
    await consumer.stop().catch(() => undefined);
    await producer.close().catch(() => undefined);
    process.exit(0);
  })();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
