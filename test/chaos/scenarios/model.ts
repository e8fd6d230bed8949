// The model-based scenario (test/model/README.md): random configurations and traffic from consecutive
// seeds, each held to the model. `npm run chaos -- model --seeds N [--seed first]`; a failing seed
// reproduces alone with `--seeds 1 --seed <it>` (or MODEL_SEED=<it> in the integration test).
import type { Scenario, ScenarioContext, ScenarioResult } from '../harness/scenario.js';
import { runModel } from '../../model/run.js';
import { startMoto, type MotoServer } from '../../support/moto.js';

export const model: Scenario = {
  name: 'model',
  summary: 'Random accounts, destinations, subscriptions, traffic and admin changes from a seed, held to an independent model of what each destination must receive.',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const started = Date.now();
    const seeds = ctx.seeds ?? 1;
    const problems: string[] = [];
    const totals = { records: 0, malformed: 0, adminChanges: 0, subscriptions: 0, destinations: 0, expectedEvents: 0, deliveredEvents: 0, duplicates: 0, replays: 0, replayedEvents: 0 };
    const failed: number[] = [];
    // The cloud kinds join the draw when the AWS emulator can start here.
    let moto: MotoServer | undefined;
    try {
      moto = await startMoto();
    } catch (err) {
      ctx.log(`without the cloud kinds: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    }
    try {
      for (let i = 0; i < seeds; i++) {
        const seed = ctx.seed + i;
        const result = await runModel({ brokers: ctx.broker.brokers, seed, scale: ctx.scale, log: ctx.log, ...(moto !== undefined && { motoEndpoint: moto.endpoint }) });
        for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += result.figures[k];
        if (result.problems.length > 0) {
          failed.push(seed);
          problems.push(...result.problems.slice(0, 20).map((p) => `seed ${seed}: ${p}`));
          if (result.problems.length > 20) problems.push(`seed ${seed}: and ${result.problems.length - 20} more`);
        }
      }
    } finally {
      await moto?.stop();
    }
    return {
      scenario: this.name,
      scale: ctx.scale,
      durationMs: Date.now() - started,
      injected: [`${seeds} seeds from ${ctx.seed}: random configurations${moto === undefined ? ' (without the cloud kinds)' : ''}, traffic (Avro and JSON, some malformed), pauses and admin changes`],
      records: totals.records,
      destinations: [],
      figures: {
        seeds,
        'seeds failing': failed.length === 0 ? 'none' : failed.join(', '),
        subscriptions: totals.subscriptions,
        destinations: totals.destinations,
        'valid records': totals.records,
        'malformed records': totals.malformed,
        'admin changes': totals.adminChanges,
        '(event, destination) pairs expected': totals.expectedEvents,
        'events delivered (distinct)': totals.deliveredEvents,
        duplicates: totals.duplicates,
        'replays (all reached done)': totals.replays,
        '(event, destination) pairs replayed': totals.replayedEvents,
      },
      problems,
    };
  },
};
