// Memory of one worker with 10,000 subscriptions under steady load, once per Kafka client: peak RSS against the
// 300 MB target, and a bounded soak for a trend. The worker runs the compiled service with the Node flags of `npm start`.
import { cpus, loadavg } from 'node:os';
import { isKafkaClientName } from '../src/kafka/client.js';
import { KAFKA_CLIENT_NAMES, type KafkaClientName } from '../src/kafka/seam.js';
import { buildService, serviceNodeFlags } from './e2e/child.js';
import { produceTraffic } from '../src/traffic/kafka-traffic.js';
import { sampleProcess } from './e2e/proc-stats.js';
import { MemorySampler, slope } from './e2e/sampler.js';
import { KafkaBenchSession } from './e2e/session.js';
import { committed, endOffsets, endOffsetsWith, watchDrain } from './e2e/watch.js';
import type { Chart } from './lib/svg-chart.js';
import { benchTarget } from './lib/targets.js';
import type { BenchContext, BenchReport, BenchRow, BenchTarget } from './lib/types.js';

const SUBSCRIPTIONS = Number(process.env.BENCH_MEMORY_SUBSCRIPTIONS ?? 10_000);
/** The soak length; BENCH_MEMORY_SOAK_SECONDS=600 gives the 10-minute soak of bench/results/memory.md. */
const SOAK_SECONDS = Number(process.env.BENCH_MEMORY_SOAK_SECONDS ?? 120);
const RATE = Number(process.env.BENCH_MEMORY_RATE ?? 4_000);
const DESTINATIONS = 4;
/** Node flags for the worker instead of those of `npm start` (package.json), e.g. "--max-semi-space-size=8", to try V8 heap settings. */
const NODE_ARGS = process.env.BENCH_MEMORY_NODE_ARGS === undefined ? serviceNodeFlags() : process.env.BENCH_MEMORY_NODE_ARGS.split(/\s+/).filter((a) => a !== '');
/**
 * glibc's malloc arenas, as `npm start` sets them (package.json): the worker's buffers (fetched and
 * produced records) otherwise spread over up to eight arenas per core that keep freed memory.
 */
const MALLOC_ARENA_MAX = process.env.MALLOC_ARENA_MAX ?? '2';
/** The workers inherit the environment: HEAP_GROWTH_PERCENT=0 runs them with V8's own heap sizing, for comparison. */
const HEAP_GROWTH = process.env.HEAP_GROWTH_PERCENT === undefined || process.env.HEAP_GROWTH_PERCENT === '' ? '30, raised while full collections take much of the time (default)' : process.env.HEAP_GROWTH_PERCENT;
const TARGET_MIB = 300 / 1.048576; // 300 MB (decimal) in MiB
/** The first part of the soak is warm-up (JIT, heap sizing, fetch buffers); the trend is fitted to the rest. */
const WARMUP_SHARE = 0.25;
/** The soak: memory must be flat over 60 minutes, judged by the slope of the soak's last half. */
const TARGET_SOAK_SECONDS = 3_600;
/** How often the soak's consumer lag is read, and how often its progress (RSS, lag, load) is printed. */
const LAG_EVERY_MS = 10_000;
const PROGRESS_EVERY_MS = SOAK_SECONDS >= 600 ? 60_000 : 15_000;

const round = (n: number, d = 0): number => Math.round(n * 10 ** d) / 10 ** d;

function clients(): KafkaClientName[] {
  const names = (process.env.BENCH_MEMORY_CLIENTS ?? KAFKA_CLIENT_NAMES.join(',')).split(',').map((n) => n.trim());
  const unknown = names.filter((n) => !isKafkaClientName(n));
  if (unknown.length > 0) throw new Error(`BENCH_MEMORY_CLIENTS names unknown clients: ${unknown.join(', ')}`);
  return names as KafkaClientName[];
}

interface Soak {
  readonly row: BenchRow;
  readonly notes: readonly string[];
  readonly targets: readonly BenchTarget[];
  readonly points: readonly (readonly [number, number])[];
  /** Records the worker's group had not committed yet, every LAG_EVERY_MS: a worker at capacity shows a growing lag. */
  readonly lag: readonly (readonly [number, number])[];
}

