// Isolation from a slow destination, through the whole service on the real broker (ARCHITECTURE.md
// "Isolation"): an http receiver that takes 20 s to answer holds every partition of the topic whose
// records it gets (each waits for its deliveries before its next batch), yet another subscription's
// events, on another topic, arrive within seconds. The consumer handles a few partitions at a time; a
// partition that waits for its deliveries must not keep one of those turns from the others.
import './quiet-logs.js';
import { createServer, type Server } from 'node:http';
import { afterAll, expect, it } from 'vitest';
import { buildApp, type App } from '../../../src/app.js';
import { loadServiceConfig } from '../../../src/config/service-config.js';
import type { StoredDestination, StoredSubscription } from '../../../src/configlog/resources.js';
import { newId } from '../../../src/ids.js';
import { closeNow, listenOnLoopback } from '../../support/loopback-server.js';
import { testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { serviceEnv } from '../../support/service-process.js';
import { makeTraffic, toMessage } from '../pipeline/fixtures.js';

const SLOW_ANSWER_MS = 20_000;

const apps: App[] = [];
const servers: Server[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => a.stop()));
  await Promise.all(servers.map(closeNow));
});

/** A receiver on loopback answering each request after `delayMs`; it counts the events it took, and their distinct ids. */
async function receiver(delayMs: number): Promise<{ url: string; events: () => number; distinct: () => number }> {
  let events = 0;
  const ids = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      setTimeout(() => {
        const lines = Buffer.concat(chunks).toString('utf8').split('\n').filter((l) => l.trim() !== '');
        events += lines.length;
        for (const l of lines) ids.add((JSON.parse(l) as { event_id: string }).event_id);
        if (!res.destroyed) res.writeHead(200).end('ok');
      }, delayMs).unref();
    });
  });
  servers.push(server);
  const port = await listenOnLoopback(server);
  return { url: `http://127.0.0.1:${port}/events`, events: () => events, distinct: () => ids.size };
}

function destination(url: string): StoredDestination {
  return { id: newId('event_destination'), created_at: new Date().toISOString(), description: '', metadata: '', format: 'json', target: { http: { url, timeout_ms: 30_000, output_type: 'ndjson' } } };
}

function subscription(type: TrafficType, field: string, to: StoredDestination): StoredSubscription {
  return { id: newId('event_subscription'), created_at: new Date().toISOString(), description: '', metadata: '', sources: [{ type, fields: [field] }], destination_ids: [to.id] };
}

type TrafficType = 'tcp_connection_closed.v0' | 'http_request_complete.v0';

/**
 * A worker with `settings`, a receiver answering in `slowAnswerMs` and a quick one, the subscriptions
 * `subscribe` makes for them, and a connected producer (the caller closes it).
 */
async function slowBesideQuick(name: string, settings: Record<string, string>, slowAnswerMs: number, subscribe: (toSlow: StoredDestination, toQuick: StoredDestination) => StoredSubscription[]) {
  const env = serviceEnv(uniqueName(name), testBrokers(), { ROLES: 'worker', EGRESS_ALLOW_HTTP: 'true', EGRESS_ALLOW_CIDRS: '127.0.0.0/8', ...settings });
  const config = loadServiceConfig(env);
  const app = buildApp(config, env.KAFKA_BROKERS as string);
  apps.push(app);
  await app.start();
  const slow = await receiver(slowAnswerMs);
  const quick = await receiver(0);
  const toSlow = destination(slow.url);
  const toQuick = destination(quick.url);
  await app.configLog.write([
    ...[toSlow, toQuick].map((d) => ({ id: d.id, kind: 'event_destination' as const, data: d })),
    ...subscribe(toSlow, toQuick).map((sub) => ({ id: sub.id, kind: 'event_subscription' as const, data: sub })),
  ]);
  const producer = testClient(`${name}-producer`).idempotentProducer({ retries: 10 });
  await producer.connect();
  return { config, slow, quick, producer };
}

/** 60 records of `type`, numbered from `first`: their keys spread them over every partition. */
function round(type: TrafficType, first: number) {
  return Array.from({ length: 60 }, (_, i) => toMessage(makeTraffic(type, first + i)));
}

type Setup = Awaited<ReturnType<typeof slowBesideQuick>>;

/** Two rounds of tcp records on every partition, 1 s apart: each partition's second batch waits for the slow destination's first write. */
async function holdEveryTcpPartition({ config, producer }: Setup): Promise<void> {
  for (let r = 0; r < 2; r++) {
    await producer.send(config.topics.tcpConnectionClosed, round('tcp_connection_closed.v0', r * 60));
    await new Promise((done) => setTimeout(done, 1_000));
  }
}

