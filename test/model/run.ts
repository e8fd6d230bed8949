// Runs one seed of the model: the plan's configuration made through the admin API of the real service
// (API and worker in one process) on a real broker, its phases of traffic, pauses and admin changes,
// then what every destination received compared with what the model expects.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '../../src/kafka/client.js';
import type { KafkaClient } from '../../src/kafka/seam.js';
import { toolProducer, toolRecord, type ToolMessage as Message } from '../support/kafka-tools.js';
import { seededRandom } from '../../src/traffic/random.js';
import { CHECK_NAME_START } from '../../src/delivery/destinations/objects/object-batches.js';
import { serviceEnv, startService, type ServiceProcess } from '../support/service-process.js';
import { HTTP, TCP, type TimestampFormat } from './catalogue.js';
import { Receiver, TopicTail, kafkaArrivals, parseArrival, readFileArrivals, type Arrival, type Seen } from './collectors.js';
import { Streams } from './kinesis.js';
import { AzureContractReceiver } from '../support/azure-contract-receiver.js';
import { AZURITE_KEY, Azurite } from '../support/azurite.js';
import { FakeGcs } from '../support/fake-gcs.js';
import { BearerGate, GoogleTokenReceiver } from '../support/google-token-receiver.js';
import { openSearchCall, searchAll, startOpenSearch, type OpenSearchNode } from '../support/opensearch/opensearch-node.js';
import { VictoriaLogs } from '../support/victoria-logs.js';
import { Model, Owners, acceptedEdges, reservationOutcomes, formatMicros, type AuditRecord, type ConfigView, type Expected, type LiveDestination, type LiveSubscription, type ReservationOutcome } from './model.js';
import { OPERATOR, drawPlan, isTraffic, type DestinationDraw, type DomainDraw, type Phase, type Plan, type Scale, type SourceDraw } from './plan.js';
import { encode } from './records.js';

export interface ModelRunOptions {
  readonly brokers: string;
  readonly seed: number;
  readonly scale: Scale;
  readonly log: (line: string) => void;
  /** How long each partition's committed offset may take to reach its end after a phase. */
  readonly settleMs?: number;
  /** The AWS emulator: data_stream destinations join the draw when it is given. */
  readonly motoEndpoint?: string;
  /**
   * datadog and azure_logs_ingestion destinations join the draw: the run starts VictoriaLogs (the Datadog
   * intake) and the Azure contract receiver of test/support/ for them.
   */
  readonly vendors?: boolean;
  /**
   * elasticsearch, azure_blob and gcs destinations join the draw: the run starts those the plan draws, an
   * OpenSearch node, Azurite, and fake-gcs-server behind the Google token contract receiver's gate.
   */
  readonly stores?: boolean;
}

export interface ModelRunResult {
  readonly seed: number;
  readonly figures: {
    readonly subscriptions: number;
    readonly destinations: number;
    readonly records: number;
    readonly malformed: number;
    readonly adminChanges: number;
    readonly expectedEvents: number;
    readonly optionalEvents: number;
    readonly deliveredEvents: number;
    readonly duplicates: number;
    /** Replays made after the phases, and the (event, destination) pairs of their ranges the model matched. */
    readonly replays: number;
    readonly replayedEvents: number;
  };
  /** Every broken promise, one line each; empty when the service did what the model says. */
  readonly problems: readonly string[];
}

const OPERATOR_TOKEN_PREFIX = 'eek_model';
/** docs/subscription-controls.md "Pause and resume": a change reaches every worker within a second. */
const CONFIG_PROPAGATION_MS = 1_500;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

class Api {
  calls = 0;
  constructor(private readonly url: string) {}

  async call(token: string, method: string, path: string, body: unknown, expect: number): Promise<Json> {
    this.calls++;
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status !== expect) throw new Error(`${method} ${path} answered ${res.status}, the model expected ${expect}: ${text.slice(0, 400)}`);
    return text === '' ? {} : JSON.parse(text);
  }
}

