// The shape every fault scenario shares: its context (broker, scale, seed, progress), and the result
// it returns, with the figures RELIABILITY.md quotes.
import { totals, type DestinationCheck } from './checker.js';
import type { ChaosBroker } from './service-cluster.js';
import type { Progress } from './timing.js';

/** short: the version in `npm test`; full: `npm run chaos`. */
export type Scale = 'short' | 'full';

export interface ScenarioContext {
  readonly broker: ChaosBroker;
  readonly scale: Scale;
  readonly seed: number;
  /** How many consecutive seeds, from `seed`, a scenario that takes several runs (the model) runs. */
  readonly seeds?: number;
  readonly log: Progress;
}

export interface ScenarioResult {
  readonly scenario: string;
  readonly scale: Scale;
  readonly durationMs: number;
  /** What was done to the system, one sentence each. */
  readonly injected: readonly string[];
  /** Valid records produced. */
  readonly records: number;
  readonly destinations: readonly DestinationCheck[];
  /** Scenario-specific measurements (recovery times, rates, counts), with their units in the name. */
  readonly figures: Readonly<Record<string, number | string>>;
  /** Anything that broke a promise other than a missing event: a crash, a restart, a corrupt line. */
  readonly problems: readonly string[];
}

export interface Scenario {
  readonly name: string;
  readonly summary: string;
  run(ctx: ScenarioContext): Promise<ScenarioResult>;
}

/** Missing (event, destination) pairs over every destination: the number that must be 0. */
export function missingOf(result: ScenarioResult): number {
  return totals(result.destinations).missing;
}

export function formatResult(r: ScenarioResult): string {
  const t = totals(r.destinations);
  const lines = [
    `## ${r.scenario} (${r.scale}, ${(r.durationMs / 1000).toFixed(1)} s)`,
    '',
    ...r.injected.map((i) => `- injected: ${i}`),
    '',
    `records: ${r.records}   (event, destination) pairs: ${t.expected}   missing: ${t.missing}   duplicates: ${t.duplicates}   unexpected: ${t.unexpected}`,
    '',
    '| destination | expected | delivered (distinct) | deliveries | missing | duplicates | unexpected |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...r.destinations.map(
      (d) =>
        `| ${d.destination} | ${d.expected} | ${d.distinct} | ${d.deliveries} | ${d.missing}${d.missing > 0 ? ` (e.g. ${d.missingSample.join(', ')})` : ''} | ${d.duplicates} | ${d.unexpected}${d.unexpected > 0 ? ` (e.g. ${d.unexpectedSample.join(', ')})` : ''} |`,
    ),
    '',
    ...Object.entries(r.figures).map(([k, v]) => `- ${k}: ${typeof v === 'number' ? formatNumber(v) : v}`),
    ...(r.problems.length > 0 ? ['', 'PROBLEMS:', ...r.problems.map((p) => `- ${p}`)] : []),
  ];
  return `${lines.join('\n')}\n`;
}

function formatNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
