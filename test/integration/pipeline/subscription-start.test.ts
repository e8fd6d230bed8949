// A subscription receives only records stamped at or after its creation (less the clock skew allowance),
// even when older records are read after it was created: here a worker starts after the subscription.
import type { KafkaClient } from '../../../src/kafka/seam.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigLog } from '../../../src/configlog/config-log.js';
import type { StoredDestination, StoredSubscription } from '../../../src/configlog/resources.js';
import { makeEnvelope } from '../../../src/events/envelope.js';
import { newId } from '../../../src/ids.js';
import { createTopics, produce, testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { makeTraffic, toMessage } from './fixtures.js';
import { TopicCollector, type Collected } from '../../support/topic-collector.js';

const HTTP = 'http_request_complete.v0';
const SKEW_MS = 500;
const prefix = uniqueName('substart');
const outTopic = `${prefix}.out`;
let kafka: KafkaClient;
let configLog: ConfigLog;
let worker: ServiceProcess | undefined;
let out: TopicCollector;

function apiKeyCreated(description: string): Buffer {
  const object = { id: newId('api_key'), uri: 'https://api.example.com/api_keys/x', description, metadata: '', created_at: new Date().toISOString(), token: null };
  return Buffer.from(JSON.stringify(makeEnvelope('api_key_created.v0', object)));
}

async function produceRecords(seqs: number[], audit: string): Promise<void> {
  await produce(kafka, `${prefix}.http`, seqs.map((seq) => toMessage(makeTraffic(HTTP, seq))));
  await produce(kafka, `${prefix}.audit`, [{ key: audit, value: apiKeyCreated(audit), headers: { 'content-type': 'application/json' } }]);
}

beforeAll(async () => {
  kafka = testClient('subscription-start-test');
  await createTopics(kafka, [
    { topic: `${prefix}.http`, partitions: 2 },
    { topic: `${prefix}.tcp`, partitions: 1 },
    { topic: `${prefix}.config`, partitions: 1, compacted: true },
    { topic: `${prefix}.audit`, partitions: 1 },
    { topic: `${prefix}.dlq`, partitions: 1 },
    { topic: outTopic, partitions: 1 },
  ]);
  configLog = new ConfigLog({ kafka: testClient(), topic: `${prefix}.config` });
  await configLog.start();
  out = new TopicCollector(kafka, [outTopic]);
  await out.start();
});

afterAll(async () => {
  await worker?.stop('SIGKILL');
  await out?.stop();
  await configLog?.stop();
});

describe('subscription start', () => {
  it('should not deliver records or audit events stamped before the subscription was created, even when they are read after it', async () => {
    await produceRecords([0, 1, 2, 3, 4, 5, 6, 7], 'before');
    // Past the skew allowance: the records above are older than the subscription by more than it.
    await new Promise((r) => setTimeout(r, SKEW_MS * 3));
    const now = new Date().toISOString();
    const destination: StoredDestination = { id: newId('event_destination'), created_at: now, description: '', metadata: '', format: 'json', target: { kafka: { topic: outTopic } } };
    const subscription: StoredSubscription = {
      id: newId('event_subscription'),
      created_at: now,
      description: '',
      metadata: '',
      sources: [{ type: HTTP, fields: ['http.request.url.path'] }, { type: 'api_key_created.v0' }],
      destination_ids: [destination.id],
    };
    await configLog.write([
      { id: destination.id, kind: 'event_destination', data: destination },
      { id: subscription.id, kind: 'event_subscription', data: subscription },
    ]);
    await produceRecords([100, 101, 102, 103], 'after');

    // The worker's group is new: it reads both topics from the beginning.
    worker = await startService(serviceEnv(prefix, testBrokers(), { ROLES: 'worker', SUBSCRIPTION_CLOCK_SKEW_MS: String(SKEW_MS) }));
    const describe = (m: Collected): string => {
      const e = JSON.parse(m.value) as { event_type: string; object: { description?: string; http?: { request: { url: { path: string } } } } };
      return e.event_type === HTTP ? String(e.object.http?.request.url.path) : `${e.event_type} ${e.object.description}`;
    };
    await out.settled(5, 3_000);
    const seen = out.messages.map(describe).sort();
    expect(seen).toEqual(['/seq/100', '/seq/101', '/seq/102', '/seq/103', 'api_key_created.v0 after'].sort());
  });
});