const mean = (ys: readonly number[]): number => ys.reduce((a, b) => a + b, 0) / Math.max(1, ys.length);

/**
 * Reads the group's lag (end offsets of its inputs less its commits) every LAG_EVERY_MS while the soak runs,
 * and prints the soak's progress (records sent, RSS, lag, load average) every PROGRESS_EVERY_MS.
 */
function watchLag(session: KafkaBenchSession, group: string, pid: number, progress: (m: string) => void): { stop(): Promise<[number, number][]> } {
  const started = performance.now();
  const lag: [number, number][] = [];
  const admin = session.kafka.admin();
  let lastProgress = started;
  let busy: Promise<void> = Promise.resolve();
  const take = async (): Promise<void> => {
    const end = await endOffsetsWith(admin, session.inputs);
    const done = await committed(admin, group, session.inputs);
    const t = (performance.now() - started) / 1000;
    lag.push([t, end - done]);
    if (performance.now() - lastProgress >= PROGRESS_EVERY_MS) {
      lastProgress = performance.now();
      const rss = sampleProcess(pid)?.rssMiB ?? Number.NaN;
      progress(`soak ${Math.round(t)} of ${SOAK_SECONDS} s: ${end.toLocaleString('en-US')} records in, lag ${(end - done).toLocaleString('en-US')}, RSS ${round(rss)} MiB, load average ${round(loadavg()[0] ?? 0, 1)}`);
    }
  };
  // One read at a time; a failed read (a broker busy for a moment) leaves a gap in the series, not a failed soak.
  const timer = setInterval(() => {
    busy = busy.then(take).catch((err: unknown) => progress(`lag read failed: ${err instanceof Error ? err.message : String(err)}`));
  }, LAG_EVERY_MS);
  return {
    async stop() {
      clearInterval(timer);
      await busy.catch(() => undefined);
      await admin.close();
      return lag;
    },
  };
}

/**
 * One client's run on a broker of its own (a new group reads the raw topics from their start): the bare
 * worker idle, then the worker with the subscriptions idle and through the soak.
 */
