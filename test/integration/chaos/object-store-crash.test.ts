// The object_store destination's at-least-once promise on the real broker: the service killed with
// SIGKILL while an object is being uploaded, once before the store has it and once after it was stored
// but before the answer (so before the offset commit), then started again: no event is missing, and the
// events of the object stored without an answer arrive twice, under their own ids.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Envelope } from '../../../src/events/envelope.js';
import { AwsFaultProxy } from '../../support/aws-fault-proxy.js';
import { createTopics, testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { motoEndpoint } from '../cloud/cloud-fixtures.js';
import { TestBucket } from '../object-store/bucket.js';
import { TCP, call, sendTcp, waitFor, type Json } from '../object-store/service-flow.js';

const TOKEN = `eek_osc${Date.now().toString(36)}operatorToken0000000`;
const prefix = uniqueName('objcrash');
const RECORDS = 300;
const env = serviceEnv(prefix, testBrokers(), { API_BOOTSTRAP_TOKEN: TOKEN, DRAIN_TIMEOUT_MS: '2000', CONSUMER_SESSION_TIMEOUT_MS: '6000' });
const proxy = new AwsFaultProxy(motoEndpoint());
const services: ServiceProcess[] = [];

beforeAll(async () => {
  await createTopics(testClient('object-store-crash'), [{ topic: `${prefix}.tcp`, partitions: 2 }]);
  await proxy.start();
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(services.map((s) => s.stop('SIGKILL')));
  await proxy.stop();
});

/** Arms the proxy: the next upload of an object of events kills the service, before or after the store has it. */
function killOnUpload(service: ServiceProcess, forwarded: boolean): Promise<string> {
  return new Promise((resolve) => {
    let armed = true;
    proxy.script = (call) => {
      // The SDK adds its operation as a query: /<bucket>/<key>?x-id=PutObject.
      const path = call.path.split('?')[0] ?? '';
      if (!armed || call.method !== 'PUT' || !path.endsWith('.ndjson.gz')) return undefined;
      armed = false;
      return {
        hang: true,
        forwarded,
        then: () => {
          service.child.kill('SIGKILL');
          resolve(decodeURIComponent(path));
        },
      };
    };
  });
}

const seqOf = (e: Envelope): number => (e.object as Json).conn.bytes_in as number;

it('the service killed with SIGKILL during an upload, before and after the store has the object, should leave no event missing', async () => {
  const bucket = await TestBucket.create('crash');
  let service = await startService(env);
  services.push(service);
  const dest: Json = await call(service, TOKEN, 'POST', '/event_destinations', { target: { object_store: bucket.target({ prefix: 'c/' }, proxy.endpoint) } });
  await call(service, TOKEN, 'POST', '/event_subscriptions', {
    sources: [{ type: TCP, fields: ['conn.bytes_in'], filter: 'ev.conn.server_port == 443' }],
    destination_ids: [dest.id],
  });

  // First kill: the upload never reaches the store.
  let killed = killOnUpload(service, false);
  const seqs = await sendTcp(`${prefix}.tcp`, 1, RECORDS / 2);
  await killed;
  await waitFor('the first service to exit', async () => service.child.exitCode !== null || service.child.signalCode !== null);
  expect(await bucket.events()).toEqual([]);

  // Second kill, in the next service: the object is stored, its answer lost, its offsets not committed.
  service = await startService(env);
  services.push(service);
  killed = killOnUpload(service, true);
  seqs.push(...(await sendTcp(`${prefix}.tcp`, RECORDS / 2 + 1, RECORDS / 2)));
  const storedKey = await killed;
  await waitFor('the second service to exit', async () => service.child.exitCode !== null || service.child.signalCode !== null);
  const stored = (await bucket.objects()).find((o) => storedKey.endsWith(o.key));
  expect(stored, `the object ${storedKey} is in the bucket`).toBeDefined();
  const storedIds = stored!.text.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as Envelope).event_id);
  expect(storedIds.length).toBeGreaterThan(0);

  // A third service delivers the rest.
  proxy.script = () => undefined;
  services.push(await startService(env));
  // Every record's event, and the stored object's events a second time: the third service may upload the
  // batch holding them after the other records' events already arrived.
  const arrived = (events: Envelope[]): boolean =>
    new Set(events.map(seqOf)).size >= RECORDS && storedIds.every((id) => events.filter((e) => e.event_id === id).length >= 2);
  await waitFor('every event, and the stored object\'s events twice', async () => arrived(await bucket.events()), 90_000).catch(() => undefined);
  const events = await bucket.events();
  const missing = seqs.filter((s) => !events.some((e) => seqOf(e) === s));
  expect({ missing: missing.length }).toEqual({ missing: 0 });
  // The object stored without an answer was written again under another key: its events twice, with the same ids.
  for (const id of storedIds) expect(events.filter((e) => e.event_id === id).length, id).toBeGreaterThanOrEqual(2);
  expect(proxy.faults.map((f) => f.fault.split(' ').slice(0, 2).join(' '))).toEqual(['hang before', 'hang after']);
}, 300_000);
