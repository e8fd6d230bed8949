// End to end through a real local broker: raw topics -> ingest worker -> kafka destinations, against the kcat
// copy and the same client's copy (e2e/e2e-run.ts). BENCH_E2E_CLIENTS picks the clients (default: the service's);
// BENCH_E2E_JSON=0 leaves out the workers on the JSON copy of the records.
import { DEFAULT_KAFKA_CLIENT, isKafkaClientName } from '../src/kafka/client.js';
import type { KafkaClientName } from '../src/kafka/seam.js';
import { runE2e } from './e2e/e2e-run.js';
import type { BenchContext, BenchReport } from './lib/types.js';

function clients(): KafkaClientName[] {
  const names = (process.env.BENCH_E2E_CLIENTS ?? DEFAULT_KAFKA_CLIENT).split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !isKafkaClientName(n));
  if (unknown.length > 0) throw new Error(`BENCH_E2E_CLIENTS names unknown clients: ${unknown.join(', ')}`);
  return names as KafkaClientName[];
}

export default function run(ctx: BenchContext): Promise<BenchReport> {
  return runE2e('End to end through Kafka: raw topics to kafka destinations, against the kcat copy', ctx.progress, {
    clients: clients(),
    records: Number(process.env.BENCH_E2E_COUNT ?? 1_000_000),
    latencySeconds: Number(process.env.BENCH_E2E_LATENCY_SECONDS ?? 15),
    heapVariant: process.env.BENCH_E2E_HEAP_VARIANT === '1',
    targets: true,
    json: process.env.BENCH_E2E_JSON !== '0',
  });
}
