// Scenario 7 (short): events larger than the retry topic's limit while their destination is down: parking
// splits its batches, an event over the limit alone is dead-lettered with the reason, and nothing stalls.
import { expect, it } from 'vitest';
import { oversizeParking } from '../../chaos/scenarios/oversize-parking.js';
import { testBrokers } from '../../support/kafka.js';
import { lossesOf, noLosses, runShort } from './chaos-support.js';

it("events larger than the retry topic's limit while their destination is down should be split into parking or dead-lettered with the reason, with none missing and no stall", async () => {
  const { result, report } = await runShort(oversizeParking, { brokers: testBrokers() });
  expect(lossesOf(result), report).toEqual(noLosses(result));
  expect(result.problems, report).toEqual([]);
  const healthy = result.figures['healthy destination during the outage, events/s'];
  const produced = result.figures['http events produced, events/s'];
  // Without the split, the first parking batch over the limit is retried forever and the worker stalls.
  expect(typeof healthy === 'number' && typeof produced === 'number' && healthy > 0.25 * produced, report).toBe(true);
}, 300_000);