async function soak(session: KafkaBenchSession, client: KafkaClientName, progress: (m: string) => void): Promise<Soak> {
  // The same process with no subscriptions, idle: what the service costs before any subscription or record.
  const env = { MALLOC_ARENA_MAX, KAFKA_CLIENT: client };
  const bare = session.worker(`${client}-bare`, 0, { kind: 'tenant', destinations: 1, nodeArgs: NODE_ARGS, env, compiled: true });
  await bare.prepare();
  const [bareWorker] = await bare.start(`${session.groupOf(bare)}`);
  if (bareWorker === undefined) throw new Error('no worker process');
  await new Promise((r) => setTimeout(r, 5_000));
  const bareRss = new MemorySampler(bareWorker.pid).stop().points.at(-1)?.[1] ?? Number.NaN;
  await bareWorker.stop();
  progress(`${client}: a worker with no subscriptions: RSS ${round(bareRss)} MiB`);

  const config = session.worker(`${client}-10k`, SUBSCRIPTIONS, { kind: 'tenant', destinations: DESTINATIONS, nodeArgs: NODE_ARGS, env, compiled: true });
  await config.prepare();
  const [worker] = await config.start(session.groupOf(config));
  if (worker === undefined) throw new Error('no worker process');
  try {
    const idle = new MemorySampler(worker.pid, 500);
    await new Promise((r) => setTimeout(r, 5_000));
    const idleSeries = idle.stop();
    const idleRss = idleSeries.points[idleSeries.points.length - 1]?.[1] ?? Number.NaN;
    progress(`${client}: worker loaded ${SUBSCRIPTIONS.toLocaleString('en-US')} subscriptions: RSS ${round(idleRss)} MiB before any traffic`);

    const sampler = new MemorySampler(worker.pid, 1_000);
    const cpuBefore = sampleProcess(worker.pid);
    const count = Math.round(RATE * SOAK_SECONDS);
    progress(`${client}: soaking: ${count.toLocaleString('en-US')} records at ${RATE.toLocaleString('en-US')}/s for ${SOAK_SECONDS} s`);
    const lagWatch = watchLag(session, session.groupOf(config), worker.pid, (m) => progress(`${client}: ${m}`));
    const sent = await produceTraffic({
      brokers: session.broker.brokers,
      topics: session.topics.traffic,
      source: session.source,
      count,
      rate: RATE,
      batchSize: 200,
      maxInFlight: 8,
      maxDurationMs: SOAK_SECONDS * 1000 * 1.5,
    });
    // The end of the sends in the sampler's clock: the soak's halves are taken up to here, not over the drain after it.
    const soakEnd = (performance.now() - sampler.started) / 1000;
    // The soak counts only if the worker kept up: it must commit everything shortly after the last send. A
    // worker that fell behind (a machine busy with other work) is reported as such, with its RSS series, which
    // an hour of soak should not lose.
    const target = await endOffsets(session.kafka, session.inputs);
    let behind: string | undefined;
    try {
      await watchDrain(session.kafka, session.groupOf(config), session.inputs, target, [worker.pid], { timeoutMs: 120_000 });
    } catch (err) {
      behind = err instanceof Error ? err.message : String(err);
      progress(`${client}: the worker did not keep up: ${behind}`);
    }
    const series = sampler.stop();
    const lag = await lagWatch.stop();
    const cpuAfter = sampleProcess(worker.pid);
    // What the worker's CPU did for the soak, GC included: the price of a smaller heap shows here.
    const cpuSeconds = cpuBefore !== undefined && cpuAfter !== undefined ? cpuAfter.cpuSeconds - cpuBefore.cpuSeconds : Number.NaN;
    const cores = cpuBefore !== undefined && cpuAfter !== undefined ? cpuSeconds / ((cpuAfter.at - cpuBefore.at) / 1000) : Number.NaN;
    const steady = series.points.filter(([t]) => t >= SOAK_SECONDS * WARMUP_SHARE);
    const perMinute = slope(steady) * 60;
    const rss = steady.map(([, y]) => y);
    const meanRss = mean(rss);
    const half = Math.floor(steady.length / 2);
    const firstHalf = mean(rss.slice(0, half));
    const secondHalf = mean(rss.slice(half));
    // The measure of "flat": the slope over the last half of the soak (its sends), start-up and drain left out.
    const lastHalf = series.points.filter(([t]) => t >= soakEnd / 2 && t <= soakEnd);
    const lastHalfPerMinute = slope(lastHalf) * 60;
    const lagInSoak = lag.filter(([t]) => t <= soakEnd).map(([, y]) => y);
    const lagLastHalf = lag.filter(([t]) => t >= soakEnd / 2 && t <= soakEnd).map(([, y]) => y);
    const outputs = await endOffsets(session.kafka, config.outputs);
    const row: BenchRow = {
      'Kafka client': client,
      subscriptions: SUBSCRIPTIONS,
      'worker flags': NODE_ARGS.join(' ') || 'none',
      'heap growth %': HEAP_GROWTH,
      MALLOC_ARENA_MAX,
      'load records/s': round(sent.ratePerSecond),
      'soak s': SOAK_SECONDS,
      'events/record': round(outputs / Math.max(1, target), 2),
      'worker CPU ms/record': round((cpuSeconds * 1000) / Math.max(1, target), 3),
      'worker cores': round(cores, 2),
      'RSS, no subscriptions MiB': round(bareRss),
      'RSS idle MiB': round(idleRss),
      'RSS mean MiB': round(meanRss),
      'peak RSS MiB': round(series.peakRssMiB),
      'peak RSS MB': round(series.peakRssMiB * 1.048576),
      'trend MiB/min': round(perMinute, 2),
      '1st half MiB': round(firstHalf),
      '2nd half MiB': round(secondHalf),
      'last half MiB/min': round(lastHalfPerMinute, 2),
      'lag max': Math.max(0, ...lagInSoak),
      'lag mean, last half': round(mean(lagLastHalf)),
      'kept up': behind === undefined ? 'yes' : 'no',
    };
    const flat = Math.abs(perMinute) * (SOAK_SECONDS / 60) < 0.02 * meanRss;
    // Flat: the last half's slope, kept for the whole hour, would raise RSS by less than 2% of its mean (a falling RSS has levelled off too).
    const flatBound = (0.02 * meanRss) / (TARGET_SOAK_SECONDS / 60);
    const lastHalfFlat = lastHalfPerMinute <= flatBound;
    const targets: BenchTarget[] = [
      benchTarget(
        `memory: peak RSS at ${SUBSCRIPTIONS.toLocaleString('en-US')} subscriptions under ${RATE.toLocaleString('en-US')} records/s (${client})`,
        '<= 300 MB',
        `${round(series.peakRssMiB * 1.048576)} MB (mean ${round(meanRss * 1.048576)} MB)`,
        series.peakRssMiB <= TARGET_MIB,
        'The peak is the V8 heap grown to its headroom over the live subscriptions and fetched batches: PROFILE.md, "Memory at 10,000 subscriptions on Node 24".',
      ),
      {
        name: `memory: RSS flat over 60 minutes, slope of the soak's last half (${client})`,
        target: `slope <= ${round(flatBound, 2)} MiB/min (a rise of 2% of the mean over an hour)`,
        figure: `${round(lastHalfPerMinute, 2)} MiB/min over ${round((soakEnd / 2 / 60), 1)} min; halves ${round(firstHalf)} / ${round(secondHalf)} MiB`,
        met: SOAK_SECONDS < TARGET_SOAK_SECONDS || behind !== undefined ? null : lastHalfFlat,
        ...(SOAK_SECONDS < TARGET_SOAK_SECONDS
          ? { why: `This soak lasted ${SOAK_SECONDS} s; the 60-minute figure needs BENCH_MEMORY_SOAK_SECONDS=3600 (bench/results/memory-3600s.md).` }
          : behind !== undefined
            ? { why: 'The worker fell behind the load, so its memory is that of a worker behind, not of one at a steady rate.' }
            : lastHalfFlat
              ? {}
              : { why: 'RSS still climbs in the soak\'s last half: PROFILE.md, "Memory at 10,000 subscriptions on Node 24".' }),
      },
    ];
    const notes = [
      ...(behind === undefined ? [] : [`${client}: the worker did not keep up with the load (${behind}): records waited in Kafka and in its fetch buffers, so its memory is that of a worker behind, not of one at a steady rate.`]),
      `${client}: peak RSS ${round(series.peakRssMiB * 1.048576)} MB (VmHWM of the worker process, start-up included) against the target of 300 MB: ${series.peakRssMiB <= TARGET_MIB ? 'met' : 'missed'}. ` +
        `Trend: least-squares slope of RSS over the last ${round((1 - WARMUP_SHARE) * 100)}% of the soak (the first ${round(WARMUP_SHARE * 100)}% is warm-up): ${round(perMinute, 2)} MiB/min, ${round(perMinute * (SOAK_SECONDS / 60), 1)} MiB over the soak; ` +
        `mean of the first half ${round(firstHalf)} MiB, second half ${round(secondHalf)} MiB. ${flat ? 'No upward trend (the fitted change over the soak is under 2% of the mean).' : 'The fitted change over the soak exceeds 2% of the mean: look for a leak, or soak longer (BENCH_MEMORY_SOAK_SECONDS=600).'} ` +
        `Slope of the last half of the sends (${round(soakEnd / 2)}-${round(soakEnd)} s): ${round(lastHalfPerMinute, 2)} MiB/min (flat when at most ${round(flatBound, 2)} MiB/min, a rise of 2% of the mean over an hour).`,
      `${client}: consumer lag (records the worker had not committed yet, read every ${LAG_EVERY_MS / 1000} s): at most ${Math.max(0, ...lagInSoak).toLocaleString('en-US')} during the sends, ${round(mean(lagLastHalf)).toLocaleString('en-US')} on average over the last half; a lag that grows means the worker ran at capacity and records waited in Kafka.`,
    ];
    return { row, notes, targets, points: series.points, lag };
  } finally {
    await worker.stop();
  }
}

