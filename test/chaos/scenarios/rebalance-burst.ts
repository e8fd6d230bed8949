// Scenario 6, a rebalance in the middle of a delivery burst: records flow to a kafka, a file and an http
// destination while workers join the consumer group and leave it (SIGTERM), and each join happens while
// the http destination holds every request, so the revoked partitions' deliveries are in flight and the
// drain deadline has to end them. Nothing may be missing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkDestination, totals, type DestinationCheck } from '../harness/checker.js';
import { KafkaTopicReader, readFileDestination } from '../harness/destination-readers.js';
import { HttpSink } from '../harness/http-sink.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../harness/scenario.js';
import { ServiceFleet, chaosKafka, chaosPrefix, chaosTopics, createChaosTopics, destination, subscription, writeConfig } from '../harness/service-cluster.js';
import { sleep, waitFor } from '../harness/timing.js';
import { SEQ_FIELDS, VerifiableSource, type RecordFacts } from '../harness/verifiable-source.js';
import type { ServiceProcess } from '../../support/service-process.js';

const PARAMS = {
  // One join and one leave, each a few seconds into the burst.
  short: { records: 8_000, ratePerSec: 800, cycles: 1, holdMs: 4_000, settleMs: 90_000 },
  full: { records: 120_000, ratePerSec: 2_000, cycles: 3, holdMs: 6_000, settleMs: 300_000 },
} as const;

/** Short, so a join waits on it rather than on the default 10 s; the hold outlasts it. */
const DRAIN_TIMEOUT_MS = 3_000;
const HTTP = 'http_request_complete.v0';
const TCP = 'tcp_connection_closed.v0';
const FILE_PATH = 'rebalance/tcp.ndjson';

/** How long each completed join of the ingest group took, as the worker logs it (start or rebalance to assignment). */
function joinDurations(fleet: ServiceFleet): number[] {
  const group = fleet.env.CONSUMER_GROUP;
  return fleet
    .logLines(/The worker joined its consumer group\./)
    .map((l) => JSON.parse(l) as { group: string; durationMs?: number })
    .filter((j) => j.group === group && j.durationMs !== undefined)
    .map((j) => j.durationMs as number);
}

