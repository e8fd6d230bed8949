// Scenario 8, SIGTERM while the re-driver works through a backlog: an http destination is down while
// every record is produced, so all its events are parked. When it comes back (answering slowly, so the
// re-drive takes a while) the worker is stopped with SIGTERM part-way through the backlog and started
// again. Events in flight at the stop must be re-driven after the restart: nothing may be missing.
import { checkDestination, totals, type DestinationCheck } from '../harness/checker.js';
import { HttpSink } from '../harness/http-sink.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../harness/scenario.js';
import { ServiceFleet, chaosKafka, chaosPrefix, chaosTopics, createChaosTopics, destination, subscription, writeConfig } from '../harness/service-cluster.js';
import { waitFor } from '../harness/timing.js';
import { SEQ_FIELDS, VerifiableSource } from '../harness/verifiable-source.js';

const PARAMS = {
  short: { records: 6_000, slowMs: 150, stopAtFraction: 0.3, settleMs: 90_000 },
  full: { records: 100_000, slowMs: 200, stopAtFraction: 0.4, settleMs: 300_000 },
} as const;

const HTTP = 'http_request_complete.v0';
const TCP = 'tcp_connection_closed.v0';

export const sigtermRedrive: Scenario = {
  name: 'sigterm-redrive',
  summary: 'SIGTERM the worker while its re-driver works through a parked backlog, then restart it; expect 0 missing.',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const p = PARAMS[ctx.scale];
    const started = Date.now();
    const prefix = chaosPrefix('redrive');
    const topics = chaosTopics(prefix);
    const kafka = chaosKafka(ctx.broker.brokers, 'chaos-redrive');
    const sink = new HttpSink();
    const source = new VerifiableSource(kafka, topics);
    const fleet = new ServiceFleet(ServiceFleet.env(prefix, ctx.broker.brokers, { RETRY_MAX_ATTEMPTS: '2', RETRY_MAX_ELAPSED_MS: '500', PARKING_SCAN_INTERVAL_MS: '1000' }));
    try {
      await sink.start();
      await createChaosTopics(kafka, topics);
      const backlog = destination({ http: { url: sink.url('backlog') } }, 'backlog');
      const retryTopic = `${prefix}.retry.${backlog.id}`;
      await writeConfig(kafka, topics.config, [backlog], [
        subscription(
          'everything to the destination with a backlog',
          [
            { type: HTTP, fields: [...SEQ_FIELDS[HTTP]] },
            { type: TCP, fields: [...SEQ_FIELDS[TCP]] },
          ],
          [backlog.id],
        ),
      ]);
      sink.setMode('backlog', { kind: 'status', status: 503 });
      let worker = await fleet.start();
      await source.produce(0, p.records);
      const admin = kafka.admin();
      const parkedCount = async (): Promise<number> => {
        try {
          return (await admin.partitionOffsets(retryTopic)).reduce((n, o) => n + o.high, 0);
        } catch {
          return 0;
        }
      };
      try {
        await waitFor('every event parked', async () => (await parkedCount()) >= p.records, p.settleMs, 500);
      } finally {
        await admin.close();
      }
      ctx.log(`${p.records} events parked; the destination answers again, each request after ${p.slowMs} ms`);

      const got = sink.of('backlog');
      const recoveredAt = Date.now();
      sink.setMode('backlog', { kind: 'slow', delayMs: p.slowMs });
      const stopAt = Math.floor(p.records * p.stopAtFraction);
      await waitFor(`${stopAt} re-driven events`, () => got.seqs.length >= stopAt, p.settleMs, 20);
      const atStop = new Set(got.seqs).size;
      const stopStarted = Date.now();
      const exitCode = await fleet.stop(worker);
      const stopMs = Date.now() - stopStarted;
      const afterStop = new Set(got.seqs).size;
      ctx.log(`SIGTERM after ${atStop} of ${p.records} re-driven events; the worker exited with ${exitCode} in ${stopMs} ms (${afterStop} delivered by then)`);

      worker = await fleet.start();
      const restartedAt = Date.now();
      const all = source.select(() => true);
      const checks = (): DestinationCheck[] => [checkDestination('http, parked then re-driven across a SIGTERM', all, got.seqs)];
      await waitFor('every event re-driven', () => checks().every((c) => c.missing === 0), p.settleMs, 250).catch((err: unknown) =>
        ctx.log(err instanceof Error ? err.message : String(err)),
      );
      const doneAt = Date.now();
      const destinations = checks();
      return {
        scenario: this.name,
        scale: ctx.scale,
        durationMs: Date.now() - started,
        injected: [
          `${p.records} records produced while the destination answered 503, so every event was parked`,
          `the destination then answered 200 after ${p.slowMs} ms per request; SIGTERM to the worker after ${atStop} events had been re-driven, then a restart`,
        ],
        records: source.produced,
        destinations,
        figures: {
          'events parked': p.records,
          're-driven before the SIGTERM (distinct)': atStop,
          'delivered by the time the worker had exited (distinct)': afterStop,
          'worker exit code': exitCode ?? 'none',
          'SIGTERM to exit, ms': stopMs,
          'recovery to SIGTERM, ms': stopStarted - recoveredAt,
          'restart to every event delivered, ms': doneAt - restartedAt,
        },
        problems: [
          ...fleet.diagnose(totals(destinations).missing),
          ...fleet.unexpectedExits.map((e) => `worker ${e.pid} exited on its own (code ${e.code}, signal ${e.signal})`),
          ...(exitCode !== 0 ? [`the worker exited with ${exitCode} after SIGTERM`] : []),
          ...(afterStop >= p.records ? ['the whole backlog was re-driven before the worker stopped: the SIGTERM came too late to test anything'] : []),
        ],
      };
    } finally {
      await fleet.stopAll('SIGKILL');
      await Promise.allSettled([sink.stop(), source.close()]);
    }
  },
};
