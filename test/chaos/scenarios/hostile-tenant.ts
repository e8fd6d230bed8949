// Scenario 11, a hostile tenant (issue 38): one account does everything the API lets it that costs the
// service work, all at once, while a second account's traffic is measured end to end. The hostile account
// holds filters at the per-filter cost bound on as many subscriptions as its account bound lets it, sends
// records with hundreds of distinct header names to a csv destination, holds a tap it never reads, writes
// to an object store that refuses every PUT with the largest upload limits, churns kafka destinations on
// the service's cluster into the partition cap, and tries to list the victim's TCP address and names.
// The victim's bounds (ARCHITECTURE.md "Isolation"): none of its events missing, its p99 delivery latency
// within 2x the baseline phase's (the same run, before the hostile account exists), /healthz answering
// within 1 s throughout, and no group rejoin (the scenario restarts nothing, so the one join is the start's).
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { loadavg } from 'node:os';
import type { Producer } from '@platformatic/kafka';
import { compileFilter } from '../../../src/cel/compile.js';
import { DLQ_HEADERS } from '../../../src/delivery/dead-letter.js';
import { toolProducer, toolRecord } from '../../support/kafka-tools.js';
import { AdminClient } from '../harness/admin-client.js';
import { checkDestination } from '../harness/checker.js';
import { CsvSink } from '../harness/csv-sink.js';
import { DeadLetterCounter } from '../harness/destination-readers.js';
import { HealthProbe } from '../harness/health-probe.js';
import { HttpSink } from '../harness/http-sink.js';
import { RefusingStore } from '../harness/refusing-store.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../harness/scenario.js';
import { ServiceFleet, chaosKafka, chaosPrefix, chaosTopics, createChaosTopics } from '../harness/service-cluster.js';
import { sleep, waitFor } from '../harness/timing.js';
import { SEQ_FIELDS, VerifiableSource, sourceMessage, sourceRecord } from '../harness/verifiable-source.js';

const PARAMS = {
  // The partition cap is lowered in the short run (two topics of the largest) so its churn reaches it in seconds.
  short: { warmupMs: 3_000, baselineMs: 12_000, hostileMs: 25_000, victimRate: 100, hostileRate: 50, headerNames: 300, maxPartitions: 64, settleMs: 60_000 },
  full: { warmupMs: 5_000, baselineMs: 60_000, hostileMs: 180_000, victimRate: 200, hostileRate: 100, headerNames: 400, maxPartitions: undefined, settleMs: 180_000 },
} as const;

const HTTP = 'http_request_complete.v0';
const TCP = 'tcp_connection_closed.v0';
const VICTIM_DOMAIN = 'shop.victim.test';
const HOSTILE_DOMAIN = 'shop.hostile.test';
const TCP_POOL_HOST = 'tcp.chaos.test';
/** Hostile records' sequence numbers start here (even: http records), far above the victim's. */
const HOSTILE_BASE = 1_000_000_000;
/** The most partitions of one topic the API accepts (ACCOUNT_TOPIC_MAX_PARTITIONS's default). */
const TOPIC_PARTITIONS = 32;
/** The bounds the victim is held to. */
const LATENCY_FACTOR = 2;
const HEALTH_BOUND_MS = 1_000;
/** An http body's limit (docs/subscription-controls.md "Each body within its limit"). */
const HTTP_BODY_LIMIT = 1024 * 1024;
/** A CSV body's columns: the envelope's four, then the fields the subscription selects. */
const CSV_FIELDS = ['http.request.url.path', 'http.request.headers'] as const;
const CSV_COLUMNS = 4 + CSV_FIELDS.length;

