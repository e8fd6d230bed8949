// Scenario 2, broker restart: the broker is stopped and started again (same ports, same data) while the
// worker is in the middle of a backlog. Nothing may be missing; the recovery time is measured.
import { checkDestination, totals, type DestinationCheck } from '../harness/checker.js';
import { KafkaTopicReader } from '../harness/destination-readers.js';
import { HttpSink, type Arrivals } from '../harness/http-sink.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../harness/scenario.js';
import { ServiceFleet, chaosKafka, chaosPrefix, chaosTopics, createChaosTopics, destination, subscription, writeConfig } from '../harness/service-cluster.js';
import { waitFor } from '../harness/timing.js';
import { SEQ_FIELDS, VerifiableSource } from '../harness/verifiable-source.js';

const PARAMS = {
  short: { records: 10_000, downMs: 1_000, settleMs: 120_000 },
  full: { records: 100_000, downMs: 10_000, settleMs: 300_000 },
} as const;

const HTTP = 'http_request_complete.v0';
const TCP = 'tcp_connection_closed.v0';

/** Milliseconds from `t` to the first arrival after it, or -1 when none came. */
function firstAfter(a: Arrivals, t: number): number {
  const at = a.at.find((x) => x > t);
  return at === undefined ? -1 : at - t;
}

/** The longest stretch without an arrival between `from` and the last arrival. */
function longestGap(a: Arrivals, from: number): number {
  let gap = 0;
  let prev = from;
  for (const t of a.at) {
    if (t < from) continue;
    gap = Math.max(gap, t - prev);
    prev = t;
  }
  return gap;
}

export const brokerRestart: Scenario = {
  name: 'broker-restart',
  summary: 'Stop and start the broker mid-stream; expect 0 missing and report the recovery time.',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const restart = ctx.broker.restart?.bind(ctx.broker);
    if (restart === undefined) throw new Error('broker-restart needs a broker it can restart (startRestartableBroker).');
    const p = PARAMS[ctx.scale];
    const started = Date.now();
    const prefix = chaosPrefix('broker');
    const topics = chaosTopics(prefix);
    const kafka = chaosKafka(ctx.broker.brokers, 'chaos-broker');
    const sink = new HttpSink();
    const reader = new KafkaTopicReader(kafka, topics.out('kafka'), `${prefix}-reader`);
    const source = new VerifiableSource(kafka, topics);
    const fleet = new ServiceFleet(ServiceFleet.env(prefix, ctx.broker.brokers));
    try {
      await sink.start();
      await createChaosTopics(kafka, topics, { extra: [{ topic: topics.out('kafka'), partitions: 2 }] });
      const dKafka = destination({ kafka: { topic: topics.out('kafka') } }, 'kafka');
      const dHttp = destination({ http: { url: sink.url('all') } }, 'http');
      await writeConfig(kafka, topics.config, [dKafka, dHttp], [
        subscription('http records to kafka', [{ type: HTTP, fields: [...SEQ_FIELDS[HTTP]] }], [dKafka.id]),
        subscription('everything to http', [{ type: HTTP, fields: [...SEQ_FIELDS[HTTP]] }, { type: TCP, fields: [...SEQ_FIELDS[TCP]] }], [dHttp.id]),
      ]);
      await reader.start();
      const worker = await fleet.start();
      const half = Math.floor(p.records / 2);
      await source.produce(0, half);
      ctx.log(`worker ${worker.child.pid} running; ${half} records produced before the restart`);

      // Mid-stream: the worker has delivered a fifth of the backlog and is still busy with the rest.
      const http = sink.of('all');
      await waitFor('a fifth of the backlog at the http destination', () => http.seqs.length >= half / 5, 120_000, 50);
      const deliveredAtStop = http.seqs.length;
      const { stoppedAt, readyAt } = await restart(p.downMs);
      ctx.log(`broker restarted with ${deliveredAtStop} of ${half} delivered at the stop`);
      await source.produce(half, p.records);
      ctx.log(`the other ${p.records - half} records produced after the restart`);

      const expected = { kafka: source.select((f) => f.type === HTTP), http: source.select(() => true) };
      const checks = (): DestinationCheck[] => [
        checkDestination('kafka topic (http records)', expected.kafka, reader.arrivals.seqs),
        checkDestination('http (every record)', expected.http, http.seqs),
      ];
      let caughtUpAt = -1;
      await waitFor('every event at every destination', () => checks().every((c) => c.missing === 0), p.settleMs, 500)
        .then(() => (caughtUpAt = Date.now()))
        .catch((err: unknown) => ctx.log(err instanceof Error ? err.message : String(err)));
      const destinations = checks();
      return {
        scenario: this.name,
        scale: ctx.scale,
        durationMs: Date.now() - started,
        injected: [
          `broker stopped (SIGTERM, clean shutdown) with ${deliveredAtStop} of ${half} backlog records delivered, kept down ${p.downMs} ms, started again on the same ports and data`,
        ],
        records: source.produced,
        destinations,
        figures: {
          'broker down (stop to ready), ms': readyAt - stoppedAt,
          'recovery: broker ready to first http delivery, ms': firstAfter(http, readyAt),
          'recovery: broker ready to first kafka-destination record seen, ms': firstAfter(reader.arrivals, readyAt),
          'longest http delivery gap from the stop on, ms': longestGap(http, stoppedAt),
          'broker ready to every event delivered, ms': caughtUpAt < 0 ? 'not reached' : caughtUpAt - readyAt,
          'consumer crashes logged (the client starts the consumer again in-process)': fleet.consumerCrashes().length,
        },
        problems: [
          ...fleet.diagnose(totals(destinations).missing),
          ...fleet.unexpectedExits.map((e) => `worker ${e.pid} exited on its own (code ${e.code}, signal ${e.signal}): ${e.lastLogs.slice(-3).join(' | ')}`),
        ],
      };
    } finally {
      await fleet.stopAll('SIGKILL');
      await Promise.allSettled([reader.stop(), sink.stop(), source.close()]);
    }
  },
};
