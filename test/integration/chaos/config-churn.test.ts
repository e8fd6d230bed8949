// Scenario 5 (small short version): subscriptions created and deleted through the admin API while records
// flow through a separate worker process.
import { expect, it } from 'vitest';
import { configChurn } from '../../chaos/scenarios/config-churn.js';
import { testBrokers } from '../../support/kafka.js';
import { lossesOf, noLosses, runShort } from './chaos-support.js';

it('subscriptions created and deleted under load should get every event of their lifetime and none after their deletion was acknowledged', async () => {
  const { result, report } = await runShort(configChurn, { brokers: testBrokers() });
  expect(lossesOf(result), report).toEqual(noLosses(result));
  expect(result.problems, report).toEqual([]);
  expect(result.figures['events after an acknowledged deletion'], report).toBe(0);
  expect(result.figures['API calls answered unexpectedly'], report).toBe(0);
  // A rule that required nothing would prove nothing: the lifetimes must have held events.
  expect(result.destinations[1]?.expected, report).toBeGreaterThan(100);
}, 300_000);