export async function runModel(opts: ModelRunOptions): Promise<ModelRunResult> {
  const plan = drawPlan(opts.seed, opts.scale, { cloud: opts.motoEndpoint !== undefined, vendors: opts.vendors === true, stores: opts.stores === true });
  const streams = opts.motoEndpoint === undefined ? undefined : new Streams(opts.motoEndpoint);
  const settleMs = opts.settleMs ?? 30_000;
  const prefix = `model-${opts.seed}-${Date.now().toString(36)}`;
  const fileRoot = mkdtempSync(join(tmpdir(), 'edge-model-files-'));
  const kafka: KafkaClient = createClient({ clientId: prefix, brokers: opts.brokers });
  const token = `${OPERATOR_TOKEN_PREFIX}${prefix.replace(/[^a-zA-Z0-9]/g, '')}`.padEnd(40, '0');
  const receiver = new Receiver();
  const tail = new TopicTail(kafka, `${prefix}-tail`);
  const producer = toolProducer(opts.brokers, prefix);
  const topics = { [HTTP]: `${prefix}.http`, [TCP]: `${prefix}.tcp`, audit: `${prefix}.audit`, dlq: `${prefix}.dlq` } as const;
  const group = `${prefix}-ingest`;
  let service: ServiceProcess | undefined;
  const problems: string[] = [];
  const azureStreams = plan.destinations.filter((d) => d.kind === 'azure_logs_ingestion').map((d) => azureStreamOf(d.name));
  const azure = new AzureContractReceiver([MODEL_APP], [{ ruleId: MODEL_RULE, streams: azureStreams, publishers: [MODEL_APP.clientId] }]);
  let vl: VictoriaLogs | undefined;
  const stores = new Stores(plan);
  try {
    await receiver.start();
    if (opts.vendors === true) {
      vl = await VictoriaLogs.start();
      await azure.start();
    }
    await stores.start(prefix);
    service = await startService(
      serviceEnv(prefix, opts.brokers, {
        ROLES: 'api,worker',
        FILE_DESTINATION_ROOT: fileRoot,
        API_BOOTSTRAP_TOKEN: token,
        // Records and audit events produced after a subscription was created, and none before (ARCHITECTURE.md "Subscription start").
        SUBSCRIPTION_CLOCK_SKEW_MS: '0',
        // Pending reservations stay pending: the operator verifies by hand, and no TXT lookup is ever answered.
        DOMAIN_RECHECK_INTERVAL_MS: '0',
        DRAIN_TIMEOUT_MS: '2000',
        ...(opts.motoEndpoint !== undefined && { CLOUD_ENDPOINT_URL: opts.motoEndpoint, CLOUD_TIMEOUT_MS: '5000' }),
        ...(vl !== undefined && { DATADOG_BASE_URL: vl.datadogBaseUrl, AZURE_AUTHORITY_URL: azure.authorityUrl }),
        ...stores.env(),
      }),
    );
    const api = new Api(service.url);
    opts.log(`seed ${opts.seed}: service at ${service.url}; ${describePlan(plan)}`);
    const live = await configure(plan, api, token, { receiver, streams, prefix, azure, vl, stores });
    await producer.initIdempotentProducer({});
    await tail.start([topics[HTTP], topics[TCP], topics.audit, topics.dlq, ...live.kafkaTopics.keys()]);
    await sleep(CONFIG_PROPAGATION_MS);

    const edges = new Set(plan.edges.map((_, i) => i).filter((i) => live.edgesAccepted[i]));
    const reserved = new Set(plan.domains.map((_, i) => i).filter((i) => live.reservations[i]?.made));
    // A pending reservation owns no traffic (SECURITY.md "Traffic ownership").
    const ownersNow = (): Owners =>
      new Owners(
        plan.domains.filter((_, i) => reserved.has(i) && live.reservations[i]?.verified),
        plan.edges.filter((_, i) => edges.has(i)),
      );
    const model = new Model(live.destinations, OPERATOR, live.accountIds);
    const enabled = new Map(live.subscriptions.map((s) => [s.id, s.draw.enabled]));
    const sources = new Map(live.subscriptions.map((s) => [s.id, s.draw.sources]));
    const setupView = view(ownersNow(), enabled, sources, new Map(plan.destinations.map((d) => [d.name, d.format])));
    /** Audit events to check for: (event type, object id) of every admin change. */
    const changes: Array<{ type: string; id: string }> = [];
    /** Per phase: when its toggles began and when its traffic began, and the state of the subscriptions then. */
    const stages: Array<{ from: number; trafficFrom: number; view: ConfigView; toggling: ConfigView; racing: Set<string> }> = [];
    const formats = new Map(plan.destinations.map((d) => [d.name, d.format]));
    const produced: Array<{ key: string; phase: number; topic: string }> = [];
    const policyIds = new Map<string, { id: string; token: string; account: string }>();
    const tokens = live.tokens;

    /** The phases that ran: a stalled one ends the run. */
    const ran: Phase[] = [];
    for (const [p, phase] of plan.phases.entries()) {
      ran.push(phase);
      const from = Date.now();
      const racing = new Set<string>();
      for (const account of phase.deleteAccounts) {
        await api.call(token, 'DELETE', `/accounts/${live.accountIds.get(account)}`, undefined, 204);
        // Its keys stop working as the deletion is applied (SECURITY.md "Deleting an account").
        await api.call(tokens.get(account) as string, 'GET', '/reserved_domains', undefined, 401);
        for (const s of live.subscriptions.filter((x) => x.draw.account === account)) {
          enabled.set(s.id, false);
          racing.add(s.id);
        }
        for (const i of [...reserved]) if (plan.domains[i]?.account === account) reserved.delete(i);
        for (const i of [...edges]) if (plan.edges[i]?.account === account) edges.delete(i);
        // Each resource deleted emits its own *_deleted.v0 event (SECURITY.md "Deleting an account").
        for (const [ref, pol] of policyIds) {
          if (pol.account !== account) continue;
          changes.push({ type: 'ip_policy_deleted.v0', id: pol.id });
          policyIds.delete(ref);
        }
      }
      for (const t of phase.toggles) {
        const s = live.byName.get(t.subscription) as LiveSubscription;
        await api.call(tokens.get(s.draw.account) as string, 'PATCH', `/event_subscriptions/${s.id}`, { enabled: t.enabled }, 200);
        enabled.set(s.id, t.enabled);
        racing.add(s.id);
        changes.push({ type: 'event_subscription_updated.v0', id: s.id });
      }
      const formatsBefore = new Map(formats);
      for (const x of phase.resources) {
        const s = live.byName.get(x.subscription) as LiveSubscription;
        await api.call(tokens.get(s.draw.account) as string, 'PATCH', `/event_subscriptions/${s.id}`, { sources: x.sources.map(sourceBody) }, 200);
        sources.set(s.id, x.sources);
        racing.add(s.id);
        changes.push({ type: 'event_subscription_updated.v0', id: s.id });
      }
      // A reservation the API refused has nothing to release.
      for (const i of phase.unreserve.filter((x) => reserved.has(x))) {
        const d = plan.domains[i] as DomainDraw;
        await api.call(tokens.get(d.account) as string, 'DELETE', `/reserved_domains/${live.domainIds.get(i)}`, undefined, 204);
        reserved.delete(i);
      }
      for (const name of phase.retargets) {
        const d = live.destByName.get(name) as LiveDestination;
        const target = d.draw.kind === 'http' ? { http: { url: receiver.url(`${name}-v2`) } } : { file: { path: `${name}/events-v2.ndjson` } };
        const body = await api.call(tokens.get(d.draw.account) as string, 'PATCH', `/event_destinations/${d.id}`, { target }, 200);
        if (d.draw.kind === 'http') live.httpPaths.get(name)?.push(`${name}-v2`);
        else live.filePaths.get(name)?.push(body.target.file.resolved_path);
        changes.push({ type: 'event_destination_updated.v0', id: d.id });
      }
      for (const x of phase.reformats) {
        const d = live.destByName.get(x.destination) as LiveDestination;
        await api.call(tokens.get(d.draw.account) as string, 'PATCH', `/event_destinations/${d.id}`, { timestamp_format: x.format }, 200);
        formats.set(x.destination, x.format);
        changes.push({ type: 'event_destination_updated.v0', id: d.id });
      }
      const changed = phase.deleteAccounts.length + phase.toggles.length + phase.reformats.length + phase.resources.length + phase.unreserve.length + phase.retargets.length;
      if (changed > 0) await sleep(CONFIG_PROPAGATION_MS);
      const trafficFrom = Date.now();
      const stageView = view(ownersNow(), enabled, sources, formats);
      // While the changes travel, a destination's format may be the old one or the new one.
      const toggling: ConfigView = { ...stageView, formats: (name) => [...new Set([formatsBefore.get(name), ...stageView.formats(name)])] as TimestampFormat[] };
      stages.push({ from, trafficFrom, view: stageView, toggling, racing });

      const r = seededRandom(opts.seed * 31 + p);
      const messages: Record<string, Message[]> = { [topics[HTTP]]: [], [topics[TCP]]: [], [topics.audit]: [] };
      for (const t of phase.traffic) {
        const { value, headers } = encode(r, t.record, t.form);
        (messages[topics[t.record.type]] as Message[]).push({ key: t.key, value, headers, timestamp: Date.now() });
        produced.push({ key: t.key, phase: p, topic: topics[t.record.type] });
      }
      for (const m of phase.malformed) {
        const topic = m.topic === 'audit' ? topics.audit : topics[m.topic];
        (messages[topic] as Message[]).push({ key: m.key, ...m.bad.message, timestamp: Date.now() });
      }
      await producer.send({ messages: Object.entries(messages).flatMap(([topic, ms]) => ms.map((m) => toolRecord(topic, m))) });

      for (const a of phase.actions) {
        if (a.kind === 'ip_policy_create') {
          const t = tokens.get(a.account) as string;
          const body = await api.call(t, 'POST', '/ip_policies', { description: `${a.ref} of ${a.account}` }, 201);
          policyIds.set(a.ref, { id: body.id, token: t, account: a.account });
          changes.push({ type: 'ip_policy_created.v0', id: body.id });
        } else if (a.kind === 'ip_policy_update') {
          const pol = policyIds.get(a.ref) as { id: string; token: string };
          await api.call(pol.token, 'PATCH', `/ip_policies/${pol.id}`, { description: `${a.ref} changed` }, 200);
          changes.push({ type: 'ip_policy_updated.v0', id: pol.id });
        } else if (a.kind === 'ip_policy_delete') {
          const pol = policyIds.get(a.ref) as { id: string; token: string };
          await api.call(pol.token, 'DELETE', `/ip_policies/${pol.id}`, undefined, 204);
          policyIds.delete(a.ref);
          changes.push({ type: 'ip_policy_deleted.v0', id: pol.id });
        } else if (a.kind === 'destination_update') {
          const d = live.destByName.get(a.destination) as LiveDestination;
          await api.call(tokens.get(d.draw.account) as string, 'PATCH', `/event_destinations/${d.id}`, { description: `${d.draw.name} changed in phase ${p}` }, 200);
          changes.push({ type: 'event_destination_updated.v0', id: d.id });
        } else {
          const accountId = live.accountIds.get(a.account) as string;
          const body = await api.call(token, 'POST', '/api_keys', { account_id: accountId, description: `key of ${a.account}` }, 201);
          changes.push({ type: 'api_key_created.v0', id: body.id });
        }
      }

      // The phase's barrier: every input partition committed to its end (so a pause next phase drops nothing of this one).
      const keys = [...phase.traffic, ...phase.malformed].map((x) => x.key);
      const caughtUp = (): string | undefined => {
        const seenKeys = new Set([...tail.byTopic.values()].flatMap((list) => list.map((x) => x.key)));
        const missingKeys = keys.filter((k) => !seenKeys.has(k)).length;
        const audit = new Set(tail.of(topics.audit).flatMap((x) => auditKeyOf(x) ?? []));
        const missingChanges = changes.filter((c) => !audit.has(`${c.type} ${c.id}`)).length;
        return missingKeys + missingChanges === 0 ? undefined : `the test's own reader lacks ${missingKeys} records and the audit events of ${missingChanges} changes`;
      };
      const stalled = await settle(kafka, tail, group, [topics[HTTP], topics[TCP], topics.audit], caughtUp, settleMs);
      if (stalled.length > 0) {
        problems.push(`phase ${p}: committed offsets did not reach the partitions' ends within ${settleMs} ms: ${stalled.join('; ')}`);
        break;
      }
      opts.log(`phase ${p}: ${phase.traffic.length} records, ${phase.malformed.length} malformed, ${phase.deleteAccounts.length} accounts deleted, ${phase.toggles.length} pauses or resumes, ${phase.reformats.length} format changes, ${phase.resources.length} source changes, ${phase.unreserve.length} domains released, ${phase.actions.length} admin changes; settled`);
    }
    // Replays (ARCHITECTURE.md "Replay"): a random range of each of up to two subscriptions of accounts
    // still there, overlapping what live delivery sent, each to reach done within the bound.
    const replays: Array<{ sub: LiveSubscription; id: string; fromMs: number; toMs: number; destinations: readonly string[] }> = [];
    if (stages.length > 0 && problems.length === 0) {
      const r = seededRandom(opts.seed * 97 + 5);
      const gone = new Set(ran.flatMap((ph) => ph.deleteAccounts));
      const candidates = live.subscriptions.filter((s) => !gone.has(s.draw.account) && s.draw.destinations.length > 0 && (sources.get(s.id) ?? []).some(isTraffic));
      const first = (stages[0] as (typeof stages)[number]).trafficFrom - 500;
      // The last phase's records were sent within about a second of its traffic's start.
      const last = (stages[stages.length - 1] as (typeof stages)[number]).trafficFrom + 1_000;
      for (let i = 0; i < 2 && candidates.length > 0; i++) {
        const s = candidates.splice(Math.floor(r() * candidates.length), 1)[0] as LiveSubscription;
        const now = Date.now() - 1;
        const fromMs = Math.floor(first + r() * (Math.min(now, last) - first));
        const toMs = Math.min(now, Math.ceil(fromMs + 1 + r() * (now - fromMs)));
        // Sometimes every destination (the default), sometimes the first alone.
        const destinations = r() < 0.5 || s.draw.destinations.length === 1 ? s.draw.destinations : s.draw.destinations.slice(0, 1);
        const body = { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString(), ...(destinations.length < s.draw.destinations.length && { destination_ids: destinations.map((n) => (live.destByName.get(n) as LiveDestination).id) }) };
        const made = await api.call(tokens.get(s.draw.account) as string, 'POST', `/event_subscriptions/${s.id}/replays`, body, 201);
        replays.push({ sub: s, id: made.id, fromMs: Date.parse(body.from), toMs: Date.parse(body.to), destinations });
      }
      for (const rp of replays) {
        const path = `/event_subscriptions/${rp.sub.id}/replays/${rp.id}`;
        const until = Date.now() + settleMs;
        let state = '';
        let got: Json;
        while (Date.now() < until) {
          got = await api.call(tokens.get(rp.sub.draw.account) as string, 'GET', path, undefined, 200);
          state = got.state;
          if (state === 'done' || state === 'failed') break;
          await sleep(250);
        }
        opts.log(`replay ${rp.id} of ${rp.sub.draw.name} to ${rp.destinations.join(', ')}: ${state}, ${JSON.stringify(got?.progress)}`);
        if (state !== 'done') problems.push(`replay ${rp.id} of ${rp.sub.draw.name} ended ${state || 'nowhere'} within ${settleMs} ms, not done`);
      }
    }
    await sleep(1_000);

    // The model, fed with the records as placed on their topics.
    const stageAt = (ms: number): (typeof stages)[number] | undefined => [...stages].reverse().find((s) => ms >= s.from);
    const phaseOfKey = new Map(produced.map((x) => [x.key, x.phase]));
    const records = new Map(plan.phases.flatMap((ph) => ph.traffic.map((t) => [t.key, t.record] as const)));
    for (const topic of [topics[HTTP], topics[TCP]]) {
      for (const s of tail.of(topic)) {
        const key = s.key ?? '';
        const rec = records.get(key);
        const phase = phaseOfKey.get(key);
        if (rec === undefined || phase === undefined) continue;
        const stage = stages[phase] as (typeof stages)[number];
        model.traffic(key, rec, s, live.subscriptions, stage.view);
      }
    }
    const finalView = view(ownersNow(), enabled, sources, formats);
    let replayedEvents = 0;
    for (const rp of replays) {
      for (const topic of [topics[HTTP], topics[TCP]]) {
        for (const s of tail.of(topic)) {
          const rec = records.get(s.key ?? '');
          if (rec === undefined || s.timestampMs < rp.fromMs || s.timestampMs >= rp.toMs) continue;
          replayedEvents += model.replayed(s.key ?? '', rec, s, rp.sub, rp.destinations, finalView);
        }
      }
    }
    for (const s of tail.of(topics.audit)) {
      const audit = auditRecord(s);
      if (audit === undefined) continue;
      const stage = stageAt(s.timestampMs);
      // Before the first phase (the set-up), subscriptions as they were created.
      const inToggles = stage !== undefined && s.timestampMs < stage.trafficFrom;
      model.audit(audit, live.subscriptions, stage === undefined ? setupView : inToggles ? stage.toggling : stage.view, inToggles ? stage.racing : new Set());
    }

    problems.push(...checkAuditTopic(tail.of(topics.audit), changes));
    problems.push(...checkDeadLetters(ran, tail, topics));

    // What each destination received against the model.
    const arrivals = async (d: LiveDestination): Promise<Arrival[]> => {
      // A destination pointed elsewhere: what reached the old target and the new one.
      if (d.draw.kind === 'http') return (live.httpPaths.get(d.draw.name) ?? []).flatMap((path) => receiver.byPath.get(path) ?? []);
      if (d.draw.kind === 'file') return (live.filePaths.get(d.draw.name) ?? []).flatMap(readFileArrivals);
      if (d.draw.kind === 'data_stream') return (await (streams as Streams).read(live.streamOf.get(d.draw.name) as string)).map(parseArrival);
      if (d.draw.kind === 'datadog') return (await (vl as VictoriaLogs).query(`service:"${datadogServiceOf(prefix, d.draw.name)}"`)).map((row) => parseArrival(row._msg ?? ''));
      if (d.draw.kind === 'azure_logs_ingestion') return azure.rowsOf(MODEL_RULE, azureStreamOf(d.draw.name)).map(({ TimeGenerated: _, ...envelope }) => ({ ok: true, envelope }));
      if (d.draw.kind === 'elasticsearch' || d.draw.kind === 'azure_blob' || d.draw.kind === 'gcs') return stores.arrivals(d.draw);
      return kafkaArrivals(tail.of(live.kafkaTopicOf.get(d.draw.name) as string));
    };
    const mandatory = [...model.expected.values()].filter((e) => !e.optional);
    const deadline = Date.now() + settleMs;
    const delivered = async (): Promise<Set<string>> => {
      const ids = new Set<string>();
      for (const d of live.destinations) for (const a of await arrivals(d)) if (a.ok) ids.add(`${d.draw.name}/${String(a.envelope.event_id)}`);
      return ids;
    };
    for (let got = await delivered(); Date.now() < deadline && !mandatory.every((e) => got.has(`${e.destination}/${e.eventId}`)); got = await delivered()) await sleep(250);
    await sleep(500);

    let deliveredEvents = 0;
    let duplicates = 0;
    for (const d of live.destinations) {
      const got = await arrivals(d);
      const seen = new Set<string>();
      for (const a of got) {
        if (!a.ok) {
          problems.push(`${d.draw.name} (${d.draw.kind}): not a JSON envelope: ${a.text.slice(0, 200)}`);
          continue;
        }
        const id = String(a.envelope.event_id);
        if (seen.has(id)) {
          duplicates++;
          continue;
        }
        seen.add(id);
        deliveredEvents++;
        const want = model.expected.get(id);
        if (want === undefined || want.destination !== d.draw.name) {
          problems.push(`${d.draw.name} (${d.draw.kind}): unexpected event ${id} (${String(a.envelope.event_type)}): ${JSON.stringify(a.envelope).slice(0, 300)}`);
          continue;
        }
        const diff = compareEnvelope(want, a.envelope) ?? (d.draw.kind === 'kafka' ? keyProblem(d.draw.key, want, a) : undefined);
        if (diff !== undefined) problems.push(`${d.draw.name} (${d.draw.kind}, ${want.timestamp.formats.join(' or ')}): ${want.what}: ${diff}`);
      }
      for (const e of model.expected.values()) {
        if (e.destination === d.draw.name && !e.optional && !seen.has(e.eventId)) problems.push(`${d.draw.name} (${d.draw.kind}, ${e.timestamp.formats.join(' or ')}): missing ${e.eventId}: ${e.what}`);
      }
      opts.log(`${d.draw.name} (${d.draw.kind}): ${seen.size} events`);
    }
    problems.push(...(await finalOffsets(kafka, tail, group, [topics[HTTP], topics[TCP], topics.audit])));
    const crashes = service.logs.filter((l) => /The consumer crashed|"level":60/.test(l));
    if (crashes.length > 0) problems.push(`the service logged ${crashes.length} crashes, e.g. ${crashes[0]?.slice(0, 300)}`);

    const figures = {
      subscriptions: plan.subscriptions.length,
      destinations: plan.destinations.length,
      records: produced.length,
      malformed: ran.reduce((n, p) => n + p.malformed.length, 0),
      adminChanges: changes.length,
      expectedEvents: mandatory.length,
      optionalEvents: model.expected.size - mandatory.length,
      deliveredEvents,
      duplicates,
      replays: replays.length,
      replayedEvents,
    };
    opts.log(`seed ${opts.seed}: ${JSON.stringify(figures)}; ${problems.length} problems`);
    return { seed: opts.seed, figures, problems };
  } finally {
    await service?.stop('SIGKILL');
    await Promise.allSettled([tail.stop(), producer.close(), receiver.stop(), azure.stop(), vl?.cleanup(), stores.stop()]);
    streams?.close();
    rmSync(fileRoot, { recursive: true, force: true });
  }
}

