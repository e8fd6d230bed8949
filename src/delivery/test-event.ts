// Sends one test envelope straight through a destination's writer (POST /event_destinations/{id}/test_event)
// and reports what the destination answered. No retry and no parking: the caller sees the first answer.
import { accountContext, accountOf } from '../accounts/account.js';
import type { StoredDestination } from '../configlog/resources.js';
import { makeEnvelope, type Principal } from '../events/envelope.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { DeliveryItem, DestinationWriter } from './contract.js';
import type { WriterDeps } from './destination-kind.js';
import { buildWriter } from './build-writer.js';
import { DeliveryError, toDeliveryError } from './errors.js';

/** The event type of test envelopes: not an event type of docs/events.md, so a receiver can tell them apart. */
export const TEST_EVENT_TYPE = 'test_event.v0';

export const DEFAULT_TEST_EVENT_TIMEOUT_MS = 15_000;

export interface TestEventResult {
  readonly delivered: boolean;
  readonly event_id: string;
  /** Why it was not delivered: a delivery error code and the destination's own answer. */
  readonly error?: { readonly code: string; readonly message: string };
}

export type TestEventSender = (destination: StoredDestination, principal: Principal | null, destinationUri: string) => Promise<TestEventResult>;

export function testEventSender(deps: WriterDeps, secrets: SecretBox, timeoutMs = DEFAULT_TEST_EVENT_TIMEOUT_MS): TestEventSender {
  return async (destination, principal, destinationUri) => {
    const envelope = makeEnvelope(
      TEST_EVENT_TYPE,
      { destination: { id: destination.id, uri: destinationUri }, message: 'A test event: this destination is reachable and accepts events.' },
      { principal },
    );
    const item: DeliveryItem = { eventId: envelope.event_id, payload: Buffer.from(JSON.stringify(envelope)), envelope };
    let writer: DestinationWriter | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      writer = buildWriter(destination.target, secrets, deps, accountContext(accountOf(destination))).writer;
      const w = writer;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new DeliveryError('DESTINATION_TIMEOUT', `The destination did not take the test event within ${timeoutMs} ms.`)), timeoutMs);
      });
      const outcome = await Promise.race([(async () => (await w.connect(), w.write([item])))(), deadline]);
      const failure = outcome.failed[0];
      if (failure !== undefined) return { delivered: false, event_id: envelope.event_id, error: { code: failure.error.code, message: failure.error.message } };
      return { delivered: true, event_id: envelope.event_id };
    } catch (err) {
      const e = toDeliveryError(err);
      return { delivered: false, event_id: envelope.event_id, error: { code: e.code, message: e.message } };
    } finally {
      clearTimeout(timer);
      await writer?.close().catch(() => undefined);
    }
  };
}
