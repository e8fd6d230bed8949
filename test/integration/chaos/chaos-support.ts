// Runs a fault scenario's short version inside the integration suite and turns its result into
// assertions that name what broke, with the seed that reproduces it (`npm run chaos -- <name> --short --seed N`).
import type { ScenarioContext, ScenarioResult, Scenario } from '../../chaos/harness/scenario.js';
import { formatResult } from '../../chaos/harness/scenario.js';
import type { ChaosBroker } from '../../chaos/harness/service-cluster.js';

export interface ShortRun {
  readonly result: ScenarioResult;
  /** The result table and the progress lines, for failure messages. */
  readonly report: string;
}

export async function runShort(scenario: Scenario, broker: ChaosBroker): Promise<ShortRun> {
  const seed = Number(process.env.CHAOS_SEED ?? Date.now() % 1_000_000);
  const lines: string[] = [];
  const started = Date.now();
  const ctx: ScenarioContext = {
    broker,
    scale: 'short',
    seed,
    log: (m) => lines.push(`[${scenario.name} ${((Date.now() - started) / 1000).toFixed(1)}s] ${m}`),
  };
  const result = await scenario.run(ctx);
  return { result, report: `seed ${seed}\n${lines.join('\n')}\n${formatResult(result)}` };
}

/** The per-destination numbers that must be zero, in a shape whose diff reads well. */
export function lossesOf(result: ScenarioResult): Array<{ destination: string; missing: number; unexpected: number }> {
  return result.destinations.map((d) => ({ destination: d.destination, missing: d.missing, unexpected: d.unexpected }));
}

export function noLosses(result: ScenarioResult): Array<{ destination: string; missing: number; unexpected: number }> {
  return result.destinations.map((d) => ({ destination: d.destination, missing: 0, unexpected: 0 }));
}
