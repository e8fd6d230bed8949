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

/**
 * The outcome of a test event, in the service's own words: whether it was delivered, the destination's
 * answer code (the HTTP status) when it has one, how long it took, and why not. Nothing the destination
 * sent back (an answer's body) is ever repeated: SECURITY.md "Egress".
 */
export interface TestEventResult {
  readonly delivered: boolean;
  readonly event_id: string;
  /** The destination's answer code: the HTTP status of an http destination, null for the other kinds or when none came. */
  readonly status_code: number | null;
  /** From the connect to the answer, in milliseconds. */
  readonly duration_ms: number;
  /** Why it was not delivered: a delivery error code and the writer's message. */
  readonly error?: { readonly code: string; readonly message: string };
}

export type TestEventSender = (destination: StoredDestination, principal: Principal | null, destinationUri: string) => Promise<TestEventResult>;

export function testEventSender(deps: WriterDeps, secrets: SecretBox, timeoutMs = DEFAULT_TEST_EVENT_TIMEOUT_MS): TestEventSender {
  return async (destination, principal, destinationUri) => {
    const envelope = makeEnvelope(
      TEST_EVENT_TYPE,
      { destination: { id: destination.id, uri: destinationUri }, message: 'A test event: this destination is reachable and accepts events.' },
      { principal, ...(destination.timestamp_format !== undefined && { format: destination.timestamp_format }) },
    );
    const item: DeliveryItem = { eventId: envelope.event_id, payload: Buffer.from(JSON.stringify(envelope)), envelope };
    let writer: DestinationWriter | undefined;
    let timer: NodeJS.Timeout | undefined;
    const started = performance.now();
    const answer = (status: number | undefined, error?: DeliveryError): TestEventResult => ({
      delivered: error === undefined,
      event_id: envelope.event_id,
      status_code: status ?? null,
      duration_ms: Math.round(performance.now() - started),
      ...(error !== undefined && { error: { code: error.code, message: error.message } }),
    });
    try {
      writer = buildWriter(destination.target, secrets, deps, accountContext(accountOf(destination))).writer;
      const w = writer;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new DeliveryError('DESTINATION_TIMEOUT', `The destination did not take the test event within ${timeoutMs} ms.`)), timeoutMs);
      });
      const outcome = await Promise.race([(async () => (await w.connect(), w.write([item])))(), deadline]);
      const failure = outcome.failed[0];
      return answer(failure?.error.status ?? outcome.status, failure?.error);
    } catch (err) {
      const e = toDeliveryError(err);
      return answer(e.status, e);
    } finally {
      clearTimeout(timer);
      await writer?.close().catch(() => undefined);
    }
  };
}