export const rebalanceBurst: Scenario = {
  name: 'rebalance',
  summary: 'Workers join and leave the consumer group mid-burst, each join while the http destination holds its requests; expect 0 missing.',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const p = PARAMS[ctx.scale];
    const started = Date.now();
    const prefix = chaosPrefix('rebalance');
    const topics = chaosTopics(prefix);
    const kafka = chaosKafka(ctx.broker.brokers, 'chaos-rebalance');
    // One file root per worker process: a file destination is written by one process (src/delivery/README.md).
    const roots: string[] = [];
    const sink = new HttpSink();
    const reader = new KafkaTopicReader(kafka, topics.out('kafka'), `${prefix}-reader`);
    const source = new VerifiableSource(kafka, topics);
    const fleet = new ServiceFleet(ServiceFleet.env(prefix, ctx.broker.brokers, { DRAIN_TIMEOUT_MS: String(DRAIN_TIMEOUT_MS) }));
    const startWorker = (): Promise<ServiceProcess> => {
      const root = mkdtempSync(join(tmpdir(), 'edge-chaos-files-'));
      roots.push(root);
      return fleet.start({ FILE_DESTINATION_ROOT: root });
    };
    try {
      await sink.start();
      await createChaosTopics(kafka, topics, { partitions: 6, extra: [{ topic: topics.out('kafka'), partitions: 2 }] });
      const dKafka = destination({ kafka: { topic: topics.out('kafka') } }, 'kafka');
      const dFile = destination({ file: { path: FILE_PATH } }, 'file');
      const dHttp = destination({ http: { url: sink.url('all'), timeout_ms: 60_000 } }, 'http');
      await writeConfig(kafka, topics.config, [dKafka, dFile, dHttp], [
        subscription('https to kafka', [{ type: HTTP, fields: [...SEQ_FIELDS[HTTP]], filter: 'ev.conn.server_port == 443' }], [dKafka.id]),
        subscription('tcp to a file', [{ type: TCP, fields: [...SEQ_FIELDS[TCP]] }], [dFile.id]),
        subscription('everything to http', [{ type: HTTP, fields: [...SEQ_FIELDS[HTTP]] }, { type: TCP, fields: [...SEQ_FIELDS[TCP]] }], [dHttp.id]),
      ]);
      await reader.start();
      let workers = [await startWorker()];
      ctx.log(`worker ${workers[0]?.child.pid} running; producing ${p.records} records at ${p.ratePerSec}/s`);
      const producing = source.produce(0, p.records, { ratePerSec: p.ratePerSec, chunk: 200 });
      producing.catch(() => undefined);
      const http = sink.of('all');
      await waitFor('the first deliveries', () => http.seqs.length > 0, 60_000);

      const injected: string[] = [];
      const resumed: number[] = [];
      for (let c = 1; c <= p.cycles; c++) {
        // Join: while the http destination holds every request, so deliveries are in flight at the revocation.
        await sleep(1_500);
        sink.setMode('all', { kind: 'hang' });
        await sleep(500);
        const joining = Date.now();
        const joined = await startWorker();
        workers.push(joined);
        ctx.log(`cycle ${c}: worker ${joined.child.pid} joined ${Date.now() - joining} ms after it started (${source.produced} records produced)`);
        await sleep(Math.max(0, p.holdMs - (Date.now() - joining)));
        sink.setMode('all', { kind: 'ok' });
        const released = Date.now();
        await waitFor(`deliveries after cycle ${c}'s hold`, () => (http.at[http.at.length - 1] ?? 0) > released, 60_000);
        resumed.push((http.at.find((t) => t > released) ?? released) - released);
        injected.push(`a worker joined while the http destination held every request for ${(p.holdMs / 1000).toFixed(0)} s`);

        // Leave: the longest-running worker stops with SIGTERM, draining and committing as it goes.
        await sleep(2_000);
        const leaving = workers[0] as ServiceProcess;
        const leftAt = Date.now();
        await fleet.stop(leaving);
        workers = workers.slice(1);
        ctx.log(`cycle ${c}: worker ${leaving.child.pid} left (SIGTERM) in ${Date.now() - leftAt} ms`);
        injected.push('a worker left the group (SIGTERM) while records flowed');
      }
      await producing;
      ctx.log(`all ${source.produced} records produced; waiting for every destination`);

      const expected = {
        kafka: source.select((f: RecordFacts) => f.type === HTTP && f.serverPort === 443),
        file: source.select((f) => f.type === TCP),
        http: source.select(() => true),
      };
      let corruptLines = 0;
      const checks = (): DestinationCheck[] => {
        const files = roots.map((r) => readFileDestination(join(r, FILE_PATH)));
        corruptLines = files.reduce((n, f) => n + f.corruptLines, 0);
        return [
          checkDestination('kafka topic (https records)', expected.kafka, reader.arrivals.seqs),
          checkDestination('file (tcp records, every worker\'s file)', expected.file, files.flatMap((f) => f.seqs)),
          checkDestination('http (every record)', expected.http, http.seqs),
        ];
      };
      await waitFor('every event at every destination', () => checks().every((c) => c.missing === 0), p.settleMs, 1_000).catch((err: unknown) =>
        ctx.log(err instanceof Error ? err.message : String(err)),
      );
      const destinations = checks();
      const joins = joinDurations(fleet);
      const drainWarnings = fleet.logLines(/The drain deadline passed/).length;
      return {
        scenario: this.name,
        scale: ctx.scale,
        durationMs: Date.now() - started,
        injected,
        records: source.produced,
        destinations,
        figures: {
          'worker joins and leaves': `${p.cycles} and ${p.cycles}`,
          'drain deadline (DRAIN_TIMEOUT_MS), ms': DRAIN_TIMEOUT_MS,
          'hold of the http destination at each join, ms': p.holdMs,
          'group joins, ms each (start or rebalance to assignment)': joins.join(', '),
          'longest group join, ms': Math.max(...joins),
          'batches that hit the drain deadline': drainWarnings,
          'http deliveries resumed after each hold, ms': resumed.join(', '),
          'consumer crashes logged': fleet.consumerCrashes().length,
          'produce rate, records/s': p.ratePerSec,
        },
        problems: [
          ...fleet.diagnose(totals(destinations).missing),
          ...fleet.unexpectedExits.map((e) => `worker ${e.pid} exited on its own (code ${e.code}, signal ${e.signal})`),
          ...fleet.consumerCrashes().slice(0, 3).map((l) => `consumer crash: ${l.slice(0, 300)}`),
          ...(corruptLines > 0 ? [`${corruptLines} corrupt lines in the file destination`] : []),
          ...(sink.unreadable + reader.unreadable > 0 ? [`${sink.unreadable + reader.unreadable} delivered events carried no sequence number`] : []),
        ],
      };
    } finally {
      await fleet.stopAll('SIGKILL');
      await Promise.allSettled([reader.stop(), sink.stop(), source.close()]);
      for (const r of roots) rmSync(r, { recursive: true, force: true });
    }
  },
};
