// Isolation through the whole service: two Kinesis destinations share one subscription; one goes down for
// 30 s. The healthy one keeps delivering throughout, the down one is parked and re-driven after recovery,
// and nothing is lost. Both rates during the outage are measured and printed.
import './quiet-logs.js';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../../src/app.js';
import { loadServiceConfig } from '../../../src/config/service-config.js';
import type { StoredDestination, StoredSubscription } from '../../../src/configlog/resources.js';
import { PARKING_HEADERS } from '../../../src/delivery/parking/parked-record.js';
import { newId } from '../../../src/ids.js';
import { SecretBox } from '../../../src/secrets/secret-box.js';
import { parkedDeliveries, redrivenDeliveries } from '../../../src/telemetry/metrics.js';
import { AwsFaultProxy } from '../../support/aws-fault-proxy.js';
import { consumeUntil, testBrokers, testClient, uniqueName, withAdmin } from '../../support/kafka.js';
import { serviceEnv } from '../../support/service-process.js';
import { makeTraffic, toMessage } from '../pipeline/fixtures.js';
import { createDataStream, motoEndpoint, type ReadBack } from '../cloud/cloud-fixtures.js';
import { until } from './parking-harness.js';

const RATE_PER_S = 200;
const BEFORE_MS = 5_000;
const OUTAGE_MS = 30_000;
const AFTER_MS = 5_000;

let app: App | undefined;
let proxy: AwsFaultProxy | undefined;
afterAll(async () => {
  await app?.stop();
  await proxy?.stop();
});

function seqs(got: readonly ReadBack[]): Set<number> {
  return new Set(got.map((g) => (g.envelope.object as { conn: { bytes_in: number } }).conn.bytes_in));
}

function inWindow(times: readonly number[], from: number, to: number): number {
  return times.filter((t) => t >= from && t < to).length;
}

