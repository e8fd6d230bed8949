// Replay against live delivery (issue 41, docs/subscription-controls.md "Replay"), on one broker and the
// same preloaded records, through the real service (API and worker in one process, as `npm start` runs it):
//  1. the live route's drain: the records are preloaded while the service is stopped, then the service
//     catches up; records/s and the service's CPU cores;
//  2. a replay of the same records' time range to the same destinations, its read rate unbounded
//     (REPLAY_RECORDS_PER_SECOND at its maximum): records/s and cores, the ratio against the live drain;
//  3. live produce-to-delivered latency at half the live drain rate, with the service's default replay
//     bounds, without a replay, then with replays of the range running all through the measured window
//     (each to a destination of its own, so its old events are not read as live latency).
// BENCH_REPLAY_RECORDS (default 200,000) and BENCH_REPLAY_LATENCY_SECONDS (default 15) size the run.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newToken } from '../src/admin/api-keys/tokens.js';
import type { KafkaClient as Kafka } from '../src/kafka/seam.js';
import { TEST_EGRESS_ENV } from '../test/support/writer-deps.js';
import { startBenchBroker } from './e2e/broker.js';
import { childOf, serviceNodeFlags, type BenchChild } from './e2e/child.js';
import { measureLatency, type LatencyResult } from './e2e/latency.js';
import { sampleProcess } from './e2e/proc-stats.js';
import { benchKafka, benchTopics, createTopics, preload, trafficSource, uniquePrefix, workerEnv, type BenchTopics } from './e2e/setup.js';
import { endOffsets, watchDrain, type DrainResult } from './e2e/watch.js';
import type { BenchContext, BenchReport, BenchRow, BenchTarget } from './lib/types.js';

const RECORDS = Number(process.env.BENCH_REPLAY_RECORDS ?? 200_000);
const LATENCY_SECONDS = Number(process.env.BENCH_REPLAY_LATENCY_SECONDS ?? 15);
const LATENCY_WARMUP_SECONDS = 5;
const LATENCY_LOAD = 0.5;
/** The targets: a replay at >= 0.8x the live drain rate, live p99 within 1.5x of its figure while one runs. */
const TARGET_RATE_SHARE = 0.8;
const TARGET_P99_RATIO = 1.5;
/** REPLAY_RECORDS_PER_SECOND's maximum: the replay's read rate as the engine allows it, unbounded. */
const UNBOUNDED = '10000000';
/** A filter on each traffic type that passes part of the generated traffic, as a customer's would. */
const SOURCES = [
  { type: 'http_request_complete.v0', fields: ['conn.client_ip', 'conn.server_name', 'http.response.status_code'], filter: 'ev.conn.server_port == 443' },
  { type: 'tcp_connection_closed.v0', fields: ['conn.client_ip', 'conn.server_name', 'conn.bytes_in'], filter: 'cidr("10.0.0.0/8").containsIP(ev.conn.client_ip)' },
];

const round = (n: number, d = 0): number => Math.round(n * 10 ** d) / 10 ** d;
const grouped = (n: number): string => Math.round(n).toLocaleString('en-US');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface Service {
  readonly child: BenchChild;
  readonly url: string;
}

