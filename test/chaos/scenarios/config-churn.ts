// Scenario 5, config churn under load: subscriptions are created and deleted through the admin API (a
// process of its own) while records flow through a separate worker. No crash; no event for a
// subscription after its deletion was acknowledged; no event missing during its lifetime (lifetime.ts).
import { randomBytes } from 'node:crypto';
import { checkDestination } from '../harness/checker.js';
import { AdminClient } from '../harness/admin-client.js';
import { HttpSink } from '../harness/http-sink.js';
import { PROPAGATION_MS, judgeLifetimes, type ChurnedSubscription } from '../harness/lifetime.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../harness/scenario.js';
import { ServiceFleet, chaosKafka, chaosPrefix, chaosTopics, createChaosTopics } from '../harness/service-cluster.js';
import { seededRandom, sleep, waitFor } from '../harness/timing.js';
import { SEQ_FIELDS, VerifiableSource } from '../harness/verifiable-source.js';

// Lifetimes are longer than twice the propagation allowance, so each one has a window of required events.
const PARAMS = {
  short: { subscriptions: 24, concurrent: 8, ports: 10, minRecords: 5_000, ratePerSec: 500, lifeMs: [3_000, 4_000], settleMs: 90_000 },
  full: { subscriptions: 1_000, concurrent: 40, ports: 50, minRecords: 100_000, ratePerSec: 1_000, lifeMs: [3_000, 8_000], settleMs: 300_000 },
} as const;

// The worker's allowance for producer clocks (SUBSCRIPTION_CLOCK_SKEW_MS). Smaller than the default 5 s,
// so that the lifetime rule's "nothing stamped before the subscription was created" bound lies within
// the worker's lag here and can catch a record routed to a subscription created after it was stamped.
const CLOCK_SKEW_MS = 1_000;

const HTTP = 'http_request_complete.v0';
const TCP = 'tcp_connection_closed.v0';
const BASE_PORT = 1_000;

function percentile(sorted: readonly number[], q: number): number {
  return sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number);
}

