// The composition root: builds every component from the service config and wires store -> runtime ->
// routes. Nothing else creates its own dependencies.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerHealthRoutes } from './admin/health-routes.js';
import { ADMIN_FASTIFY_OPTIONS, createAdminApi } from './admin/server.js';
import { loadConsole, registerConsoleRoutes } from './console/console-routes.js';
import { decodeKey, type ServiceConfig } from './config/service-config.js';
import { ConfigLog } from './configlog/config-log.js';
import { Signal } from './delivery/clock.js';
import { KafkaDeadLetterSink } from './delivery/dead-letter.js';
import type { WriterDeps } from './delivery/destination-kind.js';
import { DestinationPool } from './delivery/destination-pool.js';
import { egressRules } from './delivery/egress-rules.js';
import { InFlightBudget } from './delivery/in-flight-budget.js';
import { OffsetTracker } from './delivery/offset-tracker.js';
import { DEFAULT_RETIRE_AFTER_MS, Parking } from './delivery/parking/parking.js';
import { KafkaParkingStore } from './delivery/parking/parking-store.js';
import { statusTiming } from './delivery/status/status-aggregate.js';
import { StatusBoard } from './delivery/status/status-board.js';
import { StatusPublisher } from './delivery/status/status-publisher.js';
import { HistoryBoard } from './delivery/history/history-board.js';
import { HistoryRecorder } from './delivery/history/history-recorder.js';
import type { HealthEmitter } from './delivery/health/health-emitter.js';
import { healthEmitterFor } from './delivery/health/health-wiring.js';
import { testEventSender } from './delivery/test-event.js';
import { removableOf } from './delivery/removable-target.js';
import { verifyTarget } from './delivery/verify-target.js';
import type { TrafficEventType } from './events/catalog.js';
import { addressGuard, systemResolver, type HostResolver } from './net/guarded-lookup.js';
import { IngestWorker } from './ingest/ingest-worker.js';
import { RecordRouter } from './ingest/record-router.js';
import { createClient, ensureTopics, parseBrokers } from './kafka/client.js';
import { DestinationClients } from './kafka/destination-clients.js';
import { withAdmin, type KafkaClient } from './kafka/seam.js';
import { createAuditDecoder } from './records/audit-decoder.js';
import { createRecordDecoder } from './records/record-decoder.js';
import { ReplayBoard } from './replay/replay-board.js';
import { ReplayEngine } from './replay/replay-engine.js';
import { replaySupport, trafficTopics as replayTopics } from './replay/replay-support.js';
import { SecretBox } from './secrets/secret-box.js';
import { SubscriptionSet } from './subscriptions/subscription-set.js';
import { TapHub } from './tap/tap-hub.js';
import { TAP_TOPIC_CONFIG } from './tap/tap-protocol.js';
import { TapStreams } from './tap/tap-streams.js';
import { createLogger } from './telemetry/logger.js';

const log = createLogger('app');

/** Retries of the kafka destinations' clients: a few seconds against a cluster that does not answer. */
const DESTINATION_CLIENT_RETRIES = 2;
/** Partitions of the raw traffic topics this service creates when they are missing. */
const TRAFFIC_PARTITIONS = 6;
/**
 * The status topic keeps the latest report per destination and worker (compacted), and drops what has
 * not been reported for a week (a worker gone for good, whose reports nobody tombstoned).
 */
const STATUS_TOPIC_CONFIG = { 'cleanup.policy': 'compact,delete', 'retention.ms': String(7 * 86_400_000), 'segment.ms': String(3_600_000) };
/** A history topic keeps its points' retention and an hour more (ARCHITECTURE.md "Delivery history"). */
const historyTopicConfig = (retentionMs: number): Record<string, string> => ({ 'cleanup.policy': 'delete', 'retention.ms': String(retentionMs + 3_600_000), 'segment.ms': String(3_600_000) });

export interface App {
  readonly http: FastifyInstance;
  readonly configLog: ConfigLog;
  readonly kafka: KafkaClient;
  /** The API role's candidate emitter of destination health events (ARCHITECTURE.md "Health events"). */
  readonly healthEmitter: HealthEmitter | undefined;
  /**
   * Listens on config.port (0 picks a free port); resolves to the bound address, and the bootstrap token
   * when this start generated one (for the ready block a terminal shows, never for a log line).
   */
  start(): Promise<{ readonly address: string; readonly generatedToken?: string }>;
  /** Drains and stops everything; safe to call twice. */
  stop(): Promise<void>;
}

/** What a test may put in place of the machine's own services. */
export interface AppOverrides {
  /** How destinations' host names resolve (default: the system resolver); the egress tests answer names with addresses of their choosing. */
  readonly resolveHost?: HostResolver;
}

