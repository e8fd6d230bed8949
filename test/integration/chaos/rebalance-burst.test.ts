// Scenario 6 (short): a worker joins the group while the http destination holds every request, then one
// leaves, all in the middle of a delivery burst; no event may be missing at any destination.
import { expect, it } from 'vitest';
import { rebalanceBurst } from '../../chaos/scenarios/rebalance-burst.js';
import { testBrokers } from '../../support/kafka.js';
import { lossesOf, noLosses, runShort } from './chaos-support.js';

it('workers joining and leaving the group mid-burst, a join while the http destination holds its requests, should leave no event missing', async () => {
  const { result, report } = await runShort(rebalanceBurst, { brokers: testBrokers() });
  expect(lossesOf(result), report).toEqual(noLosses(result));
  expect(result.problems, report).toEqual([]);
  expect(result.records).toBe(8_000);
  // The join waited for the drain deadline (3 s) after a heartbeat (3 s at most), not for the held requests.
  expect(result.figures['longest group join, ms'], report).toBeLessThan(12_000);
}, 300_000);
