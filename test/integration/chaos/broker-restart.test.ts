// Scenario 2 (short): the broker stopped and started again mid-stream loses nothing, and deliveries resume.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startRestartableBroker, type ChaosBroker } from '../../chaos/harness/service-cluster.js';
import { brokerRestart } from '../../chaos/scenarios/broker-restart.js';
import { lossesOf, noLosses, runShort } from './chaos-support.js';

// A broker of this test's own: restarting the suite's shared broker would disturb nothing else only by luck.
let broker: (ChaosBroker & { close(): Promise<void> }) | undefined;

beforeAll(async () => {
  broker = await startRestartableBroker(() => undefined);
});

afterAll(async () => {
  await broker?.close();
});

it('a broker restart in the middle of a backlog should leave no event missing, and deliveries should resume within a minute of the broker being back', async () => {
  const { result, report } = await runShort(brokerRestart, broker as ChaosBroker);
  expect(lossesOf(result), report).toEqual(noLosses(result));
  expect(result.problems, report).toEqual([]);
  const recovery = result.figures['recovery: broker ready to first http delivery, ms'];
  expect(typeof recovery === 'number' && recovery >= 0 && recovery < 60_000, report).toBe(true);
}, 300_000);
