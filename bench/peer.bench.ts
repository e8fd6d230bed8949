// The peer row (issue 25): the worker beside Redpanda Connect on one broker, the same records and subscriptions,
// for Avro and JSON input at the two workloads of the e2e bench; both must deliver the same events.
// BENCH_PEER_COUNT (records, default 250,000), BENCH_PEER_ROUNDS (default 2), BENCH_PEER_FORMS (default "avro,json").
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DEFAULT_KAFKA_CLIENT } from '../src/kafka/client.js';
import { clientLabel } from './e2e/e2e-run.js';
import { ensureKcat } from './e2e/kcat.js';
import { KafkaBenchSession, type DrainReport } from './e2e/session.js';
import { destinationId } from './e2e/setup.js';
import type { BenchContext, BenchReport, BenchRow, BenchTarget } from './lib/types.js';
import { ensurePeerBinary, peerVersion } from './peer/binary.js';
import { compareEvents, type EventComparison } from './peer/events.js';
import type { PeerForm } from './peer/mapping.js';
import { INPUT_BATCH, peerConfiguration } from './peer/peer-config.js';
import type { SubscriptionKind } from './workload/subscriptions.js';

const SUBSCRIPTIONS = 100;
const TARGET_RATIO = 2.5;
const WORKLOADS: ReadonlyArray<{ kind: SubscriptionKind; label: string }> = [
  { kind: 'one-percent', label: `${SUBSCRIPTIONS} subscriptions, ~1% each` },
  { kind: 'fifth-percent', label: `${SUBSCRIPTIONS} subscriptions, ~20% together` },
];
const PASSTHROUGH = fileURLToPath(new URL('./e2e/passthrough-platformatic.ts', import.meta.url));

const round = (n: number, d = 0): number => Math.round(n * 10 ** d) / 10 ** d;
const grouped = (n: number): string => Math.round(n).toLocaleString('en-US');
const perCore = (d: DrainReport): number => d.recordsPerSecond / d.cores;
const usPerRecord = (d: DrainReport): number => (d.cores / d.recordsPerSecond) * 1e6;

interface Pairing {
  readonly form: PeerForm;
  readonly workload: (typeof WORKLOADS)[number];
  readonly service: DrainReport[];
  readonly peer: DrainReport[];
  events?: EventComparison;
}

function forms(): PeerForm[] {
  const names = (process.env.BENCH_PEER_FORMS ?? 'avro,json').split(',').map((f) => f.trim());
  const bad = names.filter((f) => f !== 'avro' && f !== 'json');
  if (bad.length > 0) throw new Error(`BENCH_PEER_FORMS names unknown forms: ${bad.join(', ')} (avro, json)`);
  return names as PeerForm[];
}

const sameEvents = (e: EventComparison | undefined): boolean => e !== undefined && e.onlyService === 0 && e.onlyPeer === 0 && e.differing === 0 && e.duplicates === 0 && e.same === e.service;

