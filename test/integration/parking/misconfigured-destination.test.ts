// A destination whose writer cannot be built (its secret was sealed with another SECRET_KEY) while
// records flow through the whole service: its events must not be committed away with no delivery. They
// are parked with the reason, and delivered once the destination is fixed by a config update.
import './quiet-logs.js';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../../src/app.js';
import { loadServiceConfig } from '../../../src/config/service-config.js';
import type { StoredDestination } from '../../../src/configlog/resources.js';
import { PARKING_HEADERS } from '../../../src/delivery/parking/parked-record.js';
import { SecretBox } from '../../../src/secrets/secret-box.js';
import { consumeUntil, produce, testBrokers, testClient, uniqueName, withAdmin } from '../../support/kafka.js';
import { serviceEnv } from '../../support/service-process.js';
import { destination, subscription } from '../../chaos/harness/service-cluster.js';
import { HttpReceiver } from '../delivery/http-receiver.js';
import { makeTraffic, toMessage } from '../pipeline/fixtures.js';
import { until } from './parking-harness.js';

const RECORDS = 40;

let app: App | undefined;
const receiver = new HttpReceiver();
afterAll(async () => {
  await app?.stop();
  await receiver.stop();
});

async function committedRecords(groupId: string, topic: string): Promise<number> {
  return withAdmin(testClient(), async (admin) => {
    const committed = await admin.committedOffsets(groupId, topic);
    return [...committed.values()].reduce((n, offset) => n + Math.max(0, offset), 0);
  });
}

describe('a destination that cannot run', () => {
  it('should park the events of a destination whose secret cannot be opened, with the reason, and deliver them once the destination is fixed', async () => {
    await receiver.start();
    const key = randomBytes(32);
    const env = serviceEnv(uniqueName('misconf'), testBrokers(), {
      ROLES: 'worker',
      SECRET_KEY: key.toString('hex'),
      RETRY_MAX_ATTEMPTS: '2',
      RETRY_MAX_ELAPSED_MS: '500',
      PARKING_SCAN_INTERVAL_MS: '500',
    });
    const config = loadServiceConfig(env);
    app = buildApp(config, env.KAFKA_BROKERS as string);
    await app.start();

    // Sealed with a key this service does not have, as after a SECRET_KEY rotation gone wrong.
    const foreign = new SecretBox(randomBytes(32));
    const broken = destination({ http: { url: receiver.url, secret_enc: foreign.seal('a-signing-secret-of-some-length') } });
    const sub = subscription('tcp records', [{ type: 'tcp_connection_closed.v0', fields: ['conn.bytes_in'] }], [broken.id]);
    await app.configLog.write([
      { id: broken.id, kind: 'event_destination', data: broken },
      { id: sub.id, kind: 'event_subscription', data: sub },
    ]);
    const topic = config.topics.tcpConnectionClosed;
    await produce(testClient(), topic, Array.from({ length: RECORDS }, (_, seq) => toMessage(makeTraffic('tcp_connection_closed.v0', seq))));
    // The records may commit only once their deliveries are parked (or delivered).
    await until(async () => (await committedRecords(config.consumerGroup, topic)) === RECORDS, 30_000, 'the consumed records to commit');
    expect(receiver.delivered()).toEqual([]);

    // Fixed: the secret sealed again with the service's own key.
    const fixed: StoredDestination = { ...broken, target: { http: { url: receiver.url, secret_enc: new SecretBox(key).seal('a-signing-secret-of-some-length') } } };
    await app.configLog.write([{ id: fixed.id, kind: 'event_destination', data: fixed }]);
    const seqs = (): Set<number> => new Set(receiver.delivered().map((e) => (e.object as { conn: { bytes_in: number } }).conn.bytes_in));
    await until(() => seqs().size >= RECORDS, 30_000, 'every event at the fixed destination').catch(() => undefined);
    const all = Array.from({ length: RECORDS }, (_, i) => i);
    expect(all.filter((s) => !seqs().has(s))).toEqual([]);

    // The parked records say why the destination could not run.
    const parked = await consumeUntil(testClient(), { topics: [`${config.topics.retryPrefix}${broken.id}`], until: (m) => m.length >= 1 });
    expect(parked[0]?.headers[PARKING_HEADERS.errorCode]).toBe('DESTINATION_MISCONFIGURED');
    expect(parked[0]?.headers[PARKING_HEADERS.errorMessage]).toMatch(/secret cannot be opened with this service's SECRET_KEY/);
  });
});