export default async function run(ctx: BenchContext): Promise<BenchReport> {
  const loadBefore = loadavg()[0] ?? 0;
  ctx.progress('compiling the service (npm run build): the worker runs dist/main.js as npm start does');
  buildService();
  const soaks: Soak[] = [];
  let session: KafkaBenchSession | undefined;
  // The broker is stopped however a soak ends: a failed soak left it running and the bench process with it.
  try {
    for (const client of clients()) {
      await session?.close();
      session = undefined;
      session = await KafkaBenchSession.open(`memory-${client}`, ctx.progress);
      soaks.push(await soak(session, client, ctx.progress));
    }
    if (session === undefined) throw new Error('no Kafka client to measure');
    const notes = [
      ...soaks.flatMap((s) => s.notes),
      `Heap: the worker ran with HEAP_GROWTH_PERCENT ${HEAP_GROWTH} (V8's old generation may grow that far past its live size before a full collection; 0 is V8's own sizing), the Node flags "${NODE_ARGS.join(' ')}" and MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX}, as \`npm start\` runs it. Worker CPU over the soak and drain, GC included, per record and in cores.`,
      `Workload: ${SUBSCRIPTIONS.toLocaleString('en-US')} subscriptions, one tenant each (a hostname or TCP address of its own, drawn over the generator's ${session.universe.httpHosts.length.toLocaleString('en-US')} hosts and ${session.universe.tcpAddresses.length.toLocaleString('en-US')} TCP addresses, common field selections), delivering to ${DESTINATIONS} kafka destinations; generated Avro traffic at ${RATE.toLocaleString('en-US')} records/s.`,
      `The soak lasted ${SOAK_SECONDS} s (BENCH_MEMORY_SOAK_SECONDS; 600 gives the 10-minute soak), once per Kafka client (BENCH_MEMORY_CLIENTS). The worker is the real service, compiled (dist/main.js, as \`npm start\` runs it), in its own process; RSS is read from /proc every second.`,
      'Where the memory goes (V8 heap spaces, fetched records, the subscriptions\' structures): bench/results/PROFILE.md, "Memory at 10,000 subscriptions on Node 24".',
      `Kafka ${session.broker.version} on 127.0.0.1 with "${session.broker.jvmOpts}"; ${cpus().length} cores shared by broker, producer and worker; load average ${round(loadBefore, 1)} at the start, ${round(loadavg()[0] ?? 0, 1)} at the end.`,
    ];
    const last = Math.max(SOAK_SECONDS, ...soaks.map((s) => s.points[s.points.length - 1]?.[0] ?? 0));
    const chart: Chart = {
      kind: 'line',
      id: 'rss',
      title: `Worker RSS during the soak (${SUBSCRIPTIONS.toLocaleString('en-US')} subscriptions, ${RATE.toLocaleString('en-US')} records/s)`,
      xLabel: 'seconds',
      yLabel: 'RSS MiB',
      series: [
        ...soaks.map((s) => ({ name: `RSS, ${String(s.row['Kafka client'])}`, points: s.points.map(([t, y]) => [round(t, 1), round(y, 1)] as [number, number]) })),
        { name: '300 MB target', points: [[0, round(TARGET_MIB)], [round(last), round(TARGET_MIB)]] },
      ],
    };
    const lagChart: Chart = {
      kind: 'line',
      id: 'lag',
      title: `Consumer lag during the soak (${RATE.toLocaleString('en-US')} records/s)`,
      xLabel: 'seconds',
      yLabel: 'records not yet committed',
      series: soaks.map((s) => ({ name: `lag, ${String(s.row['Kafka client'])}`, points: s.lag.map(([t, y]) => [round(t, 1), y] as [number, number]) })),
    };
    return {
      title: `Memory with ${SUBSCRIPTIONS.toLocaleString('en-US')} subscriptions under load`,
      usesKafka: true,
      settings: { subscriptions: SUBSCRIPTIONS, soakSeconds: SOAK_SECONDS, rate: RATE, destinations: DESTINATIONS, clients: clients().join(','), workerNodeArgs: NODE_ARGS.join(' '), heapGrowthPercent: HEAP_GROWTH, mallocArenaMax: MALLOC_ARENA_MAX },
      rows: soaks.map((s) => s.row),
      notes,
      charts: [chart, lagChart],
      targets: soaks.flatMap((s) => s.targets),
    };
  } finally {
    await session?.close();
  }
}
