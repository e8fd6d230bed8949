// The cloud writers under injected faults: a proxy in front of the emulator answers with throttling and
// 5xx errors and fails some entries of a batch; the runner retries only what failed and every record arrives.
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryItem } from '../../../src/delivery/contract.js';
import { DestinationRunner } from '../../../src/delivery/destination-runner.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import type { Settlement } from '../../../src/delivery/runner-options.js';
import { createWriter } from '../../../src/delivery/writer-registry.js';
import { AwsFaultProxy, type FaultScript } from '../../support/aws-fault-proxy.js';
import { RecordingDeadLetters, SpyWriter, testItems } from '../delivery/writer-contract.js';
import { createResource, motoEndpoint, readAtLeast, targetFor, type CloudResourceKind } from './cloud-fixtures.js';
import { writerDeps } from '../../support/writer-deps.js';

const deps = writerDeps({ cloud: { timeoutMs: 5_000 } });

let proxy: AwsFaultProxy | undefined;
afterEach(async () => {
  await proxy?.stop();
});

/** Per kind: the put operation, and the faults injected on its first calls. */
const CASES: Record<CloudResourceKind, { operation: string; script: FaultScript; batches: number[]; codes: string[] }> = {
  data_stream: {
    operation: 'PutRecords',
    script: ({ n }) =>
      [
        { status: 400, error: 'ProvisionedThroughputExceededException' },
        { status: 500, error: 'InternalFailure' },
        { failIndexes: [0, 5, 99], errorCode: 'ProvisionedThroughputExceededException' },
        { failIndexes: [1], errorCode: 'InternalFailure' },
      ][n],
    batches: [100, 100, 100, 3, 1, 100, 100, 100],
    codes: ['DESTINATION_THROTTLED', 'DESTINATION_SERVER_ERROR', 'DESTINATION_THROTTLED', 'DESTINATION_THROTTLED', 'DESTINATION_THROTTLED', 'DESTINATION_SERVER_ERROR'],
  },
  delivery_stream: {
    operation: 'PutRecordBatch',
    script: ({ n }) =>
      [
        { status: 400, error: 'ServiceUnavailableException' },
        { status: 500, error: 'InternalFailure' },
        { failIndexes: [0, 5, 99], errorCode: 'ServiceUnavailableException' },
        { failIndexes: [1], errorCode: 'InternalFailure' },
      ][n],
    batches: [100, 100, 100, 3, 1, 100, 100, 100],
    codes: ['DESTINATION_THROTTLED', 'DESTINATION_SERVER_ERROR', 'DESTINATION_THROTTLED', 'DESTINATION_THROTTLED', 'DESTINATION_THROTTLED', 'DESTINATION_SERVER_ERROR'],
  },
  // CloudWatch Logs has no retryable per-event failures: whole calls are throttled or fail.
  log_service: {
    operation: 'PutLogEvents',
    script: ({ n }) =>
      [
        { status: 400, error: 'ThrottlingException' },
        { status: 503, error: 'ServiceUnavailableException' },
        { status: 500, error: 'InternalFailure' },
      ][n],
    batches: [100, 100, 100, 100, 100, 100, 100],
    codes: ['DESTINATION_THROTTLED', 'DESTINATION_THROTTLED', 'DESTINATION_SERVER_ERROR'],
  },
};

describe.each(Object.keys(CASES) as CloudResourceKind[])('%s writer under injected faults', (kind) => {
  it('should deliver every record exactly once through throttling, 5xx answers and partial failures, retrying only the failed entries', async () => {
    const c = CASES[kind];
    const resource = await createResource(kind);
    proxy = new AwsFaultProxy(motoEndpoint());
    await proxy.start();
    proxy.script = (call) => (call.operation === c.operation ? c.script(call) : undefined);
    const spy = new SpyWriter(createWriter(targetFor(resource, { endpoint: proxy.endpoint }), deps));
    const settled = new Map<DeliveryItem, Settlement>();
    const runner = new DestinationRunner({
      destinationId: `ed_faults_${kind}`,
      writer: spy,
      budget: new InFlightBudget(),
      deadLetter: new RecordingDeadLetters(),
      onSettled: (item, s) => settled.set(item, s),
      batching: { maxRecords: 100, lingerMs: 5 },
      retry: { baseDelayMs: 20, maxDelayMs: 100 },
    });
    runner.start();
    const items = testItems(400);
    for (const i of items) runner.enqueue(i);
    await runner.flush();
    await runner.close();

    expect(spy.batches.map((b) => b.records)).toEqual(c.batches);
    // Each failed entry is reported once per failure; the injected faults are all that failed.
    expect([...new Set(spy.failures)].sort()).toEqual([...new Set(c.codes)].sort());
    expect(proxy.faults.length).toBe(kind === 'log_service' ? 3 : 4);
    expect(items.every((i) => settled.get(i) === 'acked')).toBe(true);
    const got = await readAtLeast(resource, items.length);
    // Failed entries were taken out of the request, so a retry duplicates nothing.
    expect(got.map((g) => g.envelope.event_id).sort()).toEqual(items.map((i) => i.eventId).sort());
  });
});

describe('retry waits on throttling', () => {
  it('should wait at least a second before retrying a throttled call', async () => {
    const resource = await createResource('data_stream');
    proxy = new AwsFaultProxy(motoEndpoint());
    await proxy.start();
    const calls: number[] = [];
    proxy.script = ({ operation, n }) => {
      if (operation !== 'PutRecords') return undefined;
      calls.push(Date.now());
      return n === 0 ? { failIndexes: [0], errorCode: 'ProvisionedThroughputExceededException' } : undefined;
    };
    const runner = new DestinationRunner({
      destinationId: 'ed_throttle_wait',
      writer: createWriter(targetFor(resource, { endpoint: proxy.endpoint }), deps),
      budget: new InFlightBudget(),
      deadLetter: new RecordingDeadLetters(),
      onSettled: () => undefined,
      batching: { lingerMs: 5 },
      retry: { baseDelayMs: 1, maxDelayMs: 2 },
    });
    runner.start();
    for (const i of testItems(5)) runner.enqueue(i);
    await runner.flush();
    await runner.close();
    expect(calls).toHaveLength(2);
    expect(calls[1]! - calls[0]!).toBeGreaterThanOrEqual(950);
  });
});
