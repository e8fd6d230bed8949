import type { KafkaClient } from '../../../../src/kafka/seam.js';
import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../../../src/delivery/errors.js';
import type { FailFastWriter } from '../../../../src/delivery/parking/fail-fast-writer.js';
import { Parking } from '../../../../src/delivery/parking/parking.js';
import type { KafkaParkingStore } from '../../../../src/delivery/parking/parking-store.js';
import { FakeWriter, RecordingDeadLetterSink, item } from '../fakes.js';

describe('parking', () => {
  it("should trip the circuit of the writer whose batch it parked, not that of a writer that replaced it meanwhile", async () => {
    const parked: string[] = [];
    const store = {
      onParked: () => undefined,
      topicFor: (id: string) => `edge.retry.${id}`,
      park: async (id: string) => (parked.push(id), []),
    } as unknown as KafkaParkingStore;
    const parking = new Parking({
      kafka: {} as KafkaClient,
      store,
      prefix: 'edge.retry.',
      groupPrefix: 'g',
      runner: () => undefined,
      exists: () => true,
      deadLetter: new RecordingDeadLetterSink(),
    });
    // The pool wraps a runner's writer, then makes its hook; a config update does the same for the next runner.
    const broken = parking.wrapWriter('ed_1', new FakeWriter()) as FailFastWriter;
    const hook = parking.hookFor('ed_1');
    const fixed = parking.wrapWriter('ed_1', new FakeWriter()) as FailFastWriter;
    const error = new DeliveryError('DESTINATION_MISCONFIGURED', 'the secret cannot be opened');
    const decision = await hook({ destinationId: 'ed_1', kind: 'fake', items: [item()], attempts: 1, elapsedMs: 0, lastError: error, signal: new AbortController().signal });
    expect(decision).toBe('parked');
    expect(parked).toEqual(['ed_1']);
    expect({ broken: broken.isTripped, fixed: fixed.isTripped }).toEqual({ broken: true, fixed: false });
  });
});