/** A view of the configuration from copies of its state at one moment. */
function view(owners: Owners, enabled: ReadonlyMap<string, boolean>, sources: ReadonlyMap<string, readonly SourceDraw[]>, formats: ReadonlyMap<string, TimestampFormat>): ConfigView {
  const e = new Map(enabled);
  const s = new Map(sources);
  const f = new Map(formats);
  return { owners, enabled: (x) => e.get(x.id) === true, sources: (x) => s.get(x.id) ?? [], formats: (name) => [f.get(name) as TimestampFormat] };
}

function describePlan(plan: Plan): string {
  const sources = plan.subscriptions.flatMap((s) => s.sources);
  return `${plan.accounts.length} accounts, ${plan.domains.length} reserved domains (${plan.domains.filter((d) => d.verify === 'never').length} left pending), ${plan.edges.length} TCP edges, ${plan.destinations.length} destinations (${plan.destinations.map((d) => `${d.kind}/${d.format}`).join(', ')}), ${plan.subscriptions.length} subscriptions with ${sources.filter(isTraffic).length} traffic and ${sources.filter((s) => !isTraffic(s)).length} audit sources, ${plan.phases.length} phases`;
}

interface Live {
  readonly accountIds: Map<string, string>;
  readonly tokens: Map<string, string>;
  readonly reservations: ReservationOutcome[];
  readonly domainIds: Map<number, string>;
  readonly edgesAccepted: boolean[];
  readonly destinations: LiveDestination[];
  readonly destByName: Map<string, LiveDestination>;
  readonly subscriptions: LiveSubscription[];
  readonly byName: Map<string, LiveSubscription>;
  readonly filePaths: Map<string, string[]>;
  readonly httpPaths: Map<string, string[]>;
  readonly kafkaTopics: Map<string, string>;
  readonly kafkaTopicOf: Map<string, string>;
  readonly streamOf: Map<string, string>;
}

