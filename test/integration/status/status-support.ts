// Reading a destination's status through the real admin API, and feeding its subscription real records,
// for the status tests.
import { expect } from 'vitest';
import type { AdminHarness, Body } from '../admin/admin-harness.js';
import { produce, testClient } from '../../support/kafka.js';
import { makeTraffic, toMessage } from '../pipeline/fixtures.js';

export interface ApiStatus {
  readonly state: 'unknown' | 'ok' | 'failing' | 'parked';
  readonly last_delivered_at: string | null;
  readonly last_error: { readonly code: string; readonly message: string; readonly at: string } | null;
  readonly parked_events: number;
  readonly oldest_parked_at: string | null;
  readonly stalled_since: string | null;
}

export async function statusOf(api: AdminHarness, id: string): Promise<ApiStatus> {
  const r = await api.call('GET', `/event_destinations/${id}`);
  expect(r.status, r.text).toBe(200);
  return r.json.status as ApiStatus;
}

/** Polls the status every 200 ms until `accept` holds; resolves with it and how long it took, or fails after `ms` with the last one seen. */
export async function statusWhen(api: AdminHarness, id: string, accept: (s: ApiStatus) => boolean, ms: number, what: string): Promise<{ status: ApiStatus; afterMs: number }> {
  const started = Date.now();
  let last: ApiStatus | undefined;
  while (Date.now() - started <= ms) {
    last = await statusOf(api, id);
    if (accept(last)) return { status: last, afterMs: Date.now() - started };
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`The status did not show ${what} within ${ms} ms; the last one was ${JSON.stringify(last)}`);
}

export async function createDestination(api: AdminHarness, body: unknown): Promise<Body> {
  const r = await api.call('POST', '/event_destinations', { body });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

/** A subscription sending every tcp_connection_closed.v0 record, with its sequence number (conn.bytes_in), to the destinations. */
export async function subscribeAll(api: AdminHarness, destinationIds: readonly string[]): Promise<void> {
  const r = await api.call('POST', '/event_subscriptions', {
    body: { description: 'every tcp record', destination_ids: destinationIds, sources: [{ type: 'tcp_connection_closed.v0', fields: ['conn.bytes_in'] }] },
  });
  expect(r.status, r.text).toBe(201);
}

/** Produces tcp records with sequence numbers from..from+count-1 to the harness's raw topic. */
export async function produceTcp(api: AdminHarness, from: number, count: number): Promise<void> {
  await produce(testClient(), `${api.prefix}.tcp`, Array.from({ length: count }, (_, i) => toMessage(makeTraffic('tcp_connection_closed.v0', from + i))));
}

/** The sequence numbers (conn.bytes_in) of delivered envelopes. */
export function sequences(envelopes: readonly { object: unknown }[]): Set<number> {
  return new Set(envelopes.map((e) => (e.object as { conn: { bytes_in: number } }).conn.bytes_in));
}
