// Scenario 6, a destination that cannot run: while records flow, an http destination whose signing
// secret was sealed with another SECRET_KEY and a kafka destination whose stored topic its writer rejects
// receive every record beside a healthy one. Half-way both are fixed through the admin API. Their events
// must be parked meanwhile (with the reason), not committed away: nothing may be missing after the fix.
import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../../src/secrets/secret-box.js';
import { AdminClient } from '../harness/admin-client.js';
import { checkDestination, totals, type DestinationCheck } from '../harness/checker.js';
import { DeadLetterReader, KafkaTopicReader } from '../harness/destination-readers.js';
import { HttpSink } from '../harness/http-sink.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../harness/scenario.js';
import { ServiceFleet, chaosKafka, chaosPrefix, chaosTopics, createChaosTopics, destination, subscription, writeConfig } from '../harness/service-cluster.js';
import { sleep, waitFor } from '../harness/timing.js';
import { SEQ_FIELDS, VerifiableSource } from '../harness/verifiable-source.js';

const PARAMS = {
  short: { records: 3_000, ratePerSec: 500, settleMs: 60_000 },
  full: { records: 60_000, ratePerSec: 1_000, settleMs: 300_000 },
} as const;

const HTTP = 'http_request_complete.v0';
const TCP = 'tcp_connection_closed.v0';