/** The costliest filter of the review's shape the API accepts: a long literal joined to the server name and searched. */
function costliestFilter(): { text: (i: number) => string; cost: number } {
  const shape = (n: number, i: number): string => `(ev.conn.server_name + "${'a'.repeat(n)}").contains("${'a'.repeat(40)}b") || ev.conn.server_port == ${60_000 + i}`;
  const cost = (n: number): number | undefined => {
    const r = compileFilter(shape(n, 0), HTTP);
    return r.ok ? r.filter.cost : undefined;
  };
  let lo = 1;
  let hi = 4096;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (cost(mid) !== undefined) lo = mid;
    else hi = mid;
  }
  // Each subscription's filter differs (the port), so the matcher cannot share one evaluation between them.
  return { text: (i) => shape(lo, i), cost: cost(lo) as number };
}

function percentile(sorted: readonly number[], q: number): number {
  return sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number);
}

/** A hostile record's headers: `n` names no other record uses, as internet clients may send. */
function manyHeaders(seq: number, n: number): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i < n; i++) out[`X-Visitor-${seq}-${i}`] = ['v'];
  return out;
}

/**
 * A live tap whose client sends its request, reads the first bytes of the answer (its status line, to know
 * the tap opened) and then never reads again, so the service's socket fills.
 */
