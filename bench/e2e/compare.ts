// Runs several configurations over the same preloaded records in alternating rounds, then measures each one's latency.
import type { LatencyResult } from './latency.js';
import type { Configuration, DrainReport, KafkaBenchSession } from './session.js';

export interface Compared {
  readonly name: string;
  /** The round with the highest rate: the one least disturbed by the rest of the machine. */
  readonly best: DrainReport;
  readonly rounds: readonly DrainReport[];
  readonly latency?: LatencyResult;
  readonly config: Configuration;
}

export interface CompareOptions {
  readonly rounds: number;
  readonly drainTimeoutMs: number;
  /** Seconds of steady traffic for the latency run (0 skips it). */
  readonly latencySeconds: number;
  /** Share of the slowest best rate to send at during the latency runs. */
  readonly latencyLoad?: number;
}

/**
 * Each round gives every configuration a fresh consumer group (and config topic) over the same
 * records, in the same order; alternating rounds spread the machine's other load over all of them.
 */
export async function compare(session: KafkaBenchSession, factories: readonly { name: string; make: (round: number) => Configuration }[], o: CompareOptions): Promise<Compared[]> {
  const results = factories.map((f) => ({ name: f.name, rounds: [] as DrainReport[], configs: [] as Configuration[] }));
  for (let round = 1; round <= o.rounds; round++) {
    for (const [i, f] of factories.entries()) {
      const config = f.make(round);
      const r = await session.drain(config, o.drainTimeoutMs);
      results[i]?.rounds.push(r);
      results[i]?.configs.push(config);
    }
  }
  const bests = results.map((r) => r.rounds.reduce((a, b) => (b.recordsPerSecond > a.recordsPerSecond ? b : a)));
  const out: Compared[] = [];
  const rate = (o.latencyLoad ?? 0.5) * Math.min(...bests.map((b) => b.recordsPerSecond));
  for (const [i, r] of results.entries()) {
    const config = r.configs[r.configs.length - 1] as Configuration;
    const latency = o.latencySeconds > 0 ? await session.latency(config, rate, o.latencySeconds, o.drainTimeoutMs) : undefined;
    out.push({ name: r.name, best: bests[i] as DrainReport, rounds: r.rounds, config, ...(latency && { latency }) });
  }
  return out;
}
