// Scenario 7, events larger than the retry topic's limit: an http destination answers 503 for a while,
// so its deliveries are parked, while large events flow. Its retry topic was created with a small
// max.message.bytes: parking must split its batches to the limit and send an event over it alone to the
// dead-letter topic with the reason. Nothing may stall (a healthy destination keeps its pace) and nothing
// may be missing, counting the dead-lettered events as accounted for.
import { checkDestination, totals, type DestinationCheck } from '../harness/checker.js';
import { DeadLetterReader } from '../harness/destination-readers.js';
import { HttpSink, type Arrivals } from '../harness/http-sink.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../harness/scenario.js';
import { ServiceFleet, chaosKafka, chaosPrefix, chaosTopics, createChaosTopics, destination, subscription, writeConfig } from '../harness/service-cluster.js';
import { sleep, waitFor } from '../harness/timing.js';
import { SEQ_FIELDS, VerifiableSource, type RecordFacts } from '../harness/verifiable-source.js';

const PARAMS = {
  short: { records: 2_000, ratePerSec: 250, outageAfterMs: 2_000, outageMs: 4_000, settleMs: 60_000 },
  full: { records: 20_000, ratePerSec: 400, outageAfterMs: 10_000, outageMs: 30_000, settleMs: 300_000 },
} as const;

/** The retry topic's limit: 256 KiB per record batch. */
const RETRY_TOPIC_LIMIT = 256 * 1024;
// Every 50th record is an http record with a 300 KB user agent (its event is over the limit), every 10th
// one of 60 KB (a few fill a batch past the limit); the rest are ordinary.
const padOf = (seq: number): number => (seq % 50 === 0 ? 300_000 : seq % 10 === 0 ? 60_000 : 0);
// The traffic topics take the large records, and the dead-letter topic their events.
const TOPIC_CONFIG = { 'max.message.bytes': String(8 * 1024 * 1024) };

const HTTP = 'http_request_complete.v0';

function countBetween(a: Arrivals, from: number, to: number): number {
  let n = 0;
  for (const t of a.at) if (t >= from && t < to) n++;
  return n;
}