export const configChurn: Scenario = {
  name: 'config-churn',
  summary: 'Create and delete subscriptions through the API while records flow; no crash, nothing after a deletion, nothing missing in a lifetime.',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const p = PARAMS[ctx.scale];
    const started = Date.now();
    const prefix = chaosPrefix('churn');
    const topics = chaosTopics(prefix);
    const kafka = chaosKafka(ctx.broker.brokers, 'chaos-churn');
    const sink = new HttpSink();
    // Record i has server_port BASE_PORT + i % ports; churned subscription n filters on one such port.
    const portOf = (seq: number): number => BASE_PORT + (seq % p.ports);
    const source = new VerifiableSource(kafka, topics, { serverPort: portOf });
    const token = `eek_chaos${randomBytes(16).toString('hex')}`;
    // The churn is the load here, not a runaway client: the per-key rate limit must not pace it.
    const fleet = new ServiceFleet(ServiceFleet.env(prefix, ctx.broker.brokers, { API_BOOTSTRAP_TOKEN: token, API_RATE_LIMIT_PER_SECOND: '100000', API_RATE_LIMIT_BURST: '100000', SUBSCRIPTION_CLOCK_SKEW_MS: String(CLOCK_SKEW_MS) }));
    const abort = new AbortController();
    try {
      await sink.start();
      await createChaosTopics(kafka, topics);
      // The API and the worker are separate processes, so an acknowledgement says nothing about the worker's view.
      const api = new AdminClient((await fleet.start({ ROLES: 'api' })).url, token);
      await fleet.start({ ROLES: 'worker' });
      const sources = (filter?: string): unknown[] => [
        { type: HTTP, fields: [...SEQ_FIELDS[HTTP]], ...(filter !== undefined && { filter }) },
        { type: TCP, fields: [...SEQ_FIELDS[TCP]], ...(filter !== undefined && { filter }) },
      ];
      const control = await api.request<{ id: string }>('POST', '/event_destinations', { target: { http: { url: sink.url('control') } } }, 201);
      await api.request('POST', '/event_subscriptions', { description: 'control: every record', sources: sources(), destination_ids: [control.id] }, 201);
      // One destination per churned subscription, so every event names the subscription it was for.
      const destinationIds: string[] = [];
      for (let i = 0; i < p.subscriptions; i++) {
        const d = await api.request<{ id: string }>('POST', '/event_destinations', { description: `churn ${i}`, target: { http: { url: sink.url(`s/${i}`) } } }, 201);
        destinationIds.push(d.id);
      }
      ctx.log(`${p.subscriptions} destinations created; traffic and churn start`);

      let seq = 0;
      const producing = (async () => {
        const chunk = p.ratePerSec / 10;
        while (!abort.signal.aborted || seq < p.minRecords) {
          await source.produce(seq, seq + chunk, { ratePerSec: p.ratePerSec, chunk });
          seq += chunk;
        }
      })();
      producing.catch(() => undefined);
      await waitFor('the control destination to receive traffic', () => sink.of('control').seqs.length > 0, 60_000);

      const random = seededRandom(ctx.seed);
      const churned: ChurnedSubscription[] = [];
      let next = 0;
      const slot = async (): Promise<void> => {
        while (next < p.subscriptions) {
          const index = next++;
          const port = BASE_PORT + (index % p.ports);
          const body = { description: `churn ${index}`, sources: sources(`ev.conn.server_port == ${port}`), destination_ids: [destinationIds[index]] };
          const createSent = Date.now();
          const created = await api.request<{ id: string }>('POST', '/event_subscriptions', body, 201);
          const createdAck = Date.now();
          await sleep(p.lifeMs[0] + random() * (p.lifeMs[1] - p.lifeMs[0]));
          const deleteSent = Date.now();
          await api.request('DELETE', `/event_subscriptions/${created.id}`, undefined, 204);
          churned.push({ index, createSent, createdAck, deleteSent, deletedAck: Date.now(), matches: (s) => portOf(s) === port });
        }
      };
      await Promise.all(Array.from({ length: p.concurrent }, slot));
      const churnEnded = Date.now();
      ctx.log(`${churned.length} subscriptions created and deleted in ${((churnEnded - started) / 1000).toFixed(0)} s; ${seq} records so far`);
      // Records after the last deletion: they must reach no churned subscription.
      await sleep(PROPAGATION_MS + 3_000);
      abort.abort();
      await producing;

      const controlSink = sink.of('control');
      const everything = source.select(() => true);
      await waitFor('every record at the control destination', () => checkDestination('control', everything, controlSink.seqs).missing === 0, p.settleMs, 500).catch(
        (err: unknown) => ctx.log(err instanceof Error ? err.message : String(err)),
      );
      const controlArrival = new Map<number, number>();
      controlSink.seqs.forEach((s, i) => {
        if (!controlArrival.has(s)) controlArrival.set(s, controlSink.at[i] as number);
      });
      const delivered = new Map<number, number[]>(churned.map((c) => [c.index, sink.of(`s/${c.index}`).seqs]));
      const verdict = judgeLifetimes(churned, delivered, (s) => source.timestamps[s], controlArrival, PROPAGATION_MS, CLOCK_SKEW_MS);
      // How close the service came to the rule: the latest-stamped event any subscription got, relative to its deletion.
      let latestAfterDeletion = Number.NEGATIVE_INFINITY;
      for (const c of churned) {
        for (const s of delivered.get(c.index) ?? []) latestAfterDeletion = Math.max(latestAfterDeletion, (source.timestamps[s] ?? 0) - c.deletedAck);
      }
      const lags = controlSink.seqs.map((s, i) => (controlSink.at[i] as number) - (source.timestamps[s] ?? 0)).sort((a, b) => a - b);
      const controlCheck = checkDestination('control (every record)', everything, controlSink.seqs);
      const churnedCheck = {
        destination: `${churned.length} churned subscriptions (events required by their lifetimes)`,
        expected: verdict.mustReceive,
        deliveries: [...delivered.values()].reduce((n, l) => n + l.length, 0),
        distinct: verdict.mustReceive - verdict.missing,
        missing: verdict.missing,
        duplicates: verdict.duplicates,
        unexpected: verdict.afterDeletion + verdict.beforeCreation + verdict.unmatched,
        missingSample: verdict.missingSample.map((m) => m.seq),
        unexpectedSample: [...verdict.afterDeletionSample, ...verdict.beforeCreationSample].map((m) => m.seq),
      };
      return {
        scenario: this.name,
        scale: ctx.scale,
        durationMs: Date.now() - started,
        injected: [
          `${churned.length} subscriptions created and deleted through the admin API (${p.concurrent} alive at a time, each for ${p.lifeMs[0] / 1000}-${p.lifeMs[1] / 1000} s), API and worker in separate processes`,
        ],
        records: source.produced,
        destinations: [controlCheck, churnedCheck],
        figures: {
          'API calls': api.calls,
          'API calls answered unexpectedly': api.failures.length,
          'propagation allowance in the lifetime rule, ms': PROPAGATION_MS,
          'events after an acknowledged deletion': verdict.afterDeletion,
          'clock skew allowance of the worker, ms': CLOCK_SKEW_MS,
          'events stamped before their subscription was created (less the allowance)': verdict.beforeCreation,
          'events a subscription filter does not match': verdict.unmatched,
          'events required by lifetimes but missing': verdict.missing,
          'latest event stamped relative to its subscription\'s deletion acknowledgement, ms': latestAfterDeletion,
          'worker lag (record timestamp to control delivery), median ms': percentile(lags, 0.5),
          'worker lag, p99 ms': percentile(lags, 0.99),
          'scenario start to the last deletion, s': (churnEnded - started) / 1000,
        },
        problems: [
          ...fleet.diagnose(controlCheck.missing + verdict.missing),
          ...fleet.unexpectedExits.map((e) => `a service process exited on its own (code ${e.code}, signal ${e.signal}): ${e.lastLogs.slice(-3).join(' | ')}`),
          ...api.failures.slice(0, 5),
          ...verdict.afterDeletionSample.map((a) => `subscription ${a.subscription} received record ${a.seq}, stamped ${a.stampedAfterAckMs} ms after its deletion was acknowledged`),
          ...verdict.beforeCreationSample.map((a) => `subscription ${a.subscription} received record ${a.seq}, stamped ${a.stampedBeforeCreateMs} ms before its create request`),
        ],
      };
    } finally {
      abort.abort();
      await fleet.stopAll('SIGKILL');
      await Promise.allSettled([sink.stop(), source.close()]);
    }
  },
};