export const misconfiguredDestination: Scenario = {
  name: 'misconfigured-destination',
  summary: 'Two destinations whose writers cannot be built (a secret sealed with another key, a rejected config) while records flow, fixed through the API half-way; expect 0 missing.',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const p = PARAMS[ctx.scale];
    const started = Date.now();
    const prefix = chaosPrefix('misconf');
    const topics = chaosTopics(prefix);
    const kafka = chaosKafka(ctx.broker.brokers, 'chaos-misconf');
    const sink = new HttpSink();
    const out = new KafkaTopicReader(kafka, topics.out('kafka'), `${prefix}-reader`);
    const source = new VerifiableSource(kafka, topics);
    const token = `eek_chaos${randomBytes(16).toString('hex')}`;
    const fleet = new ServiceFleet(ServiceFleet.env(prefix, ctx.broker.brokers, { API_BOOTSTRAP_TOKEN: token, PARKING_SCAN_INTERVAL_MS: '2000' }));
    const parkedReaders: DeadLetterReader[] = [];
    try {
      await sink.start();
      await createChaosTopics(kafka, topics, { extra: [{ topic: topics.out('kafka'), partitions: 2 }] });
      // Sealed with a key the service does not have, as after a SECRET_KEY rotation gone wrong.
      const foreign = new SecretBox(randomBytes(32));
      const sealed = destination({ http: { url: sink.url('sealed'), secret_enc: foreign.seal('a-signing-secret-sealed-elsewhere') } }, 'sealed elsewhere');
      // Stored by hand or by another version: the kafka writer refuses the topic name.
      const rejected = destination({ kafka: { topic: 'not a topic name' } }, 'rejected config');
      const control = destination({ http: { url: sink.url('control') } }, 'control');
      const everything = [
        { type: HTTP, fields: [...SEQ_FIELDS[HTTP]] },
        { type: TCP, fields: [...SEQ_FIELDS[TCP]] },
      ];
      await writeConfig(kafka, topics.config, [sealed, rejected, control], [
        subscription('everything to the destination sealed elsewhere', everything, [sealed.id]),
        subscription('everything to the rejected kafka destination', everything, [rejected.id]),
        subscription('everything to the control destination', everything, [control.id]),
      ]);
      await out.start();
      const api = new AdminClient((await fleet.start({ ROLES: 'api,worker' })).url, token);
      ctx.log(`producing ${p.records} records at ${p.ratePerSec}/s; both broken destinations are fixed half-way`);
      const half = Math.floor(p.records / 2);
      await source.produce(0, half, { ratePerSec: p.ratePerSec, chunk: 100 });
      const producing = source.produce(half, p.records, { ratePerSec: p.ratePerSec, chunk: 100 });
      producing.catch(() => undefined);

      const before = { sealed: sink.of('sealed').seqs.length, kafka: out.arrivals.seqs.length };
      // The backlog of a broken destination: the events of the records produced before its fix.
      const backlog = source.select(() => true);
      const backlogDoneAt: Array<number | undefined> = [undefined, undefined];
      const watch = setInterval(() => {
        [sink.of('sealed').seqs, out.arrivals.seqs].forEach((seqs, i) => {
          if (backlogDoneAt[i] === undefined && checkDestination('backlog', backlog, seqs).missing === 0) backlogDoneAt[i] = Date.now();
        });
      }, 100);
      watch.unref();
      const fixedAt = Date.now();
      await api.request('PATCH', `/event_destinations/${sealed.id}`, { target: { http: { url: sink.url('sealed'), secret: 'a-new-signing-secret-0001' } } }, 200);
      await api.request('PATCH', `/event_destinations/${rejected.id}`, { target: { kafka: { topic: topics.out('kafka') } } }, 200);
      ctx.log(`both destinations fixed through the API (${before.sealed} and ${before.kafka} events had reached them)`);
      await producing;

      const all = source.select(() => true);
      const checks = (): DestinationCheck[] => [
        checkDestination('http, secret sealed with another key, then fixed', all, sink.of('sealed').seqs),
        checkDestination('kafka, config the writer rejects, then fixed', all, out.arrivals.seqs),
        checkDestination('http control', all, sink.of('control').seqs),
      ];
      await waitFor('every event at every destination', () => checks().every((c) => c.missing === 0), p.settleMs, 250).catch((err: unknown) =>
        ctx.log(err instanceof Error ? err.message : String(err)),
      );
      clearInterval(watch);

      // What was parked, and why, as the retry topics say.
      const parked: Record<string, { records: number; codes: string }> = {};
      for (const d of [sealed, rejected]) {
        const reader = new DeadLetterReader(kafka, `${prefix}.retry.${d.id}`, `${prefix}-parked-${d.id}`);
        parkedReaders.push(reader);
        await reader.start().catch(() => undefined);
      }
      await sleep(3_000);
      for (const [i, d] of [sealed, rejected].entries()) {
        const letters = parkedReaders[i]?.letters ?? [];
        parked[d.description] = { records: letters.length, codes: [...new Set(letters.map((l) => l.headers['x-error-code']))].join(', ') };
      }
      const brokenLines = (id: string): number => fleet.logLines(new RegExp(`"level":(40|50|60).*${id}`)).length;
      const destinations = checks();
      const problems = [
        ...fleet.diagnose(totals(destinations).missing),
        ...fleet.unexpectedExits.map((e) => `worker ${e.pid} exited on its own (code ${e.code}, signal ${e.signal})`),
        ...(before.sealed + before.kafka > 0 ? [`${before.sealed + before.kafka} events reached a destination before it could run`] : []),
        ...Object.entries(parked)
          .filter(([, v]) => v.records === 0 || v.codes !== 'DESTINATION_MISCONFIGURED')
          .map(([k, v]) => `the ${k} destination's parked records: ${v.records}, codes "${v.codes}" (expected DESTINATION_MISCONFIGURED)`),
      ];
      const sinceFix = (i: number): number | string => (backlogDoneAt[i] === undefined ? 'never' : (backlogDoneAt[i] as number) - fixedAt);
      return {
        scenario: this.name,
        scale: ctx.scale,
        durationMs: Date.now() - started,
        injected: [
          `an http destination whose signing secret was sealed with another SECRET_KEY, and a kafka destination stored with the topic "not a topic name", each receiving every record from the start`,
          `both fixed through the admin API (PATCH) after ${half} of ${p.records} records`,
        ],
        records: source.produced,
        destinations,
        figures: {
          'produce rate, records/s': p.ratePerSec,
          'events delivered to a broken destination before its fix': before.sealed + before.kafka,
          'parked by the http destination (retry topic records)': parked['sealed elsewhere']?.records ?? 0,
          'parked by the kafka destination (retry topic records)': parked['rejected config']?.records ?? 0,
          'error codes of the parked records': [...new Set(Object.values(parked).map((v) => v.codes))].join('; '),
          'fix to every event of the records before it at the http destination, ms': sinceFix(0),
          'fix to every event of the records before it at the kafka destination, ms': sinceFix(1),
          'warning and error lines about the http destination': brokenLines(sealed.id),
          'warning and error lines about the kafka destination': brokenLines(rejected.id),
        },
        problems,
      };
    } finally {
      await fleet.stopAll('SIGKILL');
      await Promise.allSettled([out.stop(), sink.stop(), source.close(), ...parkedReaders.map((r) => r.stop())]);
    }
  },
};