/** Polls `done` every `everyMs` until it holds or `limitMs` have passed since `from`. */
async function pollUntil(done: () => boolean, from: number, limitMs: number, everyMs: number): Promise<void> {
  while (!done() && Date.now() - from < limitMs) await new Promise((next) => setTimeout(next, everyMs));
}

it("should deliver another subscription's events within seconds while a destination that answers in 20 s holds every partition of its topic", async () => {
  const setup = await slowBesideQuick('slowdest', { RETRY_MAX_ELAPSED_MS: '120000' }, SLOW_ANSWER_MS, (toSlow, toQuick) => [
    subscription('tcp_connection_closed.v0', 'conn.bytes_in', toSlow),
    subscription('http_request_complete.v0', 'http.request.url.path', toQuick),
  ]);
  const { config, quick, producer } = setup;
  try {
    await holdEveryTcpPartition(setup);
    const sent = Date.now();
    await producer.send(config.topics.httpRequestComplete, round('http_request_complete.v0', 0));
    await pollUntil(() => quick.events() >= 60, sent, SLOW_ANSWER_MS * 2, 100);
    const tookMs = Date.now() - sent;
    expect(quick.events()).toBe(60);
    // Well before the slow destination's first answer, let alone its retry budget.
    expect(tookMs).toBeLessThan(8_000);
  } finally {
    await producer.close();
  }
}, 120_000);

/** Both receivers get every tcp record. */
const bothGetTcp = (toSlow: StoredDestination, toQuick: StoredDestination): StoredSubscription[] => [
  subscription('tcp_connection_closed.v0', 'conn.bytes_in', toSlow),
  subscription('tcp_connection_closed.v0', 'conn.bytes_out', toQuick),
];

it("should deliver another destination's events from the same partitions within seconds while one destination answers in 15 s, and the slow one still gets every event", async () => {
  const slowAnswerMs = 15_000;
  // A delivery of a consumed record parks once it has waited 2 s for the slow destination.
  const setup = await slowBesideQuick('slowsame', { PARK_AFTER_MS: '2000', PARKING_SCAN_INTERVAL_MS: '1000' }, slowAnswerMs, bothGetTcp);
  const { config, slow, quick, producer } = setup;
  try {
    await holdEveryTcpPartition(setup);
    const sent = Date.now();
    await producer.send(config.topics.tcpConnectionClosed, round('tcp_connection_closed.v0', 120));
    await pollUntil(() => quick.events() >= 180, sent, slowAnswerMs * 2, 100);
    const tookMs = Date.now() - sent;
    expect(quick.events()).toBe(180);
    // Well before the slow destination answers its first write.
    expect(tookMs).toBeLessThan(8_000);
    // The slow destination's events were parked, not lost: re-driven, each arrives at least once.
    await pollUntil(() => slow.distinct() >= 180, sent, 100_000, 250);
    expect(slow.distinct()).toBe(180);
  } finally {
    await producer.close();
  }
}, 150_000);

it("should keep another destination's events flowing once a destination proved slow, not waiting PARK_AFTER_MS for each", async () => {
  const { config, slow, quick, producer } = await slowBesideQuick('slowsteady', { PARK_AFTER_MS: '5000', PARKING_SCAN_INTERVAL_MS: '1000' }, 15_000, bothGetTcp);
  const rounds = 12;
  const lags: number[] = [];
  try {
    // A round of records on every partition every 1.5 s; each round's lag is how long until the quick destination has all of it.
    for (let r = 0; r < rounds; r++) {
      const sent = Date.now();
      await producer.send(config.topics.tcpConnectionClosed, round('tcp_connection_closed.v0', r * 60));
      await pollUntil(() => quick.events() >= (r + 1) * 60, sent, 20_000, 50);
      lags.push(Date.now() - sent);
      await new Promise((done) => setTimeout(done, Math.max(0, 1_500 - (Date.now() - sent))));
    }
    expect(quick.events()).toBe(rounds * 60);
    // The first slow write is cut short at PARK_AFTER_MS (5 s), and the rounds behind it wait for that; from
    // then on the slow destination's new events park at once, and the quick one's arrive within a second or two.
    expect(Math.max(...lags.slice(-5)), `lags of the rounds, ms: ${lags.join(', ')}`).toBeLessThan(2_500);
    // The slow destination's events were parked, not lost: re-driven at its own pace, each arrives at least once.
    await pollUntil(() => slow.distinct() >= rounds * 60, Date.now(), 150_000, 250);
    expect(slow.distinct()).toBe(rounds * 60);
  } finally {
    await producer.close();
  }
}, 240_000);
