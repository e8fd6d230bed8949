// The log of a worker while two destinations keep failing under steady traffic (a kafka topic that does
// not exist, as for a destination stored with its check skipped; an http receiver answering 503): a few lines per destination when its state changes, not one
// per attempt, and no warning of the Kafka client about the destination's requests; then every event once both are fixed.
import { afterAll, describe, expect, it } from 'vitest';
import { consumeUntil, createTopics, produce, testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { destination, subscription, writeConfig } from '../../chaos/harness/service-cluster.js';
import { HttpReceiver } from '../delivery/http-receiver.js';
import { makeTraffic, toMessage } from '../pipeline/fixtures.js';
import { until } from './parking-harness.js';

const SECONDS = 12;
const PER_SECOND = 25;

let service: ServiceProcess | undefined;
const receiver = new HttpReceiver();
afterAll(async () => {
  await service?.stop();
  await receiver.stop();
});

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly destination?: string;
  readonly component?: string;
}

describe('logs of failing destinations', () => {
  it('should log a failing destination when its state changes, not per attempt, and repeat none of the Kafka client warnings', async () => {
    let failing = true;
    receiver.script = () => (failing ? { status: 503 } : undefined);
    await receiver.start();
    const prefix = uniqueName('quiet');
    const env = serviceEnv(prefix, testBrokers(), {
      ROLES: 'worker',
      RETRY_MAX_ATTEMPTS: '3',
      RETRY_MAX_ELAPSED_MS: '1000',
      PARKING_SCAN_INTERVAL_MS: '1000',
    });
    const missingTopic = `${prefix}.not-created-yet`;
    const kafkaDest = destination({ kafka: { topic: missingTopic } });
    const httpDest = destination({ http: { url: receiver.url } });
    const sub = subscription('tcp records', [{ type: 'tcp_connection_closed.v0', fields: ['conn.bytes_in'] }], [kafkaDest.id, httpDest.id]);
    const kafka = testClient();
    // Written once the worker runs: a worker checks the destinations it finds at start, and would create the topic.
    service = await startService(env);
    await writeConfig(kafka, env.TOPIC_CONFIG as string, [kafkaDest, httpDest], [sub]);

    let seq = 0;
    for (let s = 0; s < SECONDS; s++) {
      await produce(kafka, env.TOPIC_TCP_CONNECTION_CLOSED as string, Array.from({ length: PER_SECOND }, () => toMessage(makeTraffic('tcp_connection_closed.v0', seq++))));
      await new Promise((r) => setTimeout(r, 1_000));
    }
    const lines = service.logs.flatMap((l) => {
      try {
        return [JSON.parse(l) as LogLine];
      } catch {
        return [];
      }
    });
    const loud = (id: string): string[] => lines.filter((l) => l.level >= 40 && l.destination === id).map((l) => l.msg);
    const report = lines.filter((l) => l.level >= 40).map((l) => `${l.destination ?? l.component ?? ''} ${l.msg}`).join('\n');
    // Failing, then parked: one line each while hundreds of deliveries failed and were parked.
    expect(loud(kafkaDest.id), report).toEqual([
      'The destination is failing.',
      'The destination spent its retry budget, or its deliveries waited for it past PARK_AFTER_MS; they are parked in its retry topic and will be re-driven.',
    ]);
    expect(loud(httpDest.id), report).toEqual(loud(kafkaDest.id));
    // The Kafka client's own lines (component "kafka"): none about the destination's requests.
    const clientWarnings = lines.filter((l) => l.level >= 40 && l.component === 'kafka');
    expect(clientWarnings.map((l) => l.msg), report).toEqual([]);
    expect(receiver.requests.length).toBeGreaterThan(1);

    // Fixed: the topic now exists and the receiver answers 200. Every event arrives at both.
    await createTopics(kafka, [{ topic: missingTopic, partitions: 1 }]);
    failing = false;
    const total = SECONDS * PER_SECOND;
    const seqs = (): Set<number> => new Set(receiver.delivered().map((e) => (e.object as { conn: { bytes_in: number } }).conn.bytes_in));
    await until(() => seqs().size >= total, 60_000, 'every event at the http destination');
    const out = await consumeUntil(kafka, { topics: [missingTopic], until: (m) => new Set(m.map((x) => x.key)).size >= total, timeoutMs: 60_000 });
    expect(new Set(out.map((m) => m.key)).size).toBe(total);
    await until(() => service!.logs.some((l) => l.includes(kafkaDest.id) && l.includes('The destination delivers again.')), 10_000, 'the recovery line');
  });
});
