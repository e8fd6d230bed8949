// `npm run chaos [-- <scenario>...] [--short] [--seed N] [--seeds N]`: runs the full fault scenarios against a broker of
// their own on 127.0.0.1 and prints the figures RELIABILITY.md quotes. Exits 1 when any promise broke.
import { missingOf, formatResult, type Scale, type ScenarioResult } from './harness/scenario.js';
import { startRestartableBroker } from './harness/service-cluster.js';
import { progressLog } from './harness/timing.js';
import { SCENARIOS } from './scenarios/index.js';

function parseArgs(argv: readonly string[]): { names: string[]; scale: Scale; seed: number; seeds: number } {
  const names: string[] = [];
  let scale: Scale = 'full';
  let seed = Date.now() % 1_000_000;
  let seeds = 1;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--short') scale = 'short';
    else if (a === '--seed') seed = Number(argv[++i]);
    else if (a === '--seeds') seeds = Number(argv[++i]);
    else names.push(a);
  }
  const known = SCENARIOS.map((s) => s.name);
  const unknown = names.filter((n) => !known.includes(n));
  if (unknown.length > 0 || !Number.isInteger(seed) || !Number.isInteger(seeds) || seeds < 1) {
    throw new Error(`usage: npm run chaos [-- <scenario>...] [--short] [--seed N] [--seeds N]; scenarios: ${known.join(', ')}${unknown.length > 0 ? `; unknown: ${unknown.join(', ')}` : ''}`);
  }
  return { names: names.length > 0 ? names : known, scale, seed, seeds };
}

async function main(): Promise<number> {
  const { names, scale, seed, seeds } = parseArgs(process.argv.slice(2));
  const log = progressLog('chaos');
  log(`scenarios: ${names.join(', ')}; scale ${scale}; seed ${seed}${seeds > 1 ? ` (${seeds} seeds)` : ''}`);
  const broker = await startRestartableBroker(log);
  const results: ScenarioResult[] = [];
  let failed = false;
  try {
    for (const name of names) {
      const scenario = SCENARIOS.find((s) => s.name === name);
      if (scenario === undefined) continue;
      try {
        const result = await scenario.run({ broker, scale, seed, seeds, log: progressLog(name) });
        results.push(result);
        process.stdout.write(`\n${formatResult(result)}`);
        if (missingOf(result) > 0 || result.problems.length > 0) failed = true;
      } catch (err) {
        failed = true;
        process.stdout.write(`\n## ${name}\n\nFAILED: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      }
    }
  } finally {
    await broker.close();
  }
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(2);
  },
);
