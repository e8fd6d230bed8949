// What the ingest worker's integration tests share: a destination runner that settles into the test's
// offset tracker, and a router for one raw http topic.
import type { Signal } from '../../../src/delivery/clock.js';
import type { DeliveryItem, DestinationWriter } from '../../../src/delivery/contract.js';
import type { DeadLetterSink } from '../../../src/delivery/dead-letter.js';
import { DestinationRunner } from '../../../src/delivery/destination-runner.js';
import type { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import type { OffsetTracker } from '../../../src/delivery/offset-tracker.js';
import type { TrafficEventType } from '../../../src/events/catalog.js';
import { RecordRouter } from '../../../src/ingest/record-router.js';
import { createAuditDecoder } from '../../../src/records/audit-decoder.js';
import { createRecordDecoder } from '../../../src/records/record-decoder.js';
import type { SubscriptionSet } from '../../../src/subscriptions/subscription-set.js';

export const HTTP: TrafficEventType = 'http_request_complete.v0';

export interface Settling {
  readonly tracker: OffsetTracker;
  readonly settled: Signal;
  readonly budget: InFlightBudget;
  readonly deadLetter: DeadLetterSink;
}

/** A runner whose settled deliveries settle their records in the tracker and wake the worker, as the service's pool does. */
export function settlingRunner(destinationId: string, writer: DestinationWriter, s: Settling): DestinationRunner {
  return new DestinationRunner({
    destinationId,
    writer,
    budget: s.budget,
    deadLetter: s.deadLetter,
    batching: { lingerMs: 5 },
    onSettled: (item: DeliveryItem) => {
      if (item.source !== undefined) s.tracker.settle(item.source);
      s.settled.notify();
    },
  });
}

/** The service's router for `topic` carrying http records, validating every record. */
export function httpRouter(topic: string, subscriptions: SubscriptionSet): RecordRouter {
  return new RecordRouter({
    subscriptions,
    decoder: createRecordDecoder({ validateAll: true }),
    auditDecoder: createAuditDecoder(),
    trafficTopics: new Map([[topic, HTTP]]),
    auditTopic: `${topic}.audit`,
    clockSkewMs: 5_000,
  });
}
