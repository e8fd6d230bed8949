// Scenario 1 (short): the worker killed with SIGKILL at random points mid-stream and restarted loses nothing.
import { expect, it } from 'vitest';
import { killWorker } from '../../chaos/scenarios/kill-worker.js';
import { testBrokers } from '../../support/kafka.js';
import { lossesOf, noLosses, runShort } from './chaos-support.js';

it('a worker killed with SIGKILL three times mid-stream and restarted each time should leave no event missing at any destination', async () => {
  const { result, report } = await runShort(killWorker, { brokers: testBrokers() });
  expect(lossesOf(result), report).toEqual(noLosses(result));
  expect(result.problems, report).toEqual([]);
  expect(result.figures.kills, report).toBe(3);
  expect(result.records).toBe(20_000);
}, 300_000);
