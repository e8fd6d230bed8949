// Event ids on the real broker: one per (record, subscription, destination), the same when the records are read again.
import type { KafkaClient } from '../../../src/kafka/seam.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigLog } from '../../../src/configlog/config-log.js';
import type { StoredDestination, StoredSubscription } from '../../../src/configlog/resources.js';
import { newId } from '../../../src/ids.js';
import { createTopics, produce, testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { makeTraffic, toMessage } from './fixtures.js';
import { TopicCollector } from '../../support/topic-collector.js';

const HTTP = 'http_request_complete.v0';
const RECORDS = 40;
const prefix = uniqueName('evid');
const topicA = `${prefix}.out.a`;
const topicB = `${prefix}.out.b`;

interface Arrival {
  readonly topic: string;
  readonly key: string;
  readonly eventId: string;
  readonly seq: number;
}

const now = new Date().toISOString();
const destination = (id: string, topic: string): StoredDestination => ({ id, created_at: now, description: '', metadata: '', format: 'json', target: { kafka: { topic } } });
const destA = destination(newId('event_destination'), topicA);
const destB = destination(newId('event_destination'), topicB);
const subscription = (fields: string[], destinations: string[]): StoredSubscription => ({
  id: newId('event_subscription'),
  created_at: now,
  description: '',
  metadata: '',
  sources: [{ type: HTTP, fields }],
  destination_ids: destinations,
});
// Two field sets; the first is used by two subscriptions, and one of them also goes to a second destination.
const ipAndPath = ['conn.client_ip', 'http.request.url.path'];
const hostAndPath = ['conn.server_name', 'http.request.url.path'];
const subs = [subscription(ipAndPath, [destA.id, destB.id]), subscription(hostAndPath, [destA.id]), subscription(ipAndPath, [destA.id])];

let kafka: KafkaClient;
let configLog: ConfigLog;
let reader: TopicCollector;
const services: ServiceProcess[] = [];

function arrivals(): Arrival[] {
  return reader.messages.map((m) => {
    const envelope = JSON.parse(m.value) as { event_id: string; object: { http: { request: { url: { path: string } } } } };
    return { topic: m.topic, key: String(m.key), eventId: envelope.event_id, seq: Number(envelope.object.http.request.url.path.slice('/seq/'.length)) };
  });
}

beforeAll(async () => {
  kafka = testClient('event-ids-test');
  await createTopics(kafka, [
    { topic: `${prefix}.http`, partitions: 2 },
    { topic: `${prefix}.tcp`, partitions: 1 },
    { topic: `${prefix}.config`, partitions: 1, compacted: true },
    { topic: `${prefix}.audit`, partitions: 1 },
    { topic: `${prefix}.dlq`, partitions: 1 },
    { topic: topicA, partitions: 1 },
    { topic: topicB, partitions: 1 },
  ]);
  configLog = new ConfigLog({ kafka: testClient(), topic: `${prefix}.config` });
  await configLog.start();
  await configLog.write([
    ...[destA, destB].map((d) => ({ id: d.id, kind: 'event_destination' as const, data: d })),
    ...subs.map((s) => ({ id: s.id, kind: 'event_subscription' as const, data: s })),
  ]);
  reader = new TopicCollector(kafka, [topicA, topicB]);
  await reader.start();
  const traffic = Array.from({ length: RECORDS }, (_, seq) => makeTraffic(HTTP, seq));
  await produce(kafka, `${prefix}.http`, traffic.map(toMessage));
});

afterAll(async () => {
  await Promise.allSettled(services.map((s) => s.stop('SIGKILL')));
  await reader?.stop();
  await configLog?.stop();
});

describe('event ids', () => {
  it('should give each (record, subscription, destination) its own event, with its own event id as the kafka key', async () => {
    services.push(await startService(serviceEnv(prefix, testBrokers(), { ROLES: 'worker' })));
    // Per record: three subscriptions at the first destination (two of them with the same field set), one at the second.
    // Per record at least one event at each destination; then whatever else the worker sends.
    await reader.settled(RECORDS * 2);
    const all = arrivals();
    const atA = all.filter((a) => a.topic === topicA);
    const atB = all.filter((a) => a.topic === topicB);
    expect({ atA: atA.length, atB: atB.length }).toEqual({ atA: RECORDS * 3, atB: RECORDS });
    const ids = new Set(all.map((a) => a.eventId));
    expect(ids.size).toBe(RECORDS * 4);
    for (const a of all) {
      expect(a.eventId).toMatch(/^ev_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(a.key).toBe(a.eventId);
    }
    for (let seq = 0; seq < RECORDS; seq++) expect(atA.filter((a) => a.seq === seq)).toHaveLength(3);
  });

  it('should give the same event ids again when the records are read again by another consumer group', async () => {
    const first = new Set(arrivals().map((a) => a.eventId));
    const before = reader.messages.length;
    await services.shift()?.stop('SIGTERM');
    services.push(await startService(serviceEnv(prefix, testBrokers(), { ROLES: 'worker', CONSUMER_GROUP: `${prefix}-replay` })));
    await reader.settled(before * 2);
    const replayed = arrivals().slice(before);
    expect(replayed).toHaveLength(before);
    expect(new Set(replayed.map((a) => a.eventId))).toEqual(first);
  });
});