export const oversizeParking: Scenario = {
  name: 'oversize-parking',
  summary: "A destination down while events larger than its retry topic's limit flow; expect split parking, oversize events dead-lettered with the reason, no stall and 0 missing.",
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const p = PARAMS[ctx.scale];
    const started = Date.now();
    const prefix = chaosPrefix('oversize');
    const topics = chaosTopics(prefix);
    const kafka = chaosKafka(ctx.broker.brokers, 'chaos-oversize');
    const sink = new HttpSink();
    const source = new VerifiableSource(kafka, topics, { userAgentBytes: padOf });
    const dlq = new DeadLetterReader(kafka, topics.dlq, `${prefix}-dlq-reader`);
    const fleet = new ServiceFleet(ServiceFleet.env(prefix, ctx.broker.brokers, { RETRY_MAX_ELAPSED_MS: '1000', PARKING_SCAN_INTERVAL_MS: '2000' }));
    try {
      await sink.start();
      const down = destination({ http: { url: sink.url('down') } }, 'down');
      const healthy = destination({ http: { url: sink.url('healthy') } }, 'healthy');
      const retryTopic = `${prefix}.retry.${down.id}`;
      await createChaosTopics(kafka, topics, {
        config: TOPIC_CONFIG,
        extra: [{ topic: retryTopic, partitions: 1, config: { 'max.message.bytes': String(RETRY_TOPIC_LIMIT) } }],
      });
      const fields = [...SEQ_FIELDS[HTTP], 'http.request.user_agent'];
      await writeConfig(kafka, topics.config, [down, healthy], [
        subscription('http records, user agent included, to the destination that goes down', [{ type: HTTP, fields }], [down.id]),
        subscription('http records, user agent included, to the healthy destination', [{ type: HTTP, fields }], [healthy.id]),
      ]);
      await dlq.start();
      await fleet.start();
      ctx.log(`producing ${p.records} records at ${p.ratePerSec}/s; the retry topic takes ${RETRY_TOPIC_LIMIT} bytes per batch`);
      const producing = source.produce(0, p.records, { ratePerSec: p.ratePerSec, chunk: 50 });
      producing.catch(() => undefined);
      await sleep(p.outageAfterMs);
      const from = Date.now();
      sink.setMode('down', { kind: 'status', status: 503 });
      await sleep(p.outageMs);
      const to = Date.now();
      sink.setMode('down', { kind: 'ok' });
      ctx.log(`the destination answered 503 for ${to - from} ms`);
      await producing;

      const expected = source.select((f: RecordFacts) => f.type === HTTP);
      const tooLarge = (): typeof dlq.letters =>
        dlq.letters.filter((l) => l.headers['x-destination-id'] === down.id && l.headers['x-error-code'] === 'RECORD_TOO_LARGE' && l.seq !== undefined);
      const checks = (): DestinationCheck[] => [
        checkDestination('down for a while (delivered or dead-lettered)', expected, [...sink.of('down').seqs, ...tooLarge().map((l) => l.seq as number)]),
        checkDestination('healthy', expected, sink.of('healthy').seqs),
      ];
      await waitFor('every event delivered or dead-lettered', () => checks().every((c) => c.missing === 0), p.settleMs, 500).catch((err: unknown) =>
        ctx.log(err instanceof Error ? err.message : String(err)),
      );
      await sleep(1_000);

      const letters = tooLarge();
      const otherLetters = dlq.letters.filter((l) => !letters.includes(l));
      // Dead-lettered only because the retry topic could not take it: over the limit, and said so.
      const wrongLetters = letters.filter((l) => padOf(l.seq as number) < RETRY_TOPIC_LIMIT || !/max\.message\.bytes/.test(l.headers['x-error-message'] ?? ''));
      const deliveredBig = sink.of('down').seqs.filter((s) => padOf(s) > RETRY_TOPIC_LIMIT).length;
      const destinations = checks();
      const healthyDuring = (countBetween(sink.of('healthy'), from, to) * 1000) / (to - from);
      const produced = expected.length / (p.records / p.ratePerSec);
      return {
        scenario: this.name,
        scale: ctx.scale,
        durationMs: Date.now() - started,
        injected: [
          `http records with a 60 KB user agent every 10th record and a 300 KB one every 50th, at ${p.ratePerSec} records/s`,
          `the destination's retry topic created with max.message.bytes=${RETRY_TOPIC_LIMIT}`,
          `the destination answered 503 for ${((to - from) / 1000).toFixed(1)} s (retry budget 1 s, so its deliveries were parked)`,
        ],
        records: source.produced,
        destinations,
        figures: {
          'events expected per destination (http records)': expected.length,
          'events over the retry topic limit': expected.filter((s) => padOf(s) > RETRY_TOPIC_LIMIT).length,
          'of those dead-lettered as RECORD_TOO_LARGE (parked while the destination was down)': letters.length,
          'of those delivered (outside the outage)': deliveredBig,
          'dead letters of events under the limit, or without the reason': wrongLetters.length,
          'other dead letters': otherLetters.length,
          'healthy destination during the outage, events/s': healthyDuring,
          'http events produced, events/s': produced,
        },
        problems: [
          ...fleet.diagnose(totals(destinations).missing),
          ...fleet.unexpectedExits.map((e) => `worker ${e.pid} exited on its own (code ${e.code}, signal ${e.signal})`),
          ...(wrongLetters.length > 0 ? [`${wrongLetters.length} dead letters for events under the limit or without the reason`] : []),
          ...(otherLetters.length > 0 ? [`${otherLetters.length} unexpected dead letters, e.g. ${otherLetters[0]?.headers['x-error-code']}: ${otherLetters[0]?.headers['x-error-message']}`] : []),
          ...(letters.length === 0 ? ['no event was over the limit while the destination was down: the scenario tested nothing'] : []),
          ...(sink.unreadable > 0 ? [`${sink.unreadable} delivered events carried no sequence number`] : []),
        ],
      };
    } finally {
      await fleet.stopAll('SIGKILL');
      await Promise.allSettled([dlq.stop(), sink.stop(), source.close()]);
    }
  },
};
