// The passthrough baseline with @platformatic/kafka 2.x: consume the raw topics and produce every record unchanged, with the worker's client settings.
// Run as a child process: BENCH_BROKERS, BENCH_IN_TOPICS (comma-separated), BENCH_OUT_TOPIC, BENCH_GROUP.
import { Consumer, Producer, type Message } from '@platformatic/kafka';

const env = (name: string): string => {
  const v = process.env[name];
  if (v === undefined || v === '') throw new Error(`${name} is required`);
  return v;
};

const bootstrapBrokers = env('BENCH_BROKERS').split(',');
const out = env('BENCH_OUT_TOPIC');
/**
 * As the kafkajs baseline: writes of at most 1000 records, at most 4 waiting (its partitionsConsumedConcurrently),
 * one on the wire at a time. An idempotent producer must not overlap writes to a partition (the broker
 * refuses out-of-order sequence numbers); kafkajs gets the same from maxInFlightRequests: 1.
 */
const MAX_BATCH = 1000;
const MAX_IN_FLIGHT = 4;
const LINGER_MS = 5;
// Without serializers, this client takes Buffers only, header names included.
const IN_TS = Buffer.from('x-in-ts');

// The service's kafkajs clients retry 10 times (src/kafka/client.ts); this client's defaults (5 s per
// request, 3 retries) give up on a broker slowed by a busy machine. A join can wait a whole rebalance
// timeout (30 s below) for the group, so requests get longer than that.
const common = { clientId: 'bench-passthrough', bootstrapBrokers, timeout: 45_000, retries: 10 };
const consumer = new Consumer({ ...common, groupId: env('BENCH_GROUP'), maxWaitTime: 250 });
// Idempotent with acks=all, as the kafka writer's producer.
const producer = new Producer({ ...common, idempotent: true, acks: -1 });
// kafkajs's defaults: a 30 s session and 3 s heartbeats (this client wants rebalanceTimeout >= sessionTimeout).
const stream = await consumer.consume({
  topics: env('BENCH_IN_TOPICS').split(','),
  mode: 'committed',
  fallbackMode: 'earliest',
  autocommit: false,
  maxWaitTime: 250,
  sessionTimeout: 30_000,
  rebalanceTimeout: 30_000,
  heartbeatInterval: 3_000,
});

let batch: Message[] = [];
let inFlight = 0;
let timer: NodeJS.Timeout | undefined;
let wire: Promise<unknown> = Promise.resolve();

/** This client wraps causes in AggregateErrors several levels deep; the innermost messages say what happened. */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const inner = (err as Error & { errors?: unknown[] }).errors ?? [];
  return inner.length === 0 ? err.message : `${err.message} (${[...new Set(inner.map(describe))].join('; ')})`;
}

async function send(messages: Message[]): Promise<void> {
  inFlight++;
  if (inFlight >= MAX_IN_FLIGHT) stream.pause();
  try {
    const write = wire.then(() =>
      producer.send({ messages: messages.map((m) => ({ topic: out, value: m.value, headers: new Map([[IN_TS, Buffer.from(String(m.timestamp))]]) })) }),
    );
    wire = write.catch(() => undefined);
    await write;
    // Commit behind what was written: the last record of each partition in this write.
    const last = new Map<string, Message>();
    for (const m of messages) last.set(`${m.topic}/${m.partition}`, m);
    await Promise.all([...last.values()].map((m) => m.commit()));
  } catch (err) {
    process.stderr.write(`passthrough write failed: ${describe(err)}\n`);
    process.exit(1);
  } finally {
    inFlight--;
    if (inFlight < MAX_IN_FLIGHT) stream.resume();
  }
}

function flush(): void {
  if (timer !== undefined) clearTimeout(timer);
  timer = undefined;
  if (batch.length === 0) return;
  const messages = batch;
  batch = [];
  void send(messages);
}

stream.on('data', (m: Message) => {
  batch.push(m);
  if (batch.length >= MAX_BATCH) flush();
  else timer ??= setTimeout(flush, LINGER_MS);
});
stream.on('error', (err: Error) => {
  process.stderr.write(`passthrough stream failed: ${err.message}\n`);
  process.exit(1);
});
process.stdout.write('passthrough ready\n');
const stop = (): void => {
  // In order: stop reading, leave the group (so a restart need not wait for the session to expire), then close the producer.
  void (async () => {
    await stream.close().catch(() => undefined);
    await consumer.close().catch(() => undefined);
    await producer.close().catch(() => undefined);
    process.exit(0);
  })();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