/** The service (API and worker) on the benchmark's topics; resolves once its API listens and its worker consumes. */
async function startService(env: Record<string, string>): Promise<Service> {
  const child = spawn(process.execPath, [...serviceNodeFlags(), '--import', 'tsx', 'src/main.ts'], { cwd: new URL('../', import.meta.url), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let url: string | undefined;
  let consuming = false;
  const c = childOf('service', child, {
    onLine: (line) => {
      if (line.includes('The ingest worker is consuming.')) consuming = true;
      if (url === undefined && line.includes('The service is running.')) url = (JSON.parse(line) as { address: string }).address;
    },
  });
  const started = Date.now();
  while (url === undefined || !consuming) {
    if (child.exitCode !== null) throw new Error(`the service exited before it was ready:\n${c.tail()}`);
    if (Date.now() - started > 120_000) {
      await c.stop(1000);
      throw new Error(`the service was not ready after 120 s:\n${c.tail()}`);
    }
    await sleep(100);
  }
  return { child: c, url };
}

type Json = Record<string, unknown>;
async function call(s: Service, token: string, method: string, path: string, body?: unknown): Promise<Json> {
  const res = await fetch(`${s.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
  return text === '' ? {} : (JSON.parse(text) as Json);
}

interface ReplayProgress {
  readonly records_scanned: number;
  readonly records_total: number;
  readonly events_delivered: number;
}
interface ReplayAnswer {
  readonly id: string;
  readonly uri: string;
  readonly state: string;
  readonly progress: ReplayProgress;
}

/** Follows a replay to its end: its records/s and the service's cores from its first progress to done. */
async function followReplay(s: Service, token: string, replay: ReplayAnswer, progress: (m: string) => void, timeoutMs: number): Promise<{ drain: DrainResult; events: number }> {
  const path = new URL(replay.uri).pathname;
  const started = Date.now();
  let first: { at: number; scanned: number; cpu: number } | undefined;
  let lastReport = 0;
  for (;;) {
    const r = (await call(s, token, 'GET', path)) as unknown as ReplayAnswer;
    const now = performance.now();
    const cpu = sampleProcess(s.child.pid)?.cpuSeconds ?? Number.NaN;
    if (first === undefined && r.progress.records_scanned > 0) first = { at: now, scanned: r.progress.records_scanned, cpu };
    if (r.state === 'done' && first !== undefined) {
      const seconds = (now - first.at) / 1000;
      const records = r.progress.records_scanned - first.scanned;
      return { drain: { recordsPerSecond: records / seconds, seconds, records, cores: (cpu - first.cpu) / seconds, peakRssMiB: Number.NaN }, events: r.progress.events_delivered };
    }
    if (r.state === 'failed' || r.state === 'cancelled') throw new Error(`replay ${r.id} ended ${r.state}: ${JSON.stringify(r)}`);
    if (Date.now() - started > timeoutMs) throw new Error(`replay ${r.id} not done after ${timeoutMs} ms: ${JSON.stringify(r.progress)}`);
    if (Date.now() - lastReport > 2000) {
      lastReport = Date.now();
      progress(`replay ${r.id} ${r.state}: ${grouped(r.progress.records_scanned)} / ${grouped(r.progress.records_total)} records`);
    }
    await sleep(200);
  }
}

/** Keeps a replay of the range to `destination` running until stopped: a new one starts when the last ends. */
function keepReplaying(s: Service, token: string, subscription: string, range: { from: string; to: string }, destination: string): { stop(): Promise<{ replays: number; records: number; seconds: number }> } {
  const started = performance.now();
  let stopped = false;
  let replays = 0;
  let records = 0;
  const loop = (async () => {
    while (!stopped) {
      const r = (await call(s, token, 'POST', `/event_subscriptions/${subscription}/replays`, { ...range, destination_ids: [destination] })) as unknown as ReplayAnswer;
      replays++;
      const path = new URL(r.uri).pathname;
      for (;;) {
        const now = (await call(s, token, 'GET', path)) as unknown as ReplayAnswer;
        if (stopped || !['queued', 'running'].includes(now.state)) {
          if (stopped && ['queued', 'running'].includes(now.state)) await call(s, token, 'DELETE', path);
          records += now.progress.records_scanned;
          break;
        }
        await sleep(250);
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return { replays, records, seconds: (performance.now() - started) / 1000 };
    },
  };
}

export default async function run(ctx: BenchContext): Promise<BenchReport> {
  const broker = await startBenchBroker(ctx.progress);
  const kafka: Kafka = benchKafka(broker.brokers);
  const prefix = uniquePrefix('replay');
  const topics: BenchTopics = benchTopics(prefix);
  const outputs = { live: `${prefix}.out.live`, replay: `${prefix}.out.replay` };
  const token = newToken();
  const group = `${prefix}-ingest`;
  const baseEnv = {
    ...workerEnv(broker.brokers, topics, group),
    ...TEST_EGRESS_ENV,
    ROLES: 'api,worker',
    LOG_LEVEL: 'info',
    API_BOOTSTRAP_TOKEN: token,
    API_TOKEN_FILE: join(tmpdir(), `${prefix}-api-token`),
    TOPIC_TAP_REQUESTS: `${prefix}.tap.requests`,
    TOPIC_TAP_EVENTS: `${prefix}.tap.events`,
    TOPIC_REPLAY_PROGRESS: `${prefix}.replay.progress`,
    SECRET_KEY: randomBytes(32).toString('hex'),
  };
  let service: Service | undefined;
  try {
    await createTopics(kafka, topics, [outputs.live, outputs.replay]);
    const { next } = trafficSource(1);
    const inputs = Object.values(topics.traffic);

    // The destinations and the subscription, made before the traffic so that live delivery takes all of it.
    service = await startService({ ...baseEnv, REPLAY_RECORDS_PER_SECOND: UNBOUNDED });
    const live = await call(service, token, 'POST', '/event_destinations', { description: 'live', target: { kafka: { topic: outputs.live } } });
    const spare = await call(service, token, 'POST', '/event_destinations', { description: 'replays during the latency runs', target: { kafka: { topic: outputs.replay } } });
    const sub = await call(service, token, 'POST', '/event_subscriptions', { description: 'replay bench', destination_ids: [live.id, spare.id], sources: SOURCES });
    const subId = String(sub.id);
    // The worker applies the subscription within a second (docs/subscription-controls.md); the skew allowance covers the rest.
    await sleep(2000);
    await service.child.stop();
    service = undefined;

    // 1. Live drain of a backlog.
    const from = new Date().toISOString();
    const preloadRate = await preload(broker.brokers, topics, RECORDS, next, ctx.progress);
    await sleep(50);
    const to = new Date().toISOString();
    service = await startService({ ...baseEnv, REPLAY_RECORDS_PER_SECOND: UNBOUNDED });
    const target = await endOffsets(kafka, inputs);
    ctx.progress(`live: draining ${grouped(RECORDS)} records`);
    const liveDrain = await watchDrain(kafka, group, inputs, target, [service.child.pid], { timeoutMs: 600_000, progress: ctx.progress });
    ctx.progress(`live: ${grouped(liveDrain.recordsPerSecond)} records/s on ${round(liveDrain.cores, 2)} cores`);

    // 2. A replay of the same records, to the same destinations.
    const replay = (await call(service, token, 'POST', `/event_subscriptions/${subId}/replays`, { from, to })) as unknown as ReplayAnswer;
    const replayed = await followReplay(service, token, replay, ctx.progress, 600_000);
    ctx.progress(`replay: ${grouped(replayed.drain.recordsPerSecond)} records/s on ${round(replayed.drain.cores, 2)} cores, ${grouped(replayed.events)} events`);
    await service.child.stop();
    service = undefined;

    // 3. Live latency at half load, with the service's default replay bounds, without and with replays running.
    service = await startService(baseEnv);
    const rate = Math.max(100, Math.round(liveDrain.recordsPerSecond * LATENCY_LOAD));
    const latency = async (label: string): Promise<LatencyResult> => {
      ctx.progress(`latency ${label}: ${grouped(rate)} records/s for ${LATENCY_SECONDS} s, after ${LATENCY_WARMUP_SECONDS} s not measured`);
      return measureLatency(kafka, {
        brokers: broker.brokers,
        topics,
        outputs: [outputs.live],
        group,
        pids: [(service as Service).child.pid],
        rate,
        count: rate * LATENCY_SECONDS,
        warmupCount: rate * LATENCY_WARMUP_SECONDS,
        source: next,
        inputTime: 'envelope',
        timeoutMs: 300_000,
        progress: ctx.progress,
      });
    };
    const alone = await latency('without a replay');
    const keeper = keepReplaying(service, token, subId, { from, to }, String(spare.id));
    const withReplay = await latency('with a replay');
    const kept = await keeper.stop();
    ctx.progress(`latency: p99 ${alone.p99} ms alone, ${withReplay.p99} ms with replays (${kept.replays} replays, ${grouped(kept.records)} records read)`);

    const perCore = (d: DrainResult): number => d.recordsPerSecond / Math.max(d.cores, 1e-9);
    const rateShare = perCore(replayed.drain) / perCore(liveDrain);
    const p99Ratio = withReplay.p99 / alone.p99;
    const replayRate = kept.records / kept.seconds;
    const rows: BenchRow[] = [
      { measure: 'live drain of the backlog', 'records/s': round(liveDrain.recordsPerSecond), cores: round(liveDrain.cores, 2), 'records/s a core': round(perCore(liveDrain)), seconds: round(liveDrain.seconds, 1), 'p50 ms': null, 'p99 ms': null, ratio: null },
      { measure: 'replay of the same range, unbounded', 'records/s': round(replayed.drain.recordsPerSecond), cores: round(replayed.drain.cores, 2), 'records/s a core': round(perCore(replayed.drain)), seconds: round(replayed.drain.seconds, 1), 'p50 ms': null, 'p99 ms': null, ratio: round(rateShare, 2) },
      { measure: `live at half load (${grouped(rate)}/s), no replay`, 'records/s': round(alone.sentPerSecond), cores: null, 'records/s a core': null, seconds: LATENCY_SECONDS, 'p50 ms': alone.p50, 'p99 ms': alone.p99, ratio: null },
      { measure: `live at half load (${grouped(rate)}/s), replays running`, 'records/s': round(withReplay.sentPerSecond), cores: null, 'records/s a core': null, seconds: LATENCY_SECONDS, 'p50 ms': withReplay.p50, 'p99 ms': withReplay.p99, ratio: round(p99Ratio, 2) },
    ];
    const targets: BenchTarget[] = [
      {
        name: "replay's records/s a core against the live route's drain on the same records",
        target: `>= ${TARGET_RATE_SHARE}x live`,
        figure: `${round(rateShare, 2)}x (${grouped(perCore(replayed.drain))} against ${grouped(perCore(liveDrain))} records/s a core)`,
        met: rateShare >= TARGET_RATE_SHARE,
      },
      {
        name: 'live p99 at half load with a replay running, against without',
        target: `<= ${TARGET_P99_RATIO}x`,
        figure: `${round(p99Ratio, 2)}x (${withReplay.p99} against ${alone.p99} ms)`,
        met: p99Ratio <= TARGET_P99_RATIO,
        ...(p99Ratio > TARGET_P99_RATIO && {
          why:
            `While live ran at ${grouped(rate)} records/s the replays read ${grouped(replayRate)} records/s at the default bounds, on the same worker and broker; ` +
            'the read rate follows live delivery\'s delay (src/replay/replay-pace.ts: halved each 500 ms while live is later than REPLAY_LIVE_DELAY_MS or 1.25 times its usual delay), ' +
            'so what is left is the cost of a replay running at its lowest rate (its fetches, checkpoints and progress polling) or the shared machine\'s noise between the two windows.',
        }),
      },
    ];
    return {
      title: 'Replay against live delivery: read rate, and live latency while a replay runs',
      rows,
      usesKafka: true,
      targets,
      settings: {
        records: RECORDS,
        preload_records_per_second: round(preloadRate),
        latency_seconds: LATENCY_SECONDS,
        latency_warmup_seconds: LATENCY_WARMUP_SECONDS,
        latency_rate: rate,
        replay_events: replayed.events,
        replays_during_latency: kept.replays,
        replay_records_during_latency: kept.records,
        replay_records_per_second_during_latency: round(replayRate),
      },
      notes: [
        `One service process (API and worker) on one broker, ${grouped(RECORDS)} generated records on ${inputs.length} raw topics; one subscription with a filtered source of each type and two kafka destinations.`,
        'Live drain: the records were sent while the service was stopped, then its group caught up; the rate is from its commits, the cores from /proc over the same window.',
        `Replay: the same range, to the same two destinations, with REPLAY_RECORDS_PER_SECOND=${UNBOUNDED} so the engine's own speed is measured; its rate is from its records_scanned, the cores from /proc. A replay at the default bound (REPLAY_RECORDS_PER_SECOND) reads at most that many records a second.`,
        `Latency: produce-to-delivered at ${grouped(rate)} records/s (half the live drain rate) on the live destination, with the service's default replay bounds; "replays running" kept one replay of the range to the second destination going all through the window (${kept.replays} replays, ${grouped(kept.records)} records read), so no replayed event is counted as live latency; they read ${grouped(replayRate)} records/s.`,
        `Targets (issue 41): replay >= ${TARGET_RATE_SHARE}x the live drain a core: ${targets[0]?.met === true ? 'met' : 'missed'}; live p99 within ${TARGET_P99_RATIO}x with a replay: ${targets[1]?.met === true ? 'met' : 'missed'}.`,
        'A shared 2-core machine: other processes take CPU time, so the rates a core are the steadier figures.',
      ],
    };
  } finally {
    await service?.child.stop();
    await broker.stop();
  }
}
