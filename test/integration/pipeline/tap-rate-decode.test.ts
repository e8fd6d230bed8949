// A worker's tap hub on the real broker: a record offered to an open tap is decoded in full only when the
// tap will send it. Over the tap's 100 events a second, a record is skipped and counted before any of its
// work is done, so a tap whose account sends many large records costs a worker at most its rate in full
// decodes (ARCHITECTURE.md "Isolation"; the hostile-tenant scenario's profile showed every record decoded).
import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { TrafficOwners } from '../../../src/accounts/traffic-owners.js';
import { createRecordDecoder } from '../../../src/records/record-decoder.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import type { FilterableDecoded } from '../../../src/records/record-types.js';
import { TapHub } from '../../../src/tap/tap-hub.js';
import { TAP_EVENTS_PER_SECOND, type TapOpen } from '../../../src/tap/tap-protocol.js';
import { seededRecord } from '../../../src/traffic/seeded-records.js';
import { createTopics, produce, testClient, uniqueName } from '../../support/kafka.js';

const HTTP = 'http_request_complete.v0';
const kafka = testClient('tap-rate-decode');
const prefix = uniqueName('tap-rate');
let hub: TapHub | undefined;

afterAll(async () => {
  await hub?.stop();
});

it("should decode in full only the records an open tap sends, none of those over its rate", async () => {
  const topics = { requests: `${prefix}.tap.requests`, events: `${prefix}.tap.events` };
  await createTopics(kafka, [{ topic: topics.requests, partitions: 1 }, { topic: topics.events, partitions: 1 }]);
  hub = new TapHub({ kafka, requestsTopic: topics.requests, eventsTopic: topics.events, owners: new TrafficOwners(), memberId: () => 'member-1' });
  await hub.start();
  const open: TapOpen = {
    v: 1,
    op: 'open',
    tap: `tap_${randomUUID()}`,
    owner: null,
    sources: [{ type: HTTP, fields: ['conn.server_name', 'http.request.headers'] }],
    ids: { subscription: 'esb_tap', destination: 'ed_tap' },
    timestamp_format: 'rfc3339',
    expires_at: Date.now() + 60_000,
    limit: 10_000,
  };
  await produce(kafka, topics.requests, [{ key: open.tap, value: Buffer.from(JSON.stringify(open)) }]);
  for (let waited = 0; !hub.active; waited += 50) {
    if (waited > 20_000) throw new Error('the hub never applied the open request');
    await new Promise((r) => setTimeout(r, 50));
  }

  const decoder = createRecordDecoder();
  const { value, headers } = encodeRecord(HTTP, seededRecord(HTTP, 1), 'avro');
  let fullDecodes = 0;
  // 1,000 records within a second: ten times the tap's rate.
  for (let i = 0; i < 1_000; i++) {
    const r = decoder.decodeFilterable(HTTP, { value, headers });
    if (!r.ok) throw new Error(r.message);
    const counted: FilterableDecoded = { ...r, full: () => (fullDecodes++, r.full()) };
    hub.offerTraffic(HTTP, counted, { topic: `${prefix}.http`, partition: 0, offset: String(i), timestampMs: Date.now() });
  }
  expect(fullDecodes).toBeGreaterThan(0);
  expect(fullDecodes).toBeLessThanOrEqual(2 * TAP_EVENTS_PER_SECOND);
}, 60_000);