export default async function run(ctx: BenchContext): Promise<BenchReport> {
  const started = Date.now();
  const loadBefore = loadavg()[0] ?? 0;
  const records = Number(process.env.BENCH_PEER_COUNT ?? 250_000);
  const rounds = Number(process.env.BENCH_PEER_ROUNDS ?? 2);
  const bin = await ensurePeerBinary(ctx.progress);
  const kcat = ensureKcat(ctx.progress);
  const drainTimeoutMs = Math.max(120_000, (records / 2_000) * 1000);
  const pairings: Pairing[] = [];
  const copies = new Map<PeerForm, DrainReport>();
  let kafkaVersion = '';
  for (const form of forms()) {
    const session = await KafkaBenchSession.open(`peer-${form}`, ctx.progress);
    kafkaVersion = session.broker.version;
    try {
      await session.preload(records, form);
      copies.set(form, await session.drain(session.passthrough(`copy-${form}`, PASSTHROUGH, { input: form }), drainTimeoutMs));
      for (const workload of WORKLOADS) {
        const p: Pairing = { form, workload, service: [], peer: [] };
        pairings.push(p);
        for (let r = 1; r <= rounds; r++) {
          const worker = session.worker(`worker-${form}-${workload.kind}-${r}`, SUBSCRIPTIONS, { kind: workload.kind, input: form });
          await worker.prepare();
          const subscriptions = worker.workload?.subscriptions;
          if (subscriptions === undefined) throw new Error('the worker configuration wrote no subscriptions');
          const peer = peerConfiguration(session, `rpcn-${form}-${workload.kind}-${r}`, bin, form, () => subscriptions);
          // Alternate which goes first, so neither always meets the machine's other load at the same point.
          const order = r % 2 === 1 ? [worker, peer] : [peer, worker];
          for (const c of order) (c === worker ? p.service : p.peer).push(await session.drain(c, drainTimeoutMs));
          if (r === 1) {
            ctx.progress(`${form}, ${workload.label}: comparing the events both delivered`);
            p.events = await compareEvents(session.broker.brokers, worker.outputs, peer.outputs, destinationId(0));
            ctx.progress(`${form}, ${workload.label}: ${JSON.stringify(p.events)}`);
          }
        }
      }
    } finally {
      await session.close();
    }
  }

  const rows: BenchRow[] = [];
  for (const form of copies.keys()) {
    const c = copies.get(form) as DrainReport;
    rows.push({ input: form, configuration: `copy, ${clientLabel(DEFAULT_KAFKA_CLIENT)} (no worker code)`, workload: '-', round: 1, 'records/s': round(c.recordsPerSecond), 'CPU cores': round(c.cores, 2), 'records/s per core': round(perCore(c)), 'CPU µs a record': round(usPerRecord(c), 1), 'events/record': round(c.eventsPerRecord, 3), 'peak RSS MiB': round(c.peakRssMiB), 'same events': null });
  }
  for (const p of pairings) {
    const row = (who: string, d: DrainReport, r: number): BenchRow => ({
      input: p.form,
      configuration: who,
      workload: p.workload.label,
      round: r,
      'records/s': round(d.recordsPerSecond),
      'CPU cores': round(d.cores, 2),
      'records/s per core': round(perCore(d)),
      'CPU µs a record': round(usPerRecord(d), 1),
      'events/record': round(d.eventsPerRecord, 3),
      'peak RSS MiB': round(d.peakRssMiB),
      'same events': r === 1 ? sameEvents(p.events) : null,
    });
    p.service.forEach((d, i) => rows.push(row('worker (the service)', d, i + 1)));
    p.peer.forEach((d, i) => rows.push(row(peerVersion(), d, i + 1)));
  }

  const targets: BenchTarget[] = pairings.map((p) => {
    const ratios = p.service.map((s, i) => perCore(s) / perCore(p.peer[i] as DrainReport));
    const low = Math.min(...ratios);
    const high = Math.max(...ratios);
    const bestService = Math.max(...p.service.map(perCore));
    const bestPeer = Math.max(...p.peer.map(perCore));
    const copy = copies.get(p.form) as DrainReport;
    const serviceUs = Math.min(...p.service.map(usPerRecord));
    const peerUs = Math.min(...p.peer.map(usPerRecord));
    const same = sameEvents(p.events);
    const figure = `${round(low, 2)}-${round(high, 2)}x in ${ratios.length} round(s) (best per core: service ${grouped(bestService)}, Redpanda Connect ${grouped(bestPeer)} records/s)`;
    const met = !same ? null : low >= TARGET_RATIO;
    let why: string | undefined;
    if (!same) why = `the two did not deliver the same events (${JSON.stringify(p.events)}), so the rates are not comparable`;
    else if (!met) {
      const needed = peerUs / TARGET_RATIO;
      const copyUs = usPerRecord(copy);
      why =
        `the worker spends ${round(serviceUs, 1)} µs of CPU a record (its best round), Redpanda Connect ${round(peerUs, 1)}; ${TARGET_RATIO}x needs ${round(needed, 1)} µs or less. ` +
        `The ${DEFAULT_KAFKA_CLIENT} copy alone (every record consumed and produced, no worker code) spent ${round(copyUs, 1)} µs a record on ${p.form} records in this run${copyUs >= needed ? ', more than that budget by itself' : ''}; ` +
        `where the worker's time goes: bench/results/PROFILE.md, "Beside Redpanda Connect"`;
    }
    return { name: `service / Redpanda Connect records/s per core, ${p.form} input, ${p.workload.label}`, target: `>= ${TARGET_RATIO}x`, figure, met, ...(why !== undefined && { why }) };
  });

  const comparisons = pairings.map((p) => {
    const e = p.events;
    return e === undefined
      ? `${p.form}, ${p.workload.label}: not compared.`
      : `${p.form}, ${p.workload.label}: the worker delivered ${grouped(e.service)} events, Redpanda Connect ${grouped(e.peer)}; ${grouped(e.same)} are the same (record, subscription) with the same content, ${e.onlyService} only the worker's, ${e.onlyPeer} only the peer's, ${e.differing} differ, ${e.duplicates} duplicates${e.examples.length > 0 ? ` (${e.examples.join('; ')})` : ''}.`;
  });
  const notes = [
    ...targets.map((t) => `${t.name}: ${t.figure}; target ${t.target}: ${t.met === null ? 'not measured' : t.met ? 'met' : 'missed'}${t.why === undefined ? '' : ` (${t.why})`}.`),
    ...comparisons,
    `Method: one broker per input form; ${records.toLocaleString('en-US')} generated records (80% http_request_complete.v0, the e2e bench's generator and seed) preloaded into the two raw topics (6 partitions each), in plain Avro or as JSON with content-type: application/json (the same records). Per workload and round, the service's worker (src/main.ts, ROLES=worker, ${clientLabel(DEFAULT_KAFKA_CLIENT)}, one kafka destination, acks=all, idempotent) and Redpanda Connect each drained all of them in a fresh consumer group, alternating which went first; records/s counts the records committed between the first commit seen and the last (bench/e2e/watch.ts), CPU cores the user+system time of the process over that window from /proc. The per-core ratio of each round pairs that round's two runs; the target counts the lowest.`,
    `Redpanda Connect (${peerVersion()}, built from bench/peer with only its kafka, pure and avro components): kafka_franz input (consumer group, batches of ${INPUT_BATCH} records, commit period 1 s, commits only what the output acknowledged), for Avro input a switch on the topic into its avro processor (to_json, binary, the schema file), then one generated Bloblang mapping (bench/peer/mapping.ts: hash indexes on the hostname, the domain, the port and the client address's /16 or /32 bucket; one named map per field set), unarchive (json_array) and a kafka_franz output (idempotent, so acks=all). Its events carry (topic, partition, offset, subscription) instead of an event id; the check derives the id from them by the documented formula and compares the rest of each envelope as JSON values (bench/peer/README.md).`,
    `Events compared: round 1 of each workload, every event of both output topics read back with kcat (${kcat}).`,
    `The copy row: the ${DEFAULT_KAFKA_CLIENT} copy of the e2e bench (bench/e2e/passthrough-platformatic.ts), every record consumed and produced unchanged with the worker's client settings: the floor of the worker's client cost in the same run.`,
    `Broker: Kafka ${kafkaVersion}, single node on 127.0.0.1. Everything shares the machine's ${cpus().length} cores; 1-minute load average ${round(loadBefore, 1)} at the start, ${round(loadavg()[0] ?? 0, 1)} at the end. This run took ${round((Date.now() - started) / 1000)} s.`,
  ];
  return {
    title: 'Beside Redpanda Connect: the worker and the peer on the same records and subscriptions',
    usesKafka: true,
    settings: { records, rounds, subscriptions: SUBSCRIPTIONS, forms: [...copies.keys()].join(' '), peer: peerVersion(), peerInputBatch: INPUT_BATCH, client: clientLabel(DEFAULT_KAFKA_CLIENT), kcat },
    rows,
    notes,
    targets,
  };
}
