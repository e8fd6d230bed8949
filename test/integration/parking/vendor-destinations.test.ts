// Parking per vendor kind, against the real broker: a splunk_hec destination (the HEC contract receiver,
// test/support/splunk-hec-receiver.ts) and an elasticsearch destination (a real OpenSearch node behind a
// forwarder that can be taken down) go away; their events park past the retry budget, and once the
// destination is back the re-driver delivers every one of them.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { StoredTarget } from '../../../src/configlog/resources.js';
import { OpenSearchFront } from '../../support/opensearch/security-front.js';
import { openSearchCall, searchAll, startOpenSearch, type OpenSearchNode } from '../../support/opensearch/opensearch-node.js';
import { SplunkHecReceiver } from '../../support/splunk-hec-receiver.js';
import { testItems } from '../delivery/writer-contract.js';
import { parkingHarness, until, type ParkingHarness } from './parking-harness.js';

let harness: ParkingHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('parking of vendor destinations', () => {
  let node: OpenSearchNode;
  beforeAll(async () => {
    node = await startOpenSearch();
  }, 150_000);
  afterAll(async () => {
    await node?.stop();
  });

  it('should park a splunk_hec destination while its collector is down and re-drive every event once it is back', async () => {
    const token = '11111111-2222-3333-4444-555555555555';
    const receiver = new SplunkHecReceiver([{ token, ack: true }]);
    await receiver.start();
    try {
      const h = (harness = await parkingHarness());
      const id = h.putDestination({ splunk_hec: { url: receiver.url, token_enc: h.secrets.seal(token), ack: true } } as StoredTarget);
      await receiver.stop();
      const items = testItems(60);
      h.enqueue(id, items);
      await until(() => items.every((i) => h.settled.get(i.eventId) === 'parked'), 20_000, 'the events to be parked');
      expect(receiver.events).toEqual([]);
      await receiver.start();
      const got = () => new Set(receiver.events.map((e) => (e.event as { event_id: string }).event_id));
      await until(() => items.every((i) => got().has(i.eventId)), 30_000, 'every parked event at the collector');
      expect(h.deadLetter.letters).toEqual([]);
    } finally {
      await receiver.stop();
    }
  });

  it('should park an elasticsearch destination while the cluster is unreachable and re-drive every event once, by id', async () => {
    const front = new OpenSearchFront(node.url);
    await front.start();
    const index = `edge-park-${Date.now()}`;
    try {
      const h = (harness = await parkingHarness());
      const id = h.putDestination({ elasticsearch: { url: front.url, index } } as StoredTarget);
      await front.stop();
      const items = testItems(60);
      h.enqueue(id, items);
      await until(() => items.every((i) => h.settled.get(i.eventId) === 'parked'), 20_000, 'the events to be parked');
      await front.start();
      await until(async () => (await searchAll(node.url, index)).length >= items.length, 30_000, 'every parked event in the index');
      const docs = await searchAll(node.url, index);
      expect(docs.map((d) => d._id).sort()).toEqual(items.map((i) => i.eventId).sort());
      expect(h.deadLetter.letters).toEqual([]);
    } finally {
      await front.stop();
      await openSearchCall(node.url, 'DELETE', `/${index}`);
    }
  });
});
