// The model-based end-to-end test's short run (test/model/README.md): one random seed (20 to 40 s on the
// shared two-core machine), a random configuration and traffic on the suite's broker held to the
// independent model. The seed is printed; MODEL_SEED=<seed> runs it again, and `npm run chaos -- model
// --seeds N` runs many.
import { describe, expect, it } from 'vitest';
import { runModel } from '../../model/run.js';
import { testBrokers } from '../../support/kafka.js';
import { motoEndpoint } from '../cloud/cloud-fixtures.js';

const fromEnv = process.env.MODEL_SEED;
const seeds = [fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) : Date.now() % 1_000_000];

describe('the pipeline against the model', () => {
  it.each(seeds)('seed %i: every destination should receive exactly the events the model derives, every malformed record should be dead-lettered and every partition committed to its end', async (seed) => {
    const lines: string[] = [];
    process.stderr.write(`model seed ${seed} (MODEL_SEED=${seed} npx vitest run test/integration/model reproduces it)\n`);
    const result = await runModel({ brokers: testBrokers(), motoEndpoint: motoEndpoint(), vendors: true, stores: true, seed, scale: 'short', log: (l) => lines.push(l), settleMs: 20_000 });
    expect(result.problems, `seed ${seed}; reproduce with MODEL_SEED=${seed}\n${lines.join('\n')}`).toEqual([]);
    // A draw whose filters let nothing through would prove nothing: the plan must have made deliveries to check.
    expect(result.figures.deliveredEvents, lines.join('\n')).toBeGreaterThan(0);
  }, 90_000);
});