export function buildApp(config: ServiceConfig, brokers: string, overrides: AppOverrides = {}): App {
  const brokerList = parseBrokers(brokers);
  const name = config.kafkaClient;
  const kafka = createClient({ name, clientId: 'edge-events', brokers: brokerList });
  // Kafka destinations get clients of their own; their failures are reported by the destination's state.
  // They give up on a cluster within seconds, not the service's minute: the runner owns retry and backoff,
  // and a destination's status (and its create-time check) should tell an unreachable cluster at once.
  // A destination's own broker list is what a customer provides: every connection of its client, to a
  // broker learned from the cluster's metadata too, goes through the egress rules (SECURITY.md "Egress").
  const { topics } = config;
  const egress = egressRules(topics, config.egress);
  const connectGuard = addressGuard(overrides.resolveHost ?? systemResolver, egress.addressRefusal);
  const destinationClients = new DestinationClients({ name, ownBrokers: brokerList, connectGuard, retries: DESTINATION_CLIENT_RETRIES });
  const configLog = new ConfigLog({ kafka, topic: topics.config, writerId: config.instanceId });
  const secrets = new SecretBox(loadSecretKey(config));
  const subscriptions = new SubscriptionSet();
  const tracker = new OffsetTracker();
  const settled = new Signal();
  const budget = new InFlightBudget();
  const deadLetter = new KafkaDeadLetterSink({ kafka, topic: topics.deadLetter });
  // Isolation: a destination past its retry budget is parked in its retry topic and re-driven on recovery.
  const parkingStore = new KafkaParkingStore({
    kafka,
    prefix: topics.retryPrefix,
    partitions: config.parking.topicPartitions,
    retentionMs: config.parking.retentionMs,
  });
  const parking: Parking = new Parking({
    kafka,
    store: parkingStore,
    prefix: topics.retryPrefix,
    groupPrefix: config.consumerGroup,
    runner: (id) => pool.get(id),
    exists: (id) => configLog.get(id) !== undefined,
    deadLetter,
    scanIntervalMs: config.parking.scanIntervalMs,
    sessionTimeoutMs: config.consumerSessionTimeoutMs,
    // A deleted destination's drained retry topic goes once no replaced runner can still be parking for it.
    retireAfterMs: Math.max(DEFAULT_RETIRE_AFTER_MS, 2 * config.drainTimeoutMs),
  });
  const writerDeps: WriterDeps = {
    kafkaClient: (list) => destinationClients.for(list),
    fileRoot: config.fileDestinationRoot,
    cloud: { endpoint: config.cloud.endpoint, stsEndpoint: config.cloud.stsEndpoint, timeoutMs: config.cloud.timeoutMs, gcsApiUrl: config.cloud.gcsApiUrl, gcsTokenUrl: config.cloud.gcsTokenUrl, azureBlobEndpointUrl: config.cloud.azureBlobEndpointUrl },
    datadog: { baseUrl: config.datadog.baseUrl },
    azure: { authorityUrl: config.azure.authorityUrl },
    egress,
    ...(overrides.resolveHost !== undefined && { resolveHost: overrides.resolveHost }),
    kafkaTopicDefaults: config.kafkaDestinationTopics,
  };
  // Delivery history (ARCHITECTURE.md "Delivery history"): runners count, workers publish closed minutes and hours, the API reads them.
  const workerId = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const historyTopics = { minutes: topics.history, hours: topics.historyHours };
  const historyRecorder = config.roles.worker ? new HistoryRecorder({ kafka, topics: historyTopics, workerId, minuteMs: config.history.minuteMs }) : undefined;
  const historyBoard = config.roles.api ? new HistoryBoard({ kafka, topics: historyTopics, timing: config.history, exists: (id) => configLog.get(id) !== undefined }) : undefined;
  const pool: DestinationPool = new DestinationPool({
    deps: writerDeps,
    budget,
    deadLetter,
    secrets,
    drainTimeoutMs: config.drainTimeoutMs,
    retry: config.retry,
    parkAfterMs: config.parkAfterMs,
    onBudgetExhausted: (id) => parking.hookFor(id),
    wrapWriter: (id, writer) => parking.wrapWriter(id, writer),
    ...(historyRecorder !== undefined && { tally: (id: string) => historyRecorder.forDestination(id) }),
    onSettled: (item, settlement, destinationId) => {
      // Re-driven deliveries commit their retry topic; the rest commit the consumed records.
      // A replay's deliveries commit the replay's own group (src/replay/).
      if (!parking.settle(item, settlement, destinationId) && item.source !== undefined && replays?.settle(item) !== true) {
        tracker.settle(item.source);
      }
      settled.notify();
    },
  });
  // Destination status (ARCHITECTURE.md "Destination status"): workers publish their view, the API reads all of them.
  const timing = statusTiming(config.statusReportIntervalMs);
  const statusPublisher = config.roles.worker
    ? new StatusPublisher({
        kafka,
        topic: topics.status,
        workerId,
        health: pool,
        parked: parking,
        intervalMs: config.statusReportIntervalMs,
      })
    : undefined;
  // Replays (ARCHITECTURE.md "Replay"): every process follows their checkpoints; the API answers from them, workers resume by them.
  const replayBoard = new ReplayBoard(kafka, topics.replayProgress);
  const statusBoard = config.roles.api ? new StatusBoard({ kafka, topic: topics.status, timing }) : undefined;
  // Health events (ARCHITECTURE.md "Health events"): every API process is a candidate, one emits.
  const healthEmitter = statusBoard === undefined ? undefined : healthEmitterFor(config, kafka, configLog, statusBoard);
  const trafficTopics = new Map<string, TrafficEventType>([
    [topics.httpRequestComplete, 'http_request_complete.v0'],
    [topics.tcpConnectionClosed, 'tcp_connection_closed.v0'],
  ]);
  // Live taps (ARCHITECTURE.md "Live tap"): workers catch, API processes stream.
  const tapHub: TapHub | undefined = config.roles.worker
    ? new TapHub({ kafka, requestsTopic: topics.tapRequests, eventsTopic: topics.tapEvents, owners: subscriptions.owners, memberId: (): string | undefined => worker?.memberId })
    : undefined;
  const tapStreams = config.roles.api
    ? new TapStreams({ kafka, requestsTopic: topics.tapRequests, eventsTopic: topics.tapEvents, consumerGroup: config.consumerGroup })
    : undefined;
  const router = new RecordRouter({
    subscriptions,
    // Every record is validated whole, so a malformed record reaches the dead-letter topic even when no
    // subscription matches it (bench/results/hotpath.md: about the same rate at 100 subscriptions).
    decoder: createRecordDecoder({ validateAll: true }),
    auditDecoder: createAuditDecoder(),
    trafficTopics,
    auditTopic: topics.audit,
    clockSkewMs: config.subscriptionClockSkewMs,
    ...(tapHub !== undefined && { taps: tapHub }),
  });
  const worker = config.roles.worker
    ? new IngestWorker({
        kafka,
        groupId: config.consumerGroup,
        topics: [...trafficTopics.keys(), topics.audit],
        router,
        pool,
        deadLetter,
        budget,
        tracker,
        settled,
        drainTimeoutMs: config.drainTimeoutMs,
        stalledRecordAfterMs: config.stalledRecordAfterMs,
        sessionTimeoutMs: config.consumerSessionTimeoutMs,
      })
    : undefined;

  const replays = config.roles.worker
    ? new ReplayEngine({
        kafka,
        configLog,
        board: replayBoard,
        progressTopic: topics.replayProgress,
        consumerGroup: config.consumerGroup,
        owners: subscriptions.owners,
        trafficTopics: new Map([...replayTopics(config)].map(([type, topic]) => [topic, type])),
        pool,
        deadLetter,
        budget,
        drainTimeoutMs: config.drainTimeoutMs,
        stalledRecordAfterMs: config.stalledRecordAfterMs,
        sessionTimeoutMs: config.consumerSessionTimeoutMs,
        workerMax: config.replay.workerMax,
        pace: { maxRecordsPerSecond: config.replay.recordsPerSecond, liveDelayMs: config.replay.liveDelayMs, liveLagRecords: config.replay.liveLagRecords },
        live: () => ({ delayMs: worker?.delayMs() ?? 0, lagRecords: worker?.lagRecords() ?? 0 }),
      })
    : undefined;

  let loaded = false;
  const http = Fastify({ logger: false, bodyLimit: 1024 * 1024, ...ADMIN_FASTIFY_OPTIONS });
  registerHealthRoutes(http, () => {
    const problems: string[] = [];
    if (!loaded) problems.push('The config log is not loaded yet.');
    if (worker !== undefined && !worker.isConnected) problems.push('The ingest worker is not connected to the broker.');
    return problems;
  }, { metricsToken: config.metricsToken });
  // The admin API (ROLES includes api): its own Fastify scope with bearer auth; the routes above stay open.
  const adminApi = config.roles.api
    ? createAdminApi({
        configLog,
        config,
        secrets,
        isLoaded: () => loaded,
        testEvent: testEventSender(writerDeps, secrets),
        ...(tapStreams !== undefined && { taps: tapStreams }),
        replays: replaySupport(kafka, replayBoard, config),
        ...(historyBoard !== undefined && { history: historyBoard }),
        destinations: {
          egress: writerDeps.egress,
          verify: (target, account, check) => verifyTarget(target, secrets, writerDeps, account, { check }),
          status: (id) => (statusBoard as StatusBoard).status(id),
          removable: (target, account) => removableOf(target, secrets, writerDeps, account),
        },
      })
    : undefined;
  // The web console (web/README.md) beside the API it uses, before it so a browser's `/` leads there.
  if (adminApi !== undefined) registerConsoleRoutes(http, loadConsole());
  adminApi?.register(http);

  let stopped: Promise<void> | undefined;
  return {
    http,
    configLog,
    kafka,
    healthEmitter,
    async start() {
      // A file destination resolves its path inside the root; a missing root would fail every write.
      await mkdir(config.fileDestinationRoot, { recursive: true });
      const address = await http.listen({ port: config.port, host: config.host });
      await withAdmin(kafka, (admin) =>
        ensureTopics(admin, [
          { topic: topics.config, partitions: 1, compacted: true },
          { topic: topics.audit, partitions: 3 },
          // A dead letter carries the whole refused record: the topic takes larger records than the traffic
          // topics may (16 MiB), so a big poison record cannot stall its partition's commits.
          { topic: topics.deadLetter, partitions: 3, config: { 'max.message.bytes': String(16 * 1024 * 1024) } },
          { topic: topics.status, partitions: 1, config: STATUS_TOPIC_CONFIG },
          { topic: topics.history, partitions: 1, config: historyTopicConfig(config.history.minuteRetentionMs) },
          { topic: topics.historyHours, partitions: 1, config: historyTopicConfig(config.history.hourRetentionMs) },
          { topic: topics.health, partitions: 1, compacted: true },
          { topic: topics.tapRequests, partitions: 1, config: TAP_TOPIC_CONFIG },
          { topic: topics.tapEvents, partitions: 1, config: TAP_TOPIC_CONFIG },
          // Compacted without a time limit: a replay's last checkpoint is what says it is done.
          { topic: topics.replayProgress, partitions: 1, compacted: true },
          ...[...trafficTopics.keys()].map((topic) => ({ topic, partitions: TRAFFIC_PARTITIONS })),
        ]),
      );
      await configLog.start();
      await statusBoard?.start();
      await replayBoard.start();
      await historyBoard?.start();
      healthEmitter?.start();
      await tapStreams?.start();
      const generatedToken = await adminApi?.bootstrap();
      loaded = true;
      if (worker !== undefined) {
        subscriptions.follow(configLog);
        pool.follow(configLog);
        await tapHub?.start();
        await worker.start();
        await parking.start();
        replays?.start();
        statusPublisher?.start();
        historyRecorder?.start();
      }
      log.info({ address, brokers: brokerList }, 'The service is running.');
      return { address, ...(generatedToken !== undefined && { generatedToken }) };
    },
    stop() {
      stopped ??= (async () => {
        log.info('The service is stopping: draining in-flight deliveries.');
        await adminApi?.stop();
        await worker?.stop();
        await replays?.stop();
        await tapHub?.stop();
        await tapStreams?.stop();
        await parking.stop();
        await pool.close(config.drainTimeoutMs);
        // After the drain, so the last reports say how it ended; marked stopped, so they stop counting at once.
        await statusPublisher?.stop();
        // The open minute and hour go out too, so a clean stop loses no counts.
        await historyRecorder?.stop();
        await parkingStore.close();
        subscriptions.stop();
        await deadLetter.close();
        await configLog.stop();
        await healthEmitter?.stop();
        await statusBoard?.stop();
        await replayBoard.stop();
        await historyBoard?.stop();
        await http.close();
        log.info('The service stopped.');
      })();
      return stopped;
    },
  };
}

/**
 * SECRET_KEY seals secret fields in the config log. Without it (local runs), a key is generated once and
 * kept beside the local broker's data, so every process of this checkout shares it.
 */
function loadSecretKey(config: ServiceConfig): Buffer {
  if (config.secretKey !== undefined) return decodeKey(config.secretKey) as Buffer;
  const file = '.local/secret.key';
  if (existsSync(file)) {
    const key = decodeKey(readFileSync(file, 'utf8').trim());
    if (key !== undefined) return key;
  }
  const key = randomBytes(32);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, key.toString('hex'), { mode: 0o600 });
  log.warn('SECRET_KEY is unset: a key was generated for this checkout. Set SECRET_KEY in production.');
  return key;
}