interface Targets {
  readonly receiver: Receiver;
  readonly streams: Streams | undefined;
  readonly prefix: string;
  readonly azure: AzureContractReceiver;
  readonly vl: VictoriaLogs | undefined;
  readonly stores: Stores;
}

/** The app registration and rule of the model's azure_logs_ingestion destinations, one stream each. */
const MODEL_APP = { tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47', clientId: '00000000-1111-2222-3333-444444444444', clientSecret: 'Abc8Q~model-secret' };
const MODEL_RULE = 'dcr-0123456789abcdef0123456789abcdef';
const azureStreamOf = (name: string): string => `Custom-${name}`;
/** A datadog destination's service: what its logs are found by in VictoriaLogs. */
const datadogServiceOf = (prefix: string, name: string): string => `${prefix}-${name}`;

/** The object stores' container and bucket of a run; each destination writes under its own prefix. */
const STORE_CONTAINER = 'model-events';

/**
 * The stores the plan's elasticsearch, azure_blob and gcs destinations write to, started only when drawn.
 * Each destination has an index of its own (behind an index template without dynamic mapping, so the
 * draw's changing timestamp formats and fields are kept in _source as sent, never refused by a mapping)
 * or a prefix of its own; objects are written within a second (max_upload_interval_seconds 1).
 */
class Stores {
  private node: OpenSearchNode | undefined;
  private azurite: Azurite | undefined;
  private gcs: FakeGcs | undefined;
  private readonly tokens = new GoogleTokenReceiver();
  private gate: BearerGate | undefined;
  private keyJson = '';
  private prefix = '';

  constructor(private readonly plan: Plan) {}

  private drawn(kind: DestinationDraw['kind']): boolean {
    return this.plan.destinations.some((d) => d.kind === kind);
  }

  async start(prefix: string): Promise<void> {
    this.prefix = prefix;
    await Promise.all([
      this.drawn('elasticsearch') &&
        (async () => {
          this.node = await startOpenSearch();
          const template = await openSearchCall(this.node.url, 'PUT', '/_index_template/model', { index_patterns: [`${prefix}-*`], template: { mappings: { dynamic: false } } });
          if (template.status !== 200) throw new Error(`the index template answered ${template.status}: ${JSON.stringify(template.json)}`);
        })(),
      this.drawn('azure_blob') &&
        (async () => {
          this.azurite = await Azurite.start();
          await this.azurite.createContainer(STORE_CONTAINER);
        })(),
      this.drawn('gcs') &&
        (async () => {
          this.gcs = await FakeGcs.start();
          await this.gcs.createBucket(STORE_CONTAINER);
          await this.tokens.start();
          this.gate = new BearerGate(this.tokens, this.gcs.url);
          await this.gate.start();
          this.keyJson = this.tokens.addAccount('model@edge-events-test.iam.gserviceaccount.com').keyJson;
        })(),
    ]);
  }

  env(): Record<string, string> {
    return this.gate === undefined ? {} : { GCS_API_URL: this.gate.url, GCS_TOKEN_URL: this.tokens.url };
  }

  private indexOf(d: DestinationDraw): string {
    return `${this.prefix}-${d.name}`;
  }

  targetOf(d: DestinationDraw): unknown {
    const layout = { prefix: `${d.name}/{event_type}/`, max_upload_interval_seconds: 1 };
    if (d.kind === 'elasticsearch') return { elasticsearch: { url: (this.node as OpenSearchNode).url, index: this.indexOf(d) } };
    if (d.kind === 'azure_blob') return { azure_blob: { account_url: (this.azurite as Azurite).accountUrl, container: STORE_CONTAINER, auth: { shared_key: { account_key: AZURITE_KEY } }, ...layout } };
    return { gcs: { bucket: STORE_CONTAINER, service_account_key: this.keyJson, ...layout } };
  }

  /** What reached the destination: its index's documents by search, or its NDJSON objects' lines (not the create-time check's object). */
  async arrivals(d: DestinationDraw): Promise<Arrival[]> {
    if (d.kind === 'elasticsearch') return (await searchAll((this.node as OpenSearchNode).url, this.indexOf(d))).map((doc) => ({ ok: true, envelope: doc._source }));
    const objects = d.kind === 'azure_blob' ? await (this.azurite as Azurite).blobs(STORE_CONTAINER) : await (this.gcs as FakeGcs).objects(STORE_CONTAINER);
    const own = objects.filter((o) => o.name.startsWith(`${d.name}/`) && /\.ndjson(\.gz)?$/.test(o.name) && !o.name.includes(CHECK_NAME_START));
    return own.flatMap((o) => o.text.split('\n').filter((l) => l !== '').map(parseArrival));
  }

  async stop(): Promise<void> {
    await Promise.allSettled([this.node?.stop(), this.azurite?.stop(), this.gate?.stop(), this.tokens.stop(), this.gcs?.stop()]);
  }
}

/** Makes the plan's configuration through the API; the model says which reservations and edges must be refused. */
async function configure(plan: Plan, api: Api, operatorToken: string, targets: Targets): Promise<Live> {
  const accountIds = new Map<string, string>();
  const tokens = new Map<string, string>([[OPERATOR, operatorToken]]);
  accountIds.set(OPERATOR, `acct_${'0'.repeat(26)}`);
  for (const name of plan.accounts.filter((a) => a !== OPERATOR)) {
    const account = await api.call(operatorToken, 'POST', '/accounts', { description: name }, 201);
    accountIds.set(name, account.id);
    tokens.set(name, (await api.call(operatorToken, 'POST', '/api_keys', { account_id: account.id, description: name }, 201)).token);
  }
  const reservations = reservationOutcomes(plan.domains);
  const domainIds = new Map<number, string>();
  // The operator verifies by hand (SECURITY.md "Traffic ownership"); the plan's other reservations stay pending.
  const verify = (i: number): Promise<Json> => api.call(operatorToken, 'POST', `/reserved_domains/${domainIds.get(i)}/verify`, { manual: true }, reservations[i]?.verified ? 200 : 409);
  for (const [i, d] of plan.domains.entries()) {
    const body = await api.call(tokens.get(d.account) as string, 'POST', '/reserved_domains', { domain: d.domain }, reservations[i]?.made ? 201 : 409);
    if (!reservations[i]?.made) continue;
    domainIds.set(i, body.id);
    if (d.verify === 'at once') await verify(i);
  }
  for (const [i, d] of plan.domains.entries()) if (reservations[i]?.made && d.verify === 'later') await verify(i);
  const edgesAccepted = acceptedEdges(plan.edges, plan.domains.filter((_, i) => reservations[i]?.verified));
  for (const [i, e] of plan.edges.entries()) {
    await api.call(tokens.get(e.account) as string, 'POST', '/edges/tcp', { hostports: e.hostports }, edgesAccepted[i] ? 201 : 409);
  }
  const destinations: LiveDestination[] = [];
  const filePaths = new Map<string, string[]>();
  const httpPaths = new Map(plan.destinations.filter((d) => d.kind === 'http').map((d) => [d.name, [d.name]]));
  const kafkaTopics = new Map<string, string>();
  const kafkaTopicOf = new Map<string, string>();
  const streamOf = new Map<string, string>();
  for (const d of plan.destinations) {
    let target: unknown;
    if (d.kind === 'data_stream') {
      const name = `${targets.prefix}-${d.name}`;
      streamOf.set(d.name, name);
      target = await (targets.streams as Streams).create(name);
    } else target = targetOf(d, accountIds, targets);
    const body = await api.call(tokens.get(d.account) as string, 'POST', '/event_destinations', { description: d.name, timestamp_format: d.format, target }, 201);
    destinations.push({ draw: d, id: body.id });
    if (d.kind === 'file') filePaths.set(d.name, [body.target.file.resolved_path]);
    if (d.kind === 'kafka') {
      kafkaTopics.set(body.target.kafka.topic, d.name);
      kafkaTopicOf.set(d.name, body.target.kafka.topic);
    }
  }
  const destByName = new Map(destinations.map((d) => [d.draw.name, d]));
  const subscriptions: LiveSubscription[] = [];
  for (const s of plan.subscriptions) {
    const sources = s.sources.map(sourceBody);
    const body = await api.call(tokens.get(s.account) as string, 'POST', '/event_subscriptions', { description: s.name, sources, destination_ids: s.destinations.map((n) => destByName.get(n)?.id), enabled: s.enabled }, 201);
    subscriptions.push({ draw: s, id: body.id, createdAtMs: Date.parse(body.created_at) });
  }
  return { accountIds, tokens, reservations, domainIds, edgesAccepted, destinations, destByName, subscriptions, byName: new Map(subscriptions.map((s) => [s.draw.name, s])), filePaths, httpPaths, kafkaTopics, kafkaTopicOf, streamOf };
}

/** A source as the API takes it. */
function sourceBody(x: SourceDraw): Record<string, unknown> {
  if (!isTraffic(x)) return { type: x.type };
  return { type: x.type, fields: x.fields, ...(x.filter !== undefined && { filter: x.filter }), ...(x.sampleRate !== undefined && { sample_rate: x.sampleRate }) };
}

function targetOf(d: DestinationDraw, accountIds: Map<string, string>, { receiver, prefix, azure, stores }: Targets): unknown {
  switch (d.kind) {
    case 'kafka':
      // A normal account's topics begin with its id and a dot (src/delivery/destinations/kafka/README.md).
      return { kafka: { topic: `${d.account === OPERATOR ? `${prefix}.` : `${accountIds.get(d.account)}.`}out-${d.name}`, partitions: 2, ...(d.key !== undefined && { key: d.key }) } };
    case 'http':
      return { http: { url: receiver.url(d.name) } };
    case 'file':
      return { file: { path: `${d.name}/events.ndjson` } };
    case 'datadog':
      return { datadog: { api_key: '0123456789abcdef0123456789abcdef', service: datadogServiceOf(prefix, d.name) } };
    case 'azure_logs_ingestion':
      return {
        azure_logs_ingestion: {
          tenant_id: MODEL_APP.tenantId,
          client_id: MODEL_APP.clientId,
          client_secret: MODEL_APP.clientSecret,
          logs_ingestion_uri: azure.ingestionUri,
          data_collection_rule_id: MODEL_RULE,
          data_collection_stream_name: azureStreamOf(d.name),
        },
      };
    case 'elasticsearch':
    case 'azure_blob':
    case 'gcs':
      return stores.targetOf(d);
    default:
      throw new Error(`no target for ${d.kind}`);
  }
}

function auditRecord(s: Seen): AuditRecord | undefined {
  try {
    const envelope = JSON.parse(s.value?.toString('utf8') ?? '') as AuditRecord['envelope'];
    if (typeof envelope?.event_type !== 'string' || envelope.object === null || typeof envelope.object !== 'object') return undefined;
    if (envelope.event_type === 'nothing_created.v0') return undefined;
    return { topic: s.topic, partition: s.partition, offset: s.offset, timestampMs: s.timestampMs, envelope };
  } catch {
    return undefined;
  }
}

function auditKeyOf(s: Seen): string | undefined {
  const a = auditRecord(s);
  return a === undefined ? undefined : `${a.envelope.event_type} ${String(a.envelope.object.id)}`;
}

/** Every admin change wrote its audit event once (docs/events.md "Audit events"). */
function checkAuditTopic(seen: readonly Seen[], changes: ReadonlyArray<{ type: string; id: string }>): string[] {
  const counts = new Map<string, number>();
  for (const s of seen) {
    const key = auditKeyOf(s);
    if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const wanted = new Map<string, number>();
  for (const c of changes) wanted.set(`${c.type} ${c.id}`, (wanted.get(`${c.type} ${c.id}`) ?? 0) + 1);
  return [...wanted].filter(([key, n]) => counts.get(key) !== n).map(([key, n]) => `the audit topic holds ${counts.get(key) ?? 0} events ${key}, not ${n}`);
}

/** Each malformed record dead-lettered once with its source and a code the documents give it; no valid record dead-lettered. */
function checkDeadLetters(phases: readonly Phase[], tail: TopicTail, topics: { readonly dlq: string }): string[] {
  const problems: string[] = [];
  const letters = new Map<string, Seen[]>();
  for (const l of tail.of(topics.dlq)) {
    const at = `${l.headers['x-source-topic']}/${l.headers['x-source-partition']}@${l.headers['x-source-offset']}`;
    letters.set(at, [...(letters.get(at) ?? []), l]);
  }
  const malformed = new Map(phases.flatMap((p) => p.malformed.map((m) => [m.key, m] as const)));
  for (const [topic, list] of tail.byTopic) {
    if (topic === topics.dlq) continue;
    for (const s of list) {
      const got = letters.get(`${s.topic}/${s.partition}@${s.offset}`) ?? [];
      const bad = malformed.get(s.key ?? '');
      if (bad === undefined) {
        if (got.length > 0) problems.push(`valid record ${s.key} at ${s.topic}/${s.partition}@${s.offset} was dead-lettered: ${got[0]?.headers['x-error-code']} ${got[0]?.headers['x-error-message']}`);
        continue;
      }
      if (got.length !== 1) problems.push(`malformed record ${s.key} (${bad.bad.kind}) has ${got.length} dead letters, not 1`);
      const code = got[0]?.headers['x-error-code'] ?? '';
      if (got.length > 0 && !bad.bad.codes.includes(code)) problems.push(`malformed record ${s.key} (${bad.bad.kind}) dead-lettered as ${code} (${got[0]?.headers['x-error-message']}), not ${bad.bad.codes.join(' or ')}`);
    }
  }
  for (const m of malformed.values()) {
    const onTopic = [...tail.byTopic.values()].some((list) => list.some((s) => s.key === m.key));
    if (!onTopic) problems.push(`malformed record ${m.key} never showed on its topic`);
  }
  return problems;
}

/** The partitions whose committed offset is short of the offset after their last record. */
async function lagging(kafka: KafkaClient, tail: TopicTail, group: string, topics: readonly string[]): Promise<string[]> {
  const admin = kafka.admin();
  try {
    const out: string[] = [];
    for (const topic of topics) {
      for (const [partition, offset] of await admin.committedOffsets(group, topic)) {
        const last = tail.of(topic).filter((s) => s.partition === partition).reduce((m, s) => Math.max(m, Number(s.offset)), -1);
        if (last >= 0 && offset < last + 1) out.push(`${topic}/${partition} committed ${offset} of ${last + 1}`);
      }
    }
    return out;
  } finally {
    await admin.close();
  }
}

/** Waits until the test's reader has caught up and every input partition is committed to its end; what is behind otherwise. */
async function settle(kafka: KafkaClient, tail: TopicTail, group: string, topics: readonly string[], caughtUp: () => string | undefined, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reader = caughtUp();
    const behind = reader !== undefined ? [reader] : await lagging(kafka, tail, group, topics);
    if (behind.length === 0 || Date.now() > deadline) return behind;
    await sleep(250);
  }
}

async function finalOffsets(kafka: KafkaClient, tail: TopicTail, group: string, topics: readonly string[]): Promise<string[]> {
  return (await lagging(kafka, tail, group, topics)).map((l) => `at the end: ${l}`);
}

/**
 * A kafka message's key (src/delivery/destinations/kafka/README.md): the value at the key path, a string
 * as it is, another value as its JSON text; the event id when the path is absent or null, or not set.
 */
function keyProblem(path: string | undefined, want: Expected, got: Arrival): string | undefined {
  if (!got.ok) return undefined;
  let value: unknown = path === undefined ? undefined : { event_id: want.eventId, event_type: want.eventType, principal: want.principal, object: got.envelope.object };
  for (const part of path?.split('.') ?? []) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
  const expected = value === undefined || value === null ? want.eventId : typeof value === 'string' ? value : JSON.stringify(value);
  return got.key === expected ? undefined : `message key ${JSON.stringify(got.key)} by ${path ?? 'the default'}, expected ${JSON.stringify(expected)}`;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** What differs between the model's event and the delivered envelope, or undefined. */
function compareEnvelope(want: Expected, got: Record<string, unknown>): string | undefined {
  const keys = Object.keys(got).sort().join(',');
  if (keys !== 'event_id,event_timestamp,event_type,object,principal') return `envelope keys ${keys}`;
  if (got.event_type !== want.eventType) return `event_type ${String(got.event_type)}, expected ${want.eventType}`;
  const ts = got.event_timestamp;
  const tsProblem = timestampProblem(want.timestamp, ts);
  if (tsProblem !== undefined) return tsProblem;
  if (JSON.stringify(got.principal) !== JSON.stringify(want.principal)) return `principal ${JSON.stringify(got.principal)}, expected ${JSON.stringify(want.principal)}`;
  const diff = firstDifference(want.object, got.object, 'object');
  return diff;
}

function timestampProblem(want: Expected['timestamp'], got: unknown): string | undefined {
  const problems = want.formats.map((format) => timestampIn(format, want, got));
  return problems.includes(undefined) ? undefined : problems.join('; or ');
}

function timestampIn(format: TimestampFormat, want: Expected['timestamp'], got: unknown): string | undefined {
  if (format === 'rfc3339') {
    if (typeof got !== 'string' || !RFC3339.test(got)) return `event_timestamp ${JSON.stringify(got)} is not RFC 3339`;
    const instant = want.asWritten !== undefined ? Date.parse(want.asWritten) : want.ms;
    return Date.parse(got) === instant ? undefined : `event_timestamp ${got}, expected the instant ${new Date(instant).toISOString()}`;
  }
  const ms = want.asWritten !== undefined ? Date.parse(want.asWritten) : want.ms;
  const expected = formatMicros(ms * 1000, format);
  return got === expected ? undefined : `event_timestamp ${JSON.stringify(got)} in ${format}, expected ${JSON.stringify(expected)}`;
}

function firstDifference(want: unknown, got: unknown, path: string): string | undefined {
  if (want !== null && typeof want === 'object' && !Array.isArray(want)) {
    if (got === null || typeof got !== 'object' || Array.isArray(got)) return `${path} is ${JSON.stringify(got)}, expected an object`;
    const w = want as Record<string, unknown>;
    const g = got as Record<string, unknown>;
    for (const k of new Set([...Object.keys(w), ...Object.keys(g)])) {
      if (!(k in g)) return `${path}.${k} is missing (expected ${JSON.stringify(w[k])})`;
      if (!(k in w)) return `${path}.${k} is unexpected (${JSON.stringify(g[k])})`;
      const d = firstDifference(w[k], g[k], `${path}.${k}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return JSON.stringify(want) === JSON.stringify(got) ? undefined : `${path} is ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`;
}
