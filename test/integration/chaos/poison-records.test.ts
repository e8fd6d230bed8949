// Scenario 4 (short): malformed records of every kind interleaved with valid ones, under filters that
// leave many records unmatched. One run; each promise is its own test, so a failure names the one broken.
import { beforeAll, describe, expect, it } from 'vitest';
import { poisonRecords } from '../../chaos/scenarios/poison-records.js';
import { testBrokers } from '../../support/kafka.js';
import { lossesOf, noLosses, runShort, type ShortRun } from './chaos-support.js';

let run: ShortRun;

beforeAll(async () => {
  run = await runShort(poisonRecords, { brokers: testBrokers() });
}, 300_000);

describe('poison records', () => {
  it('every valid record should reach the destinations whose filters match it, and nothing else should', () => {
    expect(lossesOf(run.result), run.report).toEqual(noLosses(run.result));
    expect(run.result.records).toBe(5_000);
  });

  it('the worker should never crash or restart', () => {
    expect(run.result.figures['worker processes started'], run.report).toBe(1);
    expect(run.result.figures['consumer crashes logged'], run.report).toBe(0);
    expect(run.result.problems.filter((p) => /exited|crashed|did not survive/.test(p)), run.report).toEqual([]);
  });

  it('every malformed record a subscription reads, and every one broken in its filterable fields, should be dead-lettered with its source, error and own headers', () => {
    expect(run.result.figures['malformed records'], run.report).toBe(1_000);
    expect(run.result.figures['of those missing from the dead-letter topic'], run.report).toBe(0);
    expect(run.result.figures['dead letters with wrong headers or bytes'], run.report).toBe(0);
  });

  it('malformed records that no subscription matches should be dead-lettered too', () => {
    // The promise for every malformed record (ARCHITECTURE.md "Delivery semantics"). The worker reads only the filterable fields of a
    // record nothing matches (docs/record-formats.md, "Cheap reads"), so this fails while it does.
    const unmatched = run.result.figures['malformed records with tail damage no subscription matched'];
    expect(unmatched, run.report).toBeGreaterThan(0);
    expect(run.result.figures['of those dead-lettered'], run.report).toBe(unmatched);
  });
});
