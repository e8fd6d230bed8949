// Scenario 3 (short): an http destination answering 503 for a while loses nothing, and neither does the
// healthy destination beside it.
import { expect, it } from 'vitest';
import { destinationOutage } from '../../chaos/scenarios/destination-outage.js';
import { testBrokers } from '../../support/kafka.js';
import { lossesOf, noLosses, runShort } from './chaos-support.js';

it('a destination answering 503 for six seconds should miss no event once it recovers, and the healthy destination beside it should keep receiving events throughout', async () => {
  const { result, report } = await runShort(destinationOutage, { brokers: testBrokers() });
  expect(lossesOf(result), report).toEqual(noLosses(result));
  expect(result.problems, report).toEqual([]);
  expect(result.destinations.map((d) => d.expected)).toEqual([result.records, result.records]);
  // Isolation: once the failing destination's retry budget (1 s) is spent its deliveries are parked, so
  // the healthy one keeps pace. Without parking it stalls with the rest of the worker (under 2% here).
  const during = result.figures['outage 1 (answers 503): healthy destination during, events/s'];
  const produced = result.figures['produce rate, records/s'];
  expect(typeof during === 'number' && typeof produced === 'number' && during > 0.25 * produced, report).toBe(true);
}, 300_000);
