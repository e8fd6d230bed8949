// Scenario 6 (short): destinations whose writers cannot be built while records flow, fixed through the
// API half-way, miss no event, and their events were parked with the reason meanwhile.
import { expect, it } from 'vitest';
import { misconfiguredDestination } from '../../chaos/scenarios/misconfigured-destination.js';
import { testBrokers } from '../../support/kafka.js';
import { lossesOf, noLosses, runShort } from './chaos-support.js';

it('destinations whose writers cannot be built should park their events with the reason and miss none once fixed through the API', async () => {
  const { result, report } = await runShort(misconfiguredDestination, { brokers: testBrokers() });
  expect(lossesOf(result), report).toEqual(noLosses(result));
  expect(result.problems, report).toEqual([]);
  expect(result.destinations.map((d) => d.expected), report).toEqual([3_000, 3_000, 3_000]);
  expect(result.figures['error codes of the parked records'], report).toBe('DESTINATION_MISCONFIGURED');
}, 300_000);