describe('isolation', () => {
  it('should keep a healthy destination delivering while another is down for 30 s, then re-drive the down one losing nothing', async () => {
    const prefix = uniqueName('iso');
    const key = randomBytes(32);
    const env = serviceEnv(prefix, testBrokers(), {
      ROLES: 'worker',
      SECRET_KEY: key.toString('hex'),
      RETRY_MAX_ATTEMPTS: '3',
      RETRY_MAX_ELAPSED_MS: '2000',
      PARKING_SCAN_INTERVAL_MS: '1000',
      CLOUD_TIMEOUT_MS: '2000',
    });
    const config = loadServiceConfig(env);
    app = buildApp(config, env.KAFKA_BROKERS as string);
    await app.start();

    const healthy = await createDataStream('iso-up');
    const flaky = await createDataStream('iso-down');
    proxy = new AwsFaultProxy(motoEndpoint());
    await proxy.start();
    const box = new SecretBox(key);
    const destination = (arn: string, endpoint: string): StoredDestination => ({
      id: newId('event_destination'),
      created_at: new Date().toISOString(),
      description: '',
      metadata: '',
      format: 'json',
      target: {
        data_stream: {
          auth: { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSWRITER', cloud_secret_access_key_enc: box.seal('writer-secret') } },
          stream_arn: arn,
          endpoint,
        },
      },
    });
    const up = destination(healthy.arn, motoEndpoint());
    const down = destination(flaky.arn, proxy.endpoint);
    const sub: StoredSubscription = {
      id: newId('event_subscription'),
      created_at: new Date().toISOString(),
      description: '',
      metadata: '',
      sources: [{ type: 'tcp_connection_closed.v0', fields: ['conn.bytes_in'] }],
      destination_ids: [up.id, down.id],
    };
    await app.configLog.write([
      { id: up.id, kind: 'event_destination', data: up },
      { id: down.id, kind: 'event_destination', data: down },
      { id: sub.id, kind: 'event_subscription', data: sub },
    ]);

    // Steady traffic: RATE_PER_S records a second, in ticks of 100 ms.
    const producer = testClient('iso-producer').idempotentProducer({ retries: 10 });
    await producer.connect();
    let seq = 0;
    const t0 = Date.now();
    const total = ((BEFORE_MS + OUTAGE_MS + AFTER_MS) / 1000) * RATE_PER_S;
    let outageStart = 0;
    let outageEnd = 0;
    while (seq < total) {
      const elapsed = Date.now() - t0;
      if (outageStart === 0 && elapsed >= BEFORE_MS) {
        await proxy.stop();
        outageStart = Date.now();
      }
      if (outageStart !== 0 && outageEnd === 0 && Date.now() - outageStart >= OUTAGE_MS) {
        await proxy.start();
        outageEnd = Date.now();
      }
      const due = Math.min(total, Math.floor((elapsed / 1000) * RATE_PER_S) + RATE_PER_S / 10);
      const messages = [];
      while (seq < due) messages.push(toMessage(makeTraffic('tcp_connection_closed.v0', seq++)));
      if (messages.length > 0) await producer.send(config.topics.tcpConnectionClosed, messages);
      await new Promise((r) => setTimeout(r, 100));
    }
    await producer.close();

    const everything = (got: readonly ReadBack[]) => seqs(got).size >= total;
    let upGot: ReadBack[] = [];
    let downGot: ReadBack[] = [];
    await until(async () => everything((upGot = await healthy.read())), 60_000, 'every event at the healthy destination');
    const recovered = Date.now();
    await until(async () => everything((downGot = await flaky.read())), 90_000, 'every event at the recovered destination');
    const redriveDone = Date.now();

    // Nothing lost at either destination.
    const all = Array.from({ length: total }, (_, i) => i);
    expect(all.filter((s) => !seqs(upGot).has(s))).toEqual([]);
    expect(all.filter((s) => !seqs(downGot).has(s))).toEqual([]);

    // The healthy destination kept delivering through every 2-second slice of the outage.
    const upTimes = upGot.map((g) => g.arrivedAt ?? 0);
    const slices = [];
    for (let t = outageStart; t + 2_000 <= outageEnd; t += 2_000) slices.push(inWindow(upTimes, t, t + 2_000));
    expect(slices.every((n) => n > 0)).toBe(true);
    const outageS = (outageEnd - outageStart) / 1000;
    const upRate = inWindow(upTimes, outageStart, outageEnd) / outageS;
    const downDelivered = inWindow(
      downGot.map((g) => g.arrivedAt ?? 0),
      outageStart + 1_000,
      outageEnd,
    );

    // The down destination's events went to its retry topic during the outage.
    const retryTopic = `${config.topics.retryPrefix}${down.id}`;
    const parkedCount = (await parkedDeliveries.get()).values.filter((v) => v.labels.destination === down.id).reduce((n, v) => n + v.value, 0);
    const parked = await consumeUntil(testClient(), { topics: [retryTopic], until: (m) => m.length >= parkedCount, timeoutMs: 20_000 });
    const parkedTimes = parked.map((m) => Number(m.headers[PARKING_HEADERS.parkedAt]));
    const parkedRate = inWindow(parkedTimes, outageStart, outageEnd) / outageS;
    const redrivenNow = async (): Promise<number> =>
      (await redrivenDeliveries.get()).values.filter((v) => v.labels.destination === down.id && v.labels.outcome === 'acked').reduce((n, v) => n + v.value, 0);
    // The receiver holds an event before the re-driver has its answer and counts it: wait for the count.
    let redriven = 0;
    await until(async () => (redriven = await redrivenNow()) >= parkedCount, 10_000, 'every parked event counted as re-driven').catch(() => undefined);

    process.stdout.write(
      `isolation: ${RATE_PER_S} events/s produced; during the ${outageS.toFixed(1)} s outage the healthy destination delivered ` +
        `${upRate.toFixed(1)} events/s and the down one parked ${parkedRate.toFixed(1)} events/s (delivered ${downDelivered}); ` +
        `${parkedCount} parked and ${redriven} re-driven; after recovery the healthy destination had everything within ` +
        `${((recovered - outageEnd) / 1000).toFixed(1)} s (the end of the traffic) and the recovered one within ${((redriveDone - outageEnd) / 1000).toFixed(1)} s.\n`,
    );
    expect(upRate).toBeGreaterThan(RATE_PER_S * 0.8);
    expect(downDelivered).toBe(0);
    expect(parkedRate).toBeGreaterThan(RATE_PER_S * 0.8);
    expect(redriven).toBeGreaterThanOrEqual(parkedCount);

    // The re-driver committed its retry topic to the end.
    await until(
      async () =>
        withAdmin(testClient(), async (admin) => {
          const [end] = await admin.partitionOffsets(retryTopic);
          const committed = await admin.committedOffsets(`${config.consumerGroup}.redrive.${down.id}`, retryTopic);
          return committed.get(0) === end?.high;
        }),
      20_000,
      'the retry topic commit',
    );
  });
});
