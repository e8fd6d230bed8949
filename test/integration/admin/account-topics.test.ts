// A normal account's room on the service's own cluster, on the real broker (SECURITY.md "Egress"): the
// partitions of every topic under its prefix count, whichever destination made the topic and whether or not
// it still exists, so create/delete churn cannot pile topics up; a destination's delete may take its topic.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClient, withAdmin } from '../../support/kafka.js';
import { startAdmin, type AdminHarness } from './admin-harness.js';

let h: AdminHarness;
const kafka = testClient('account-topics-test');

beforeAll(async () => {
  h = await startAdmin({ env: { ACCOUNT_TOPIC_MAX_PARTITIONS: '4', ACCOUNT_MAX_PARTITIONS: '8' } });
});
afterAll(async () => {
  await h?.stop();
});

async function account(description: string): Promise<{ id: string; token: string }> {
  const a = await h.call('POST', '/accounts', { body: { description } });
  const key = await h.call('POST', '/api_keys', { body: { account_id: a.json.id } });
  expect(key.status, key.text).toBe(201);
  return { id: a.json.id, token: key.json.token };
}

const topicsOnBroker = (prefix: string): Promise<string[]> => withAdmin(kafka, async (admin) => (await admin.listTopics()).filter((t) => t.startsWith(prefix)).sort());

describe("a normal account's topics on the service's own cluster", () => {
  it('should count the topics its deleted destinations left, and take a topic with its destination on request', async () => {
    const shop = await account('topic churn');
    const made = async (name: string) => h.call('POST', '/event_destinations', { token: shop.token, body: { target: { kafka: { topic: `${shop.id}.${name}`, partitions: 4 } } } });
    // Two rounds of create and delete (the delete leaves the topic, as it always did by default).
    for (const name of ['one', 'two']) {
      const d = await made(name);
      expect(d.status, d.text).toBe(201);
      expect((await h.call('DELETE', `/event_destinations/${d.json.id}`, { token: shop.token })).status).toBe(204);
    }
    expect(await topicsOnBroker(`${shop.id}.`)).toEqual([`${shop.id}.one`, `${shop.id}.two`]);
    // A third topic would take the account past its 8 partitions, though it lists no destination.
    const third = await made('three');
    expect([third.status, third.json.error_code], third.text).toEqual([409, 'account_partition_limit']);
    expect(third.json.details).toMatchObject({ field: 'target.kafka.partitions', account_id: shop.id, used: 8, topics: 2, partitions: 4, limit: 8 });
    expect(await topicsOnBroker(`${shop.id}.`)).toEqual([`${shop.id}.one`, `${shop.id}.two`]);
    // A destination on a topic that exists adds nothing; deleted with delete_topic, it takes the topic along.
    const again = await made('one');
    expect(again.status, again.text).toBe(201);
    const gone = await h.call('DELETE', `/event_destinations/${again.json.id}?delete_topic=true`, { token: shop.token });
    expect(gone.status, gone.text).toBe(204);
    expect(await topicsOnBroker(`${shop.id}.`)).toEqual([`${shop.id}.two`]);
    expect((await made('three')).status).toBe(201);
  });

  it('should refuse delete_topic for a topic another destination writes to, and for a topic on another cluster', async () => {
    const shop = await account('topic shared');
    const body = { target: { kafka: { topic: `${shop.id}.shared`, partitions: 1 } } };
    const first = await h.call('POST', '/event_destinations', { token: shop.token, body });
    const second = await h.call('POST', '/event_destinations', { token: shop.token, body });
    expect([first.status, second.status]).toEqual([201, 201]);
    const shared = await h.call('DELETE', `/event_destinations/${first.json.id}?delete_topic=true`, { token: shop.token });
    expect([shared.status, shared.json.error_code, shared.json.details?.destination_ids]).toEqual([409, 'topic_in_use', [second.json.id]]);
    expect((await h.call('GET', `/event_destinations/${first.json.id}`, { token: shop.token })).status).toBe(200);
    const elsewhere = await h.call('POST', '/event_destinations', { token: shop.token, body: { target: { kafka: { topic: `${shop.id}.far`, brokers: ['kafka.example.com:9092'] } }, verify: false } });
    expect(elsewhere.status, elsewhere.text).toBe(201);
    const far = await h.call('DELETE', `/event_destinations/${elsewhere.json.id}?delete_topic=true`, { token: shop.token });
    expect([far.status, far.json.error_code]).toEqual([400, 'invalid_parameter']);
    const file = await h.call('DELETE', `/event_destinations/${first.json.id}`, { token: shop.token });
    expect(file.status).toBe(204);
    expect(await topicsOnBroker(`${shop.id}.`)).toEqual([`${shop.id}.shared`]);
  });
});