function unreadTap(serviceUrl: string, token: string, body: unknown): { socket: Socket; status: Promise<number> } {
  const { hostname, port } = new URL(serviceUrl);
  const json = JSON.stringify(body);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => undefined);
  const status = new Promise<number>((resolve) => {
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 0));
    });
    socket.once('close', () => resolve(0));
  });
  socket.write(
    `POST /tap?seconds=300&limit=10000 HTTP/1.1\r\nhost: ${hostname}:${port}\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
  );
  return { socket, status };
}

export const hostileTenant: Scenario = {
  name: 'hostile-tenant',
  summary: "One account does everything costly the API accepts at once; another account's events must all arrive, at p99 within 2x its baseline, /healthz within 1 s, no rejoin.",
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const p = PARAMS[ctx.scale];
    const started = Date.now();
    const prefix = chaosPrefix('hostile');
    const topics = chaosTopics(prefix);
    const kafka = chaosKafka(ctx.broker.brokers, 'chaos-hostile');
    const victimSink = new HttpSink();
    const csv = new CsvSink(`object.${CSV_FIELDS[0]}`);
    const store = new RefusingStore();
    const dlq = new DeadLetterCounter(kafka, topics.dlq, `${prefix}-dlq-reader`, DLQ_HEADERS.destinationId);
    const token = `eek_chaos${randomBytes(16).toString('hex')}`;
    const fleet = new ServiceFleet(
      ServiceFleet.env(prefix, ctx.broker.brokers, {
        ROLES: 'api,worker',
        API_BOOTSTRAP_TOKEN: token,
        TCP_ADDRESS_HOSTS: TCP_POOL_HOST,
        TCP_ADDRESS_PORTS: '20000-20099',
        ...(p.maxPartitions !== undefined && { ACCOUNT_MAX_PARTITIONS: String(p.maxPartitions) }),
      }),
    );
    const abort = new AbortController();
    const problems: string[] = [];
    let tap: Socket | undefined;
    let hostileProducer: Producer | undefined;
    let probe: HealthProbe | undefined;
    let source: VerifiableSource | undefined;
    try {
      await Promise.all([victimSink.start(), csv.start(), store.start()]);
      await createChaosTopics(kafka, topics);
      await dlq.start();
      const service = await fleet.start();
      const operator = new AdminClient(service.url, token);
      probe = new HealthProbe(service.url, HEALTH_BOUND_MS);
      probe.start();

      const newAccount = async (description: string, domain: string): Promise<{ id: string; api: AdminClient }> => {
        const account = await operator.request<{ id: string }>('POST', '/accounts', { description }, 201);
        const key = await operator.request<{ token: string }>('POST', '/api_keys', { account_id: account.id }, 201);
        const api = new AdminClient(service.url, key.token);
        const reserved = await api.request<{ id: string }>('POST', '/reserved_domains', { domain }, 201);
        await operator.request('POST', `/reserved_domains/${reserved.id}/verify`, { manual: true }, 200);
        return { id: account.id, api };
      };

      // The victim: http records under its verified domain, tcp records to its reserved TCP address, one http destination.
      const victim = await newAccount('victim', VICTIM_DOMAIN);
      const address = await victim.api.request<{ addr: string }>('POST', '/reserved_addrs', { description: 'the victim database' }, 201);
      const [addrHost, addrPort] = [address.addr.slice(0, address.addr.lastIndexOf(':')), Number(address.addr.slice(address.addr.lastIndexOf(':') + 1))];
      await victim.api.request('POST', '/edges/tcp', { hostports: [address.addr] }, 201);
      const victimDest = await victim.api.request<{ id: string }>('POST', '/event_destinations', { target: { http: { url: victimSink.url('victim') } } }, 201);
      await victim.api.request(
        'POST',
        '/event_subscriptions',
        {
          description: 'every record',
          sources: [
            { type: HTTP, fields: [...SEQ_FIELDS[HTTP]] },
            { type: TCP, fields: [...SEQ_FIELDS[TCP]] },
          ],
          destination_ids: [victimDest.id],
        },
        201,
      );
      const victimSource = new VerifiableSource(kafka, topics, {
        serverName: (seq) => (seq % 2 === 0 ? VICTIM_DOMAIN : addrHost),
        serverPort: (seq) => (seq % 2 === 0 ? 443 : addrPort),
      });
      source = victimSource;
      let seq = 0;
      const produceFor = async (ms: number): Promise<void> => {
        const until = Date.now() + ms;
        const chunk = p.victimRate / 10;
        while (Date.now() < until) {
          await victimSource.produce(seq, seq + chunk, { ratePerSec: p.victimRate, chunk });
          seq += chunk;
        }
      };

      // Warm-up: the first events pay for connections and compilation; they are checked but not timed.
      await produceFor(p.warmupMs);
      await waitFor("the victim's first events", () => victimSink.of('victim').seqs.length > 0, 60_000);
      const baselineFrom = seq;
      const baselineCpu = await probe.cpuSeconds();
      const baselineStarted = Date.now();
      await produceFor(p.baselineMs);
      const baselineTo = seq;
      const baselineCpuShare = ((await probe.cpuSeconds()) - baselineCpu) / ((Date.now() - baselineStarted) / 1000);
      ctx.log(`baseline: ${baselineTo - baselineFrom} victim records at ${p.victimRate}/s; the hostile account starts`);

      // The hostile phase: the victim's traffic goes on while the hostile account sets itself up and works.
      const hostileFrom = seq;
      const victimTraffic = (async () => {
        const chunk = p.victimRate / 10;
        while (!abort.signal.aborted) {
          await victimSource.produce(seq, seq + chunk, { ratePerSec: p.victimRate, chunk });
          seq += chunk;
        }
      })();
      const baselineHealth = probe.figures();
      const hostileStarted = Date.now();
      const hostileCpu = await probe.cpuSeconds();
      const harnessCpu = process.cpuUsage();
      const hostile = await newAccount('hostile', HOSTILE_DOMAIN);

      // A csv destination for records with hundreds of distinct header names.
      const csvDest = await hostile.api.request<{ id: string }>('POST', '/event_destinations', { target: { http: { url: csv.url, output_type: 'csv' } } }, 201);
      await hostile.api.request('POST', '/event_subscriptions', { description: 'headers to csv', sources: [{ type: HTTP, fields: [...CSV_FIELDS] }], destination_ids: [csvDest.id] }, 201);
      // A store that refuses every PUT, with the largest upload limits the API accepts.
      const refusedDest = await hostile.api.request<{ id: string }>(
        'POST',
        '/event_destinations',
        {
          description: 'a store that refuses every object',
          target: {
            object_store: {
              auth: { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSHOSTILE', cloud_secret_access_key: 'hostile-secret' } },
              bucket: 'refusing-bucket',
              endpoint: store.endpoint,
              compression: 'none',
              max_upload_bytes: 64 * 1024 * 1024,
              max_upload_records: 50_000,
              max_upload_interval_seconds: 300,
            },
          },
          // Its check object would be refused too: the store is created unchecked, as a customer may.
          verify: false,
        },
        201,
      );
      await hostile.api.request('POST', '/event_subscriptions', { description: 'everything to a refusing store', sources: [{ type: HTTP, fields: [...CSV_FIELDS, 'http.request.user_agent', 'conn.server_name'] }], destination_ids: [refusedDest.id] }, 201);
      // A tap it never reads (no filter: the costly filters take the account's whole filter budget).
      const unread = unreadTap(service.url, hostile.api.token, { type: HTTP, fields: [...CSV_FIELDS] });
      tap = unread.socket;
      const tapStatus = await unread.status;
      if (tapStatus !== 200) problems.push(`the hostile account's tap was answered ${tapStatus}, not 200`);
      // Filters at the per-filter bound on every subscription the account's filter budget lets it hold.
      const costly = costliestFilter();
      let costlyAccepted = 0;
      let costRefusal: { status: number; code: string | undefined } | undefined;
      for (let i = 0; costRefusal === undefined && i < 1_000; i++) {
        const r = await hostile.api.attempt('POST', '/event_subscriptions', { description: `costly ${i}`, sources: [{ type: HTTP, fields: ['conn.server_name'], filter: costly.text(i) }], destination_ids: [csvDest.id] });
        if (r.status === 201) costlyAccepted++;
        else costRefusal = r;
      }
      if (costRefusal?.status !== 409 || costRefusal.code !== 'filter_cost_limit') problems.push(`the subscription past the account's filter budget was answered ${costRefusal?.status} ${costRefusal?.code}, not 409 filter_cost_limit`);
      const setupMs = Date.now() - hostileStarted;
      ctx.log(`hostile set up in ${setupMs} ms: ${costlyAccepted} filters of ${costly.cost} units, csv, refusing store, unread tap`);

      // Its records: http, under its domain, each with header names no other record has.
      hostileProducer = toolProducer(ctx.broker.brokers, 'chaos-hostile-records');
      await hostileProducer.initIdempotentProducer({});
      let hostileRecords = 0;
      const hostileShape = { serverName: () => HOSTILE_DOMAIN, requestHeaders: (s: number) => manyHeaders(s, p.headerNames) };
      const hostileTraffic = (async () => {
        const chunk = p.hostileRate / 10;
        const t0 = Date.now();
        while (!abort.signal.aborted) {
          const messages = Array.from({ length: chunk }, (_, i) => {
            const s = HOSTILE_BASE + 2 * (hostileRecords + i);
            return toolRecord(topics.http, { ...sourceMessage(s, sourceRecord(s, hostileShape).record), timestamp: Date.now() });
          });
          await (hostileProducer as Producer).send({ messages });
          hostileRecords += chunk;
          await sleep(t0 + (hostileRecords / p.hostileRate) * 1000 - Date.now());
        }
      })();

      // Topic churn: kafka destinations on new topics of the largest size, deleted without their topic,
      // until the partition cap refuses; then the leftover topics are taken with delete_topic, and again.
      const churn = { created: 0, deleted: 0, capRefusals: 0, topicsDeleted: 0, other: [] as string[] };
      const churning = (async () => {
        for (let round = 0; !abort.signal.aborted; round++) {
          const left: string[] = [];
          // The first round runs until the cap refuses, however slow the API is meanwhile.
          for (let i = 0; round === 0 || !abort.signal.aborted; i++) {
            const topic = `${hostile.id}.churn-${round}-${i}`;
            const made = await hostile.api.attempt('POST', '/event_destinations', { target: { kafka: { topic, partitions: TOPIC_PARTITIONS } } });
            if (made.status === 409 && made.code === 'account_partition_limit') {
              churn.capRefusals++;
              break;
            }
            if (made.status !== 201) {
              churn.other.push(`create ${made.status} ${made.code}`);
              break;
            }
            churn.created++;
            const gone = await hostile.api.attempt('DELETE', `/event_destinations/${made.id}`, undefined);
            if (gone.status === 204) churn.deleted++;
            else churn.other.push(`delete ${gone.status} ${gone.code}`);
            left.push(topic);
          }
          for (const topic of left) {
            const again = await hostile.api.attempt('POST', '/event_destinations', { target: { kafka: { topic, partitions: TOPIC_PARTITIONS } } });
            const taken = again.status === 201 ? await hostile.api.attempt('DELETE', `/event_destinations/${again.id}?delete_topic=true`, undefined) : again;
            if (taken.status === 204) churn.topicsDeleted++;
            else churn.other.push(`delete_topic ${taken.status} ${taken.code}`);
          }
        }
      })();

      // Claims on the victim's TCP address and names, each of which must be refused 409.
      const claims = { tried: 0, refused409: 0, other: [] as string[] };
      const claiming = (async () => {
        const own = await hostile.api.attempt('POST', '/edges/tcp', {});
        const bodies: Array<[string, string, unknown]> = [
          ['POST', '/edges/tcp', { hostports: [address.addr] }],
          ['POST', '/edges/tcp', { hostports: [`${VICTIM_DOMAIN}:5432`] }],
          ['PATCH', `/edges/tcp/${own.id}`, { hostports: [address.addr.toUpperCase()] }],
          ['POST', '/reserved_domains', { domain: VICTIM_DOMAIN }],
          ['POST', '/reserved_domains', { domain: '*.victim.test' }],
        ];
        for (let i = 0; !abort.signal.aborted; i++) {
          const [method, path, body] = bodies[i % bodies.length] as [string, string, unknown];
          const r = await hostile.api.attempt(method, path, body);
          claims.tried++;
          if (r.status === 409) claims.refused409++;
          else claims.other.push(`${method} ${path} ${JSON.stringify(body)}: ${r.status} ${r.code}`);
          await sleep(250);
        }
      })();

      await sleep(p.hostileMs - (Date.now() - hostileStarted));
      abort.abort();
      await Promise.all([victimTraffic, hostileTraffic, churning, claiming]);
      const hostileTo = seq;
      const hostileEnded = Date.now();
      const hostileCpuShare = ((await probe.cpuSeconds()) - hostileCpu) / ((hostileEnded - hostileStarted) / 1000);
      const harnessUsed = process.cpuUsage(harnessCpu);
      const harnessCpuShare = (harnessUsed.user + harnessUsed.system) / 1e3 / (hostileEnded - hostileStarted);
      ctx.log(`hostile phase over: ${hostileTo - hostileFrom} victim and ${hostileRecords} hostile records; ${churn.created} kafka destinations churned, ${claims.tried} claims`);

      const everything = victimSource.select(() => true);
      const victimArrivals = victimSink.of('victim');
      await waitFor('every victim event', () => checkDestination('victim', everything, victimArrivals.seqs).missing === 0, p.settleMs, 500).catch((err: unknown) =>
        ctx.log(err instanceof Error ? err.message : String(err)),
      );
      const health = await probe.stop();

      const firstArrival = new Map<number, number>();
      victimArrivals.seqs.forEach((s, i) => {
        if (!firstArrival.has(s)) firstArrival.set(s, victimArrivals.at[i] as number);
      });
      const latencies = (from: number, to: number): number[] => {
        const out: number[] = [];
        for (let s = from; s < to; s++) {
          const at = firstArrival.get(s);
          if (at !== undefined) out.push(at - (victimSource.timestamps[s] as number));
        }
        return out.sort((a, b) => a - b);
      };
      const baseline = latencies(baselineFrom, baselineTo);
      const underAttack = latencies(hostileFrom, hostileTo);
      const baselineP99 = percentile(baseline, 0.99);
      const hostileP99 = percentile(underAttack, 0.99);

      const victimCheck = checkDestination("victim's http destination (every record of its domain and TCP address)", everything, victimArrivals.seqs);
      // The hostile account's csv receiver may hold its own records only: a victim's there would be unexpected.
      const csvCheck = checkDestination("hostile's csv destination (its own records, at least once)", [], csv.seqs.filter((s) => s < HOSTILE_BASE));
      const csvDistinct = new Set(csv.seqs.filter((s) => s >= HOSTILE_BASE)).size;
      const letters = dlq.counts.get(refusedDest.id) ?? 0;
      const refusedStatus = await hostile.api.request<{ status: { state: string; last_error: { code: string } | null } }>('GET', `/event_destinations/${refusedDest.id}`, undefined, 200);
      const victimStatus = await victim.api.request<{ status: { state: string } }>('GET', `/event_destinations/${victimDest.id}`, undefined, 200);
      const joins = fleet.logLines(/The worker joined its consumer group\./).length;
      const rebalances = fleet.logLines(/The consumer group is rebalancing/).length;

      if (victimCheck.missing > 0) problems.push(`${victimCheck.missing} of the victim's events are missing`);
      if (!(hostileP99 <= LATENCY_FACTOR * baselineP99)) problems.push(`the victim's p99 delivery latency was ${hostileP99} ms with the hostile account, over ${LATENCY_FACTOR}x its ${baselineP99} ms without`);
      if (health.late > 0) problems.push(`/healthz answered late (over ${HEALTH_BOUND_MS} ms) or not at all ${health.late} time(s); slowest ${health.slowestMs.toFixed(0)} ms`);
      if (joins !== 1 || rebalances > 0) problems.push(`the worker joined its group ${joins} times and logged ${rebalances} rebalance(s); the scenario restarts nothing, so one join is all`);
      if (claims.other.length > 0) problems.push(`claims on the victim's address or names not refused with 409: ${claims.other.slice(0, 3).join('; ')}`);
      if (claims.refused409 === 0) problems.push('no claim on the victim was tried');
      if (churn.capRefusals === 0) problems.push('the topic churn never reached the partition cap');
      if (churn.other.length > 0) problems.push(`topic churn answers other than expected: ${churn.other.slice(0, 3).join('; ')}`);
      if (csv.mostColumns > CSV_COLUMNS) problems.push(`a csv body had ${csv.mostColumns} columns, more than the ${CSV_COLUMNS} of its envelope and selected fields`);
      if (csv.mostBodyBytes > HTTP_BODY_LIMIT) problems.push(`a csv body was ${csv.mostBodyBytes} bytes, over the http body limit of ${HTTP_BODY_LIMIT}`);
      if (csv.malformed > 0) problems.push(`${csv.malformed} csv bodies lacked their url path column or a final CRLF`);
      if (csvDistinct === 0 || store.puts.length === 0) problems.push(`the hostile account's destinations saw no work (csv rows ${csvDistinct}, refused PUTs ${store.puts.length})`);
      if (victimStatus.status.state !== 'ok') problems.push(`the victim's destination shows ${victimStatus.status.state}, not ok`);

      return {
        scenario: this.name,
        scale: ctx.scale,
        durationMs: Date.now() - started,
        injected: [
          `baseline: ${baselineTo - baselineFrom} victim records at ${p.victimRate}/s (http under its verified domain, tcp to its reserved TCP address) before the hostile account existed`,
          `hostile phase, ${((hostileEnded - hostileStarted) / 1000).toFixed(0)} s (setup ${(setupMs / 1000).toFixed(1)} s): the victim's traffic went on while one account set up and ran everything below at once`,
          `${costlyAccepted} subscriptions with filters of ${costly.cost} units each (the per-filter bound is 100,000), until the account's filter budget refused the next`,
          `${hostileRecords} http records at ${p.hostileRate}/s, each with ${p.headerNames} header names no other record has, to a csv http destination, a live tap and an object store`,
          'a live tap whose client never read a byte',
          'an object_store destination at a store answering every PUT 400 InvalidArgument, with max_upload_bytes 64 MiB, max_upload_records 50,000 and max_upload_interval_seconds 300',
          `kafka destinations of ${TOPIC_PARTITIONS} partitions on new topics created and deleted without their topic until the partition cap (ACCOUNT_MAX_PARTITIONS ${p.maxPartitions ?? 256}) refused, then the leftover topics taken with delete_topic, round after round`,
          "claims every 250 ms on the victim's reserved TCP address (as is and upper-cased), a hostport under its domain, its domain and a wildcard over it",
        ],
        records: victimSource.produced + hostileRecords,
        destinations: [victimCheck, csvCheck],
        figures: {
          'victim p50 delivery latency without the hostile account, ms': percentile(baseline, 0.5),
          'victim p99 delivery latency without the hostile account, ms': baselineP99,
          'victim p50 delivery latency with the hostile account, ms': percentile(underAttack, 0.5),
          'victim p99 delivery latency with the hostile account, ms': hostileP99,
          'victim p99 with / without': hostileP99 / baselineP99,
          'victim max delivery latency with the hostile account, ms': underAttack.at(-1) ?? Number.NaN,
          "victim destination's state": victimStatus.status.state,
          'service CPU without the hostile account, cores': baselineCpuShare,
          'service CPU with the hostile account, cores': hostileCpuShare,
          'harness process CPU with the hostile account (producers, receivers, probe), cores': harnessCpuShare,
          'victim records produced with the hostile account, per s': (hostileTo - hostileFrom) / ((hostileEnded - hostileStarted) / 1000),
          'machine load average at the end (1 min)': loadavg()[0] as number,
          '/healthz slowest answer in the baseline, ms': baselineHealth.slowestMs,
          '/healthz answers over 1 s or failed in the baseline': baselineHealth.late,
          '/healthz polls': health.polls,
          '/healthz slowest answer, whole run, ms': health.slowestMs,
          '/healthz p99, whole run, ms': health.p99Ms,
          '/healthz answers over 1 s or failed, whole run': health.late,
          'service heap used, most seen, MB': health.mostHeapMb,
          'group joins (1 is the start)': joins,
          'rebalances logged': rebalances,
          'consumer crashes': fleet.consumerCrashes().length,
          'costly filters accepted': costlyAccepted,
          'cost of each, units': costly.cost,
          'the next subscription answered': `${costRefusal?.status} ${costRefusal?.code}`,
          'hostile records': hostileRecords,
          'csv bodies': csv.bodies,
          'csv rows': csv.rows,
          'csv distinct hostile events': `${csvDistinct} of ${hostileRecords}`,
          'csv most columns in a body': csv.mostColumns,
          'csv largest body, bytes': csv.mostBodyBytes,
          'refused PUTs': store.puts.length,
          'largest refused PUT, bytes': Math.max(0, ...store.puts),
          "dead letters of the refusing store's events": letters,
          "refusing store's state and last error": `${refusedStatus.status.state} ${refusedStatus.status.last_error?.code ?? ''}`.trim(),
          'kafka destinations created and deleted': `${churn.created} and ${churn.deleted}`,
          'partition cap refusals (409 account_partition_limit)': churn.capRefusals,
          'topics taken with delete_topic': churn.topicsDeleted,
          'claims on the victim tried': claims.tried,
          'claims refused 409': claims.refused409,
          'hostile API calls': hostile.api.calls,
          'hostile API calls answered 429 and sent again': hostile.api.rateLimited,
        },
        problems: [
          ...problems,
          ...fleet.diagnose(victimCheck.missing),
          ...fleet.unexpectedExits.map((e) => `the service exited on its own (code ${e.code}, signal ${e.signal}): ${e.lastLogs.slice(-3).join(' | ')}`),
          ...fleet.consumerCrashes().slice(0, 3).map((l) => `consumer crash: ${l.slice(0, 300)}`),
          ...operator.failures.slice(0, 3),
        ],
      };
    } finally {
      abort.abort();
      tap?.destroy();
      await probe?.stop();
      await fleet.stopAll('SIGKILL');
      await Promise.allSettled([victimSink.stop(), csv.stop(), store.stop(), dlq.stop(), hostileProducer?.close(), source?.close()]);
    }
  },
};
