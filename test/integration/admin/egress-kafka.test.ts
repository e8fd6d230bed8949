// Kafka destinations' brokers under the egress rules (SECURITY.md "Egress"), on the suite's real broker:
// on a service with the default settings, a broker list naming the service's own cluster by address or by
// a name that resolves there is refused with 400 before any connection, while a destination without
// brokers (the service's own cluster) works; and on a service that opens only ::1, a cluster reached
// through a real forwarder on [::1] that advertises its broker on 127.0.0.1 in its metadata is refused at
// the advertised broker, at create and at the connect of a test event, with each Kafka client.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KAFKA_CLIENT_NAMES } from '../../../src/kafka/seam.js';
import { NameTable } from '../../support/name-table.js';
import { createTopics, testBrokers, testClient, uniqueName, withAdmin } from '../../support/kafka.js';
import { startAdmin, type AdminHarness } from './admin-harness.js';

const names = new NameTable();
const resolve = names.resolve;
names.set('own-cluster.egress.test', '127.0.0.1');
names.set('bootstrap.egress.test', '::1');

const brokerPort = (): number => Number(testBrokers().split(':').pop());

async function topicExists(topic: string): Promise<boolean> {
  return withAdmin(testClient(), async (admin) => (await admin.listTopics()).includes(topic));
}

describe("a kafka destination's brokers on a service with the default egress settings", () => {
  let h: AdminHarness;
  beforeAll(async () => {
    h = await startAdmin({ env: { EGRESS_ALLOW_HTTP: '', EGRESS_ALLOW_CIDRS: '' }, resolveHost: resolve });
  });
  afterAll(async () => {
    await h?.stop();
  });

  const create = (kafka: Record<string, unknown>, verify = true) => h.call('POST', '/event_destinations', { body: { target: { kafka }, verify } });

  it("should refuse the service's own cluster named by address or by a name resolving there, with or without the check, and create nothing", async () => {
    const topic = uniqueName('egress.kafka');
    const brokers = [testBrokers(), `own-cluster.egress.test:${brokerPort()}`, `localhost:${brokerPort()}`];
    const answers = [];
    for (const broker of brokers) {
      for (const verify of [true, false]) {
        const r = await create({ topic, brokers: [broker] }, verify);
        answers.push([broker, verify, r.status, r.json?.error_code, r.json?.details?.field]);
      }
    }
    expect(answers).toEqual(brokers.flatMap((b) => [true, false].map((v) => [b, v, 400, 'internal_address', 'target.kafka.brokers'])));
    const literal = await create({ topic, brokers: [testBrokers()] });
    expect(literal.json.details.reason).toBe(
      `its broker ${testBrokers()} is at an address destinations may not reach: 127.0.0.1 is a loopback address (127.0.0.0/8) inside the network, which destinations of this service may not reach`,
    );
    const named = await create({ topic, brokers: [`own-cluster.egress.test:${brokerPort()}`] });
    expect(named.json.details.reason).toMatch(/^its broker own-cluster\.egress\.test:\d+ resolves to an address destinations may not reach: 127\.0\.0\.1 is a loopback address/);
    expect(await topicExists(topic)).toBe(false);
  });

  it('should keep a destination without brokers, the service’s own cluster, working', async () => {
    const r = await create({ topic: uniqueName('egress.kafka.own') });
    expect(r.status, r.text).toBe(201);
    const sent = await h.call('POST', `/event_destinations/${r.json.id}/test_event`);
    expect(sent.json, sent.text).toMatchObject({ delivered: true });
  });
});

describe.each(KAFKA_CLIENT_NAMES)('a cluster that advertises an internal broker in its metadata, with the %s client', (client) => {
  let h: AdminHarness;
  let forwarder: Server;
  let port: number;
  const sockets = new Set<Socket>();
  let connections = 0;

  beforeAll(async () => {
    // A real forwarder on [::1] to the suite's broker, which advertises itself on 127.0.0.1.
    forwarder = createServer((client) => {
      connections++;
      const upstream = connect({ host: '127.0.0.1', port: brokerPort() });
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.once('close', () => sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    port = await new Promise<number>((done, fail) => {
      forwarder.once('error', fail);
      forwarder.listen(0, '::1', () => done((forwarder.address() as { port: number }).port));
    });
    // Only ::1 is opened: the bootstrap broker is allowed, the broker its metadata names is not.
    h = await startAdmin({ env: { EGRESS_ALLOW_HTTP: '', EGRESS_ALLOW_CIDRS: '::1/128', KAFKA_CLIENT: client }, resolveHost: resolve });
  });
  afterAll(async () => {
    await h?.stop();
    for (const s of sockets) s.destroy();
    await new Promise((done) => forwarder?.close(done));
  });

  it('should refuse it at create with 400 internal_address, after reaching the bootstrap broker, and create nothing', async () => {
    const topic = uniqueName('egress.kafka.advertised');
    const r = await h.call('POST', '/event_destinations', { body: { target: { kafka: { topic, brokers: [`bootstrap.egress.test:${port}`] } } } });
    expect([r.status, r.json?.error_code, r.json?.details?.field], r.text).toEqual([400, 'internal_address', 'target.kafka.brokers']);
    // Read in the metadata the check asks for, before the client connects to it.
    expect(r.json.details.reason).toMatch(/^the cluster advertises the broker 127\.0\.0\.1:\d+, and 127\.0\.0\.1 is a loopback address/);
    expect(connections).toBeGreaterThan(0);
    expect(await topicExists(topic)).toBe(false);
  });

  it('should refuse it at the connect of a test event, with DESTINATION_ADDRESS_REFUSED', async () => {
    // The topic exists, so the producer goes on from the metadata to the partition's leader.
    const topic = uniqueName('egress.kafka.advertised');
    await createTopics(testClient(), [{ topic }]);
    const created = await h.call('POST', '/event_destinations', { body: { target: { kafka: { topic, brokers: [`bootstrap.egress.test:${port}`] } }, verify: false } });
    expect(created.status, created.text).toBe(201);
    const sent = await h.call('POST', `/event_destinations/${created.json.id}/test_event`);
    expect(sent.json, sent.text).toMatchObject({ delivered: false, error: { code: 'DESTINATION_ADDRESS_REFUSED' } });
    expect(sent.json.error.message).toContain('127.0.0.1 is a loopback address');
  });

  it('should deliver through the guard to a cluster the allow list opens, named by a name', async () => {
    // The suite's allowances open loopback: the name, the bootstrap broker and the advertised one all pass.
    const allowed = await startAdmin({ env: { KAFKA_CLIENT: client }, resolveHost: resolve });
    try {
      const topic = uniqueName('egress.kafka.allowed');
      const created = await allowed.call('POST', '/event_destinations', { body: { target: { kafka: { topic, brokers: [`own-cluster.egress.test:${brokerPort()}`] } } } });
      expect(created.status, created.text).toBe(201);
      const sent = await allowed.call('POST', `/event_destinations/${created.json.id}/test_event`);
      expect(sent.json, sent.text).toMatchObject({ delivered: true });
    } finally {
      await allowed.stop();
    }
  });
});
