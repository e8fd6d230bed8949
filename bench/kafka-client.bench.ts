// The Kafka clients compared end to end (e2e/e2e-run.ts): each client's copy and the worker on it, beside the kcat copy, in one run.
// kafkajs was compared here until its removal (its figures stay in results/kafka-client.md and kafka-client-choice.md);
// the one client behind the seam is measured now.
import { KAFKA_CLIENT_NAMES } from '../src/kafka/seam.js';
import { runE2e } from './e2e/e2e-run.js';
import type { BenchContext, BenchReport } from './lib/types.js';

export default function run(ctx: BenchContext): Promise<BenchReport> {
  return runE2e('Kafka client: @platformatic/kafka end to end, beside the kcat copy', ctx.progress, {
    clients: [...KAFKA_CLIENT_NAMES],
    records: Number(process.env.BENCH_KAFKA_CLIENT_COUNT ?? 500_000),
    latencySeconds: Number(process.env.BENCH_KAFKA_CLIENT_LATENCY_SECONDS ?? 15),
    heapVariant: false,
  });
}
