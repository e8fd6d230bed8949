// Latency from produce to delivered at one fixed rate, for workers that differ only in their environment,
// in alternating rounds (the order reversed every other round: the first worker measured after another's
// run catches up on its records, and was up to 10x slower, bench/results/PROFILE.md "Latency at half load").
//
//   LATENCY_VARIANTS='{"a":{},"b":{"HEAP_GROWTH_PERCENT":"0"}}' LATENCY_RATE=20000 LATENCY_ROUNDS=4 \
//     LATENCY_WORKLOAD=one-percent npx tsx bench/profile/latency-rounds.ts
//
// A variant whose name ends in "@base" runs from the checkout BASE_ROOT names (base-root.ts).
// Prints one JSON line per measurement. The sender, the broker and the workers share the machine's cores.
import { KafkaBenchSession } from '../e2e/session.js';
import type { SubscriptionKind } from '../workload/subscriptions.js';
import { rootOf } from './base-root.js';

const variants = Object.entries(JSON.parse(process.env.LATENCY_VARIANTS ?? '{"worker":{}}') as Record<string, Record<string, string>>);
const rate = Number(process.env.LATENCY_RATE ?? 20_000);
const rounds = Number(process.env.LATENCY_ROUNDS ?? 2);
const seconds = Number(process.env.LATENCY_SECONDS ?? 15);
const kind = (process.env.LATENCY_WORKLOAD ?? 'fifth-percent') as SubscriptionKind;
const progress = (m: string): void => void process.stderr.write(`${m}\n`);

const session = await KafkaBenchSession.open('latency-rounds', progress);
try {
  await session.preload(20_000);
  const configs = variants.map(([name, env]) => ({ name, config: session.worker(`worker-${name.replace(/@base$/, '-base')}`, 100, { kind, env, root: rootOf(name) }) }));
  for (let round = 0; round < rounds; round++) {
    for (const { name, config } of round % 2 === 0 ? configs : [...configs].reverse()) {
      const l = await session.latency(config, rate, seconds, 300_000);
      console.log(JSON.stringify({ round, name, rate, sentPerSecond: Math.round(l.sentPerSecond), events: l.events, p50: l.p50, p90: l.p90, p99: l.p99, max: l.max }));
    }
  }
} finally {
  await session.close();
}
