// Scenario 8 (short): SIGTERM while the re-driver works through a parked backlog, then a restart: the
// deliveries in flight at the stop are re-driven again, and no event is missing.
import { expect, it } from 'vitest';
import { sigtermRedrive } from '../../chaos/scenarios/sigterm-redrive.js';
import { testBrokers } from '../../support/kafka.js';
import { lossesOf, noLosses, runShort } from './chaos-support.js';

it('a worker stopped with SIGTERM while re-driving a parked backlog and restarted should leave no event missing', async () => {
  const { result, report } = await runShort(sigtermRedrive, { brokers: testBrokers() });
  expect(lossesOf(result), report).toEqual(noLosses(result));
  expect(result.problems, report).toEqual([]);
  expect(result.records).toBe(6_000);
}, 300_000);
