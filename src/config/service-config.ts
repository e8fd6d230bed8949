// The service's configuration from the environment: every problem is collected and reported at once,
// then the result is frozen.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DEFAULT_ACCOUNT_FILTER_COST } from '../cel/limits.js';
import { DEFAULT_TCP_ADDRESS_PORTS, canonicalPoolHost, parsePortRanges, type TcpAddressPool } from '../accounts/tcp-address-pool.js';
import { formatCIDR, hasZeroHostBits, maskCIDR, parseCIDR, parseIP } from '../net/ip.js';
import { DEFAULT_KAFKA_CLIENT, isKafkaClientName } from '../kafka/client.js';
import { KAFKA_CLIENT_NAMES, type KafkaClientName } from '../kafka/seam.js';

export interface ServiceConfig {
  /** Comma-separated broker list; undefined means "start the local broker" (npm start). */
  readonly kafkaBrokers: string | undefined;
  /** The Kafka client library behind src/kafka/seam.ts (ARCHITECTURE.md "Kafka client"). */
  readonly kafkaClient: KafkaClientName;
  /**
   * The local broker of `npm start`: its client port (the controller listens on the next one) and its
   * data folder (undefined: the project's .local/kafka/data).
   */
  readonly localBroker: { readonly port: number; readonly dataDir: string | undefined };
  readonly port: number;
  readonly host: string;
  readonly publicBaseUrl: string;
  readonly topics: {
    readonly httpRequestComplete: string;
    readonly tcpConnectionClosed: string;
    readonly audit: string;
    readonly config: string;
    readonly deadLetter: string;
    readonly retryPrefix: string;
    /** Compacted: each worker's report of each destination's state (ARCHITECTURE.md "Destination status"). */
    readonly status: string;
    /** Compacted: the last health event's state of each destination, and the emitter's election (src/delivery/health/). */
    readonly health: string;
    /** Live taps opened and closed by the API, read by every worker (ARCHITECTURE.md "Live tap"). */
    readonly tapRequests: string;
    /** What the workers' taps caught, read by the API processes that stream it. */
    readonly tapEvents: string;
    /** Compacted: each replay's checkpoint per partition (ARCHITECTURE.md "Replay"). */
    readonly replayProgress: string;
    /** The workers' counts of each closed minute, and of each closed hour (ARCHITECTURE.md "Delivery history"). */
    readonly history: string;
    readonly historyHours: string;
  };
  readonly consumerGroup: string;
  /**
   * This process's identity among the service's processes, stable across its restarts: the config log
   * writer's transactional id is made from it, so a restarted process fences a transaction its
   * predecessor left open (ARCHITECTURE.md "The config log"). Two live processes must not share it.
   */
  readonly instanceId: string;
  /** Root directory of file destinations; a destination path may not escape it. */
  readonly fileDestinationRoot: string;
  /**
   * Partitions and replication factor of a kafka destination's topic that the service creates, when the
   * destination does not say; undefined: the broker's num.partitions and default.replication.factor.
   */
  readonly kafkaDestinationTopics: { readonly partitions: number | undefined; readonly replicationFactor: number | undefined };
  /**
   * How often a worker sends its report of each destination again, changed or not; a change goes out at
   * once. A worker silent for three intervals counts as gone (ARCHITECTURE.md "Destination status").
   */
  readonly statusReportIntervalMs: number;
  /**
   * The delivery history (ARCHITECTURE.md "Delivery history"): the length of a minute point (60 s; tests
   * shorten it, an hour point is 60 of them), and how long minute and hour points are kept.
   */
  readonly history: { readonly minuteMs: number; readonly minuteRetentionMs: number; readonly hourRetentionMs: number };
  /**
   * A destination's health events come at most this often; changes within it are summed up in the next
   * (ARCHITECTURE.md "Health events").
   */
  readonly healthEventIntervalMs: number;
  /** How long a worker drains in-flight deliveries on SIGTERM or revocation before it commits. */
  readonly drainTimeoutMs: number;
  /**
   * A record whose deliveries have not all settled for this long stalls its partition's commits: it is
   * logged once with the destinations it waits for and shown in their status (ARCHITECTURE.md "Delivery
   * and commits"). Longer than the retry budget, after which a failing destination's deliveries park.
   */
  readonly stalledRecordAfterMs: number;
  /**
   * How long the group coordinator waits for a silent worker before it gives the worker's partitions to
   * another member. A worker that died without leaving (kill -9, a lost machine) holds them until then.
   */
  readonly consumerSessionTimeoutMs: number;
  /**
   * A subscription receives the records stamped (Kafka record timestamp) at or after its created_at less
   * this allowance for the difference between the producers' clocks and the API's (ARCHITECTURE.md
   * "Subscription start").
   */
  readonly subscriptionClockSkewMs: number;
  /** Per-account limit of the admin API (all its keys together): requests per second on average, and at once (src/admin/rate-limit.ts). */
  readonly apiRateLimit: { readonly perSecond: number; readonly burst: number };
  /** The most items of each kind an account other than the operator's may hold (src/admin/resource-routes.ts). */
  readonly accountResourceLimit: number;
  /** The most filter work one record may cost across an account's subscriptions and open taps (src/admin/event-subscriptions/filter-cost.ts). */
  readonly accountFilterCostLimit: number;
  /** Replays (ARCHITECTURE.md "Replay"): at once per account (API), per worker, and the read rate a worker gives them. */
  readonly replay: {
    /** ACCOUNT_MAX_REPLAYS: queued or running replays an account may have; more are 409 replay_limit. */
    readonly accountMax: number;
    /** WORKER_MAX_REPLAYS: replays one worker reads at once; the others wait for a worker with room. */
    readonly workerMax: number;
    /** REPLAY_RECORDS_PER_SECOND: the most records a worker reads for its replays a second, all together (src/replay/replay-pace.ts). */
    readonly recordsPerSecond: number;
    /** REPLAY_LIVE_DELAY_MS: while the worker's live records are later than this, its replays' read rate is cut. */
    readonly liveDelayMs: number;
    /** REPLAY_LIVE_LAG_RECORDS: while the worker's live lag is above this, its replays' read rate is cut. */
    readonly liveLagRecords: number;
  };
  /** Token of the first API key when none exists; generated and printed once when unset. */
  readonly bootstrapToken: string | undefined;
  /** Where a generated bootstrap token is also written (mode 0600), so a person or script can read it later. */
  readonly apiTokenFile: string;
  /** Key that encrypts cloud secret keys in the config log (32 bytes, base64 or hex). */
  readonly secretKey: string | undefined;
  /**
   * The retry budget of a destination (ARCHITECTURE.md "Isolation"): a batch has `maxAttempts` attempts, and a
   * destination `maxElapsedMs` from when it started failing; then its deliveries are parked.
   */
  readonly retry: { readonly maxAttempts: number; readonly maxElapsedMs: number };
  /** How long a delivery of a consumed record may wait for a slow destination before it is parked (runner-options.ts). */
  readonly parkAfterMs: number;
  /** Retry topics (`<topics.retryPrefix><destination id>`) holding parked deliveries until they are re-driven. */
  readonly parking: {
    readonly topicPartitions: number;
    /** How long a retry topic keeps parked deliveries; one not re-driven by then is lost. */
    readonly retentionMs: number;
    /** How often a worker looks for retry topics with parked deliveries to re-drive. */
    readonly scanIntervalMs: number;
  };
  /** The cloud destinations: endpoint overrides (emulators, private endpoints) and the AWS call timeout. */
  readonly cloud: {
    readonly endpoint: string | undefined;
    readonly stsEndpoint: string | undefined;
    readonly timeoutMs: number;
    /** Where gcs destinations call Cloud Storage's JSON API and exchange their keys for tokens instead of Google's (GCS_API_URL, GCS_TOKEN_URL: an emulator and a token receiver in tests). */
    readonly gcsApiUrl: string | undefined;
    /** The blob endpoint of every azure_blob destination without its own account_url, the account as its path's first segment (AZURE_BLOB_ENDPOINT_URL: an emulator in tests). */
    readonly azureBlobEndpointUrl: string | undefined;
    readonly gcsTokenUrl: string | undefined;
  };
  /**
   * The datadog kind's intake and API base URL for every datadog destination (DATADOG_BASE_URL: a test
   * intake, a self-hosted Datadog-compatible one); unset: the hosts of each destination's ddsite.
   */
  readonly datadog: { readonly baseUrl: string | undefined };
  /** Microsoft Entra ID's authority for the azure kinds' tokens (AZURE_AUTHORITY_URL); unset: https://login.microsoftonline.com. */
  readonly azure: { readonly authorityUrl: string | undefined };
  /**
   * What destinations may point at (SECURITY.md "Egress"): http destinations need https unless
   * `allowHttp`; their hosts may not resolve to internal addresses except those in `allowCidrs` (CIDR
   * texts); with `onlyCidrs` set, every address outside them is refused too (a closed network, or a test
   * rig whose destinations must reach nothing beyond loopback); a normal account's kafka topics start with `kafkaTopicPrefix` ("{account_id}" stands for its
   * id); `accountFileDestinations` false refuses file destinations to every account but the operator's.
   */
  readonly egress: {
    readonly allowHttp: boolean;
    readonly allowCidrs: readonly string[];
    readonly onlyCidrs: readonly string[];
    readonly kafkaTopicPrefix: string;
    /** The most partitions a normal account's kafka destination may create a topic with on the service's own cluster. */
    readonly accountTopicMaxPartitions: number;
    /**
     * The most partitions of all the topics under a normal account's prefix on the service's own cluster
     * together, whichever destination made them and whether one still writes to them (so at most as many topics).
     */
    readonly accountMaxPartitions: number;
    readonly accountFileDestinations: boolean;
    /**
     * The domains an azure_logs_ingestion target's logs_ingestion_uri may name a host of (the host itself
     * or one under it; AZURE_LOGS_INGESTION_DOMAINS), by default Azure Monitor's ingestion domain; "*" allows any host.
     */
    readonly azureIngestionDomains: readonly string[];
  };
  /**
   * The DNS server that reserved domains' TXT challenges are looked up at (`ip` or `ip:port`, IPv6 in
   * brackets); undefined: the system's resolvers (SECURITY.md "Traffic ownership").
   */
  readonly dnsResolver: string | undefined;
  /** How often an API process looks up the challenges of pending reserved domains again; 0: only on request. */
  readonly domainRecheckIntervalMs: number;
  /**
   * The TCP addresses accounts reserve (POST /reserved_addrs): every host of TCP_ADDRESS_HOSTS (default: the
   * host of PUBLIC_BASE_URL) with every port of TCP_ADDRESS_PORTS (default 20000-29999).
   */
  readonly tcpAddressPool: TcpAddressPool;
  /** The bearer token /metrics asks for; undefined leaves it open. */
  readonly metricsToken: string | undefined;
  /** Which roles this process plays: the ingest worker, the admin API, or both. */
  readonly roles: { readonly worker: boolean; readonly api: boolean };
  /**
   * How far, in per cent, a worker process lets V8's old generation grow past what the last full
   * collection kept before it collects again (V8's --heap-growing-percent); 0 leaves it to V8, which under
   * load lets a worker's heap grow to several times its live data. Undefined (the default): 30%, raised while
   * full collections take much of the worker's time (src/config/heap-growth.ts).
   */
  readonly heapGrowthPercent: number | undefined;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

export function loadServiceConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const problems: string[] = [];
  const str = (name: string, fallback: string): string => {
    const v = env[name];
    if (v === undefined || v === '') return fallback;
    return v;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      return fallback;
    }
    return n;
  };

  const optionalInt = (name: string, min: number, max: number): number | undefined => {
    const raw = env[name];
    return raw === undefined || raw === '' ? undefined : int(name, min, min, max);
  };

  const port = int('PORT', 8080, 0, 65535);
  const host = str('HOST', '127.0.0.1');
  const publicBaseUrl = str('PUBLIC_BASE_URL', `http://${host}:${port}`).replace(/\/+$/, '');
  try {
    const u = new URL(publicBaseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') problems.push('PUBLIC_BASE_URL must be an http or https URL');
  } catch {
    problems.push(`PUBLIC_BASE_URL must be an absolute URL, got "${publicBaseUrl}"`);
  }

  const logFormat = env.LOG_FORMAT;
  if (logFormat !== undefined && logFormat !== '' && logFormat !== 'json' && logFormat !== 'pretty') {
    problems.push(`LOG_FORMAT must be json or pretty, got "${logFormat}"`);
  }

  const rolesRaw = str('ROLES', 'api,worker');
  const roleList = rolesRaw.split(',').map((r) => r.trim());
  for (const r of roleList) if (r !== 'api' && r !== 'worker') problems.push(`ROLES may list only api and worker, got "${r}"`);

  const secretKey = env.SECRET_KEY;
  if (secretKey !== undefined && secretKey !== '' && decodeKey(secretKey) === undefined) {
    problems.push('SECRET_KEY must be 32 bytes, written as 64 hex digits or base64');
  }

  const url = (name: string): string | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    try {
      const u = new URL(v);
      if (u.protocol === 'http:' || u.protocol === 'https:') return v;
    } catch {
      // Reported below.
    }
    problems.push(`${name} must be an absolute http or https URL, got "${v}"`);
    return undefined;
  };

  // INSTANCE_ID, or the host name and the listening port: one process per port on a host, and the same
  // pair again when it restarts. PORT=0 (any free port) has no such pair, so a random suffix is used.
  const instanceId = (): string => {
    const raw = env.INSTANCE_ID;
    if (raw === undefined || raw === '') return `${hostname()}:${port === 0 ? randomUUID() : port}`;
    if (!/^[A-Za-z0-9._:-]{1,200}$/.test(raw)) problems.push(`INSTANCE_ID may hold 1 to 200 letters, digits, '.', '_', ':' and '-', got "${raw}"`);
    return raw;
  };

  // 0 (V8's own heuristics) or 10..300: below 10 a full collection would follow almost every promotion.
  const heapGrowth = (): number | undefined => {
    const raw = env.HEAP_GROWTH_PERCENT;
    if (raw === undefined || raw === '') return undefined;
    const n = Number(raw);
    if (!Number.isInteger(n) || (n !== 0 && (n < 10 || n > 300))) {
      problems.push(`HEAP_GROWTH_PERCENT must be 0 (V8's default) or an integer from 10 to 300, got "${raw}"`);
      return undefined;
    }
    return n;
  };

  const bool = (name: string, fallback: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === 'false') return raw === 'true';
    problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  };

  const cidrs = (name: string): string[] => {
    const list = (env[name] ?? '').split(',').map((c) => c.trim()).filter((c) => c !== '');
    for (const c of list) {
      const parsed = parseCIDR(c);
      if (parsed === undefined) problems.push(`${name} must list IPv4 or IPv6 CIDRs separated by commas (IPv4-mapped IPv6 written as IPv4), got "${c}"`);
      else if (!hasZeroHostBits(parsed)) problems.push(`${name} has "${c}" with host bits set; write ${formatCIDR(maskCIDR(parsed))}`);
    }
    return list;
  };

  const domains = (name: string, fallback: readonly string[]): readonly string[] => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const list = raw.split(',').map((d) => d.trim().toLowerCase()).filter((d) => d !== '');
    for (const d of list) if (d !== '*' && !/^[a-z0-9.-]{1,253}$/.test(d)) problems.push(`${name} must list host names or domains (or "*") separated by commas, got "${d}"`);
    return list;
  };

  const topicPrefix = (): string => {
    const raw = str('KAFKA_ACCOUNT_TOPIC_PREFIX', DEFAULT_ACCOUNT_TOPIC_PREFIX);
    // Without the account's id every account would share one prefix, and could write to the others' topics.
    if (!raw.includes(ACCOUNT_ID_PLACEHOLDER)) problems.push(`KAFKA_ACCOUNT_TOPIC_PREFIX must contain ${ACCOUNT_ID_PLACEHOLDER}, got "${raw}"`);
    else if (!/^[A-Za-z0-9._-]*$/.test(raw.replace(ACCOUNT_ID_PLACEHOLDER, ''))) problems.push(`KAFKA_ACCOUNT_TOPIC_PREFIX may hold only letters, digits, ".", "_", "-" and ${ACCOUNT_ID_PLACEHOLDER}, got "${raw}"`);
    return raw;
  };

  const tcpAddressPool = (): TcpAddressPool => {
    let fallback = '';
    try {
      fallback = new URL(publicBaseUrl).host.replace(/:\d+$/, '');
    } catch {
      // PUBLIC_BASE_URL is reported above.
    }
    const hosts: string[] = [];
    for (const raw of str('TCP_ADDRESS_HOSTS', fallback).split(',').map((h) => h.trim()).filter((h) => h !== '')) {
      const host = canonicalPoolHost(raw);
      if (host === undefined) problems.push(`TCP_ADDRESS_HOSTS must list host names, IPv4 addresses or bracketed IPv6 addresses separated by commas, got "${raw}"`);
      else if (!hosts.includes(host)) hosts.push(host);
    }
    const ports = parsePortRanges(str('TCP_ADDRESS_PORTS', DEFAULT_TCP_ADDRESS_PORTS));
    if ('problem' in ports) problems.push(`TCP_ADDRESS_PORTS must list ports or ranges separated by commas (20000-29999): ${ports.problem}`);
    return { hosts, ports: 'ranges' in ports ? ports.ranges : [] };
  };

  const metricsToken = env.METRICS_TOKEN === '' ? undefined : env.METRICS_TOKEN;
  // RFC 6750's b64token, the characters a bearer token may have, at least 16 of them.
  if (metricsToken !== undefined && !/^[A-Za-z0-9\-._~+/]{16,512}=*$/.test(metricsToken)) {
    problems.push('METRICS_TOKEN must be 16 to 512 letters, digits, "-", ".", "_", "~", "+" or "/" (a bearer token), optionally followed by "="');
  }

  // An address, not a name: the resolver is where names are looked up.
  const dnsResolver = (): string | undefined => {
    const raw = env.DNS_RESOLVER;
    if (raw === undefined || raw === '') return undefined;
    const m = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d{1,5}))?$/.exec(raw);
    const ip = m?.[1] ?? m?.[2];
    const dnsPort = m?.[3] === undefined ? 53 : Number(m[3]);
    if (ip === undefined || parseIP(ip) === undefined || (m?.[1] !== undefined) !== ip.includes(':') || dnsPort < 1 || dnsPort > 65_535) {
      problems.push(`DNS_RESOLVER must be an IP address with an optional port (127.0.0.1:53, [::1]:53), got "${raw}"`);
      return undefined;
    }
    return raw;
  };

  // Retentions of at least one point of their resolution; an hour is 60 minute points.
  const historySettings = (): ServiceConfig['history'] => {
    const minuteMs = int('HISTORY_MINUTE_MS', 60_000, 100, 60_000);
    const minuteRetentionMs = int('HISTORY_MINUTE_RETENTION_MS', 86_400_000, minuteMs, 7 * 86_400_000);
    const hourRetentionMs = int('HISTORY_HOUR_RETENTION_MS', 30 * 86_400_000, 60 * minuteMs, 400 * 86_400_000);
    return { minuteMs, minuteRetentionMs, hourRetentionMs };
  };

  const kafkaClient = (): KafkaClientName => {
    const raw = env.KAFKA_CLIENT;
    if (raw === undefined || raw === '') return DEFAULT_KAFKA_CLIENT;
    if (isKafkaClientName(raw)) return raw;
    problems.push(`KAFKA_CLIENT must be one of ${KAFKA_CLIENT_NAMES.join(', ')}, got "${raw}"`);
    return DEFAULT_KAFKA_CLIENT;
  };

  const config: ServiceConfig = {
    kafkaBrokers: env.KAFKA_BROKERS === '' ? undefined : env.KAFKA_BROKERS,
    kafkaClient: kafkaClient(),
    localBroker: { port: int('LOCAL_KAFKA_PORT', 9092, 1, 65_534), dataDir: env.LOCAL_KAFKA_DATA_DIR || undefined },
    port,
    host,
    publicBaseUrl,
    topics: {
      httpRequestComplete: str('TOPIC_HTTP_REQUEST_COMPLETE', 'edge.traffic.http_request_complete.v0'),
      tcpConnectionClosed: str('TOPIC_TCP_CONNECTION_CLOSED', 'edge.traffic.tcp_connection_closed.v0'),
      audit: str('TOPIC_AUDIT', 'edge.audit'),
      config: str('TOPIC_CONFIG', 'edge.config'),
      deadLetter: str('TOPIC_DLQ', 'edge.dlq'),
      retryPrefix: str('TOPIC_RETRY_PREFIX', 'edge.retry.'),
      status: str('TOPIC_STATUS', 'edge.status'),
      health: str('TOPIC_HEALTH', 'edge.health'),
      tapRequests: str('TOPIC_TAP_REQUESTS', 'edge.tap.requests'),
      tapEvents: str('TOPIC_TAP_EVENTS', 'edge.tap.events'),
      replayProgress: str('TOPIC_REPLAY_PROGRESS', 'edge.replay.progress'),
      history: str('TOPIC_HISTORY', 'edge.history'),
      historyHours: str('TOPIC_HISTORY_HOURS', 'edge.history.hours'),
    },
    consumerGroup: str('CONSUMER_GROUP', 'edge-events-ingest'),
    instanceId: instanceId(),
    fileDestinationRoot: str('FILE_DESTINATION_ROOT', '.local/destinations'),
    kafkaDestinationTopics: {
      partitions: optionalInt('KAFKA_DESTINATION_PARTITIONS', 1, 1_000),
      replicationFactor: optionalInt('KAFKA_DESTINATION_REPLICATION_FACTOR', 1, 16),
    },
    statusReportIntervalMs: int('STATUS_REPORT_INTERVAL_MS', 15_000, 1_000, 600_000),
    history: historySettings(),
    healthEventIntervalMs: int('HEALTH_EVENT_INTERVAL_MS', 60_000, 1_000, 86_400_000),
    drainTimeoutMs: int('DRAIN_TIMEOUT_MS', 10_000, 0, 600_000),
    stalledRecordAfterMs: int('STALLED_RECORD_AFTER_MS', 300_000, 1_000, 86_400_000),
    // The broker refuses sessions outside group.min.session.timeout.ms (6 s) .. group.max.session.timeout.ms (30 min).
    consumerSessionTimeoutMs: int('CONSUMER_SESSION_TIMEOUT_MS', env.KAFKA_BROKERS ? 30_000 : LOCAL_SESSION_TIMEOUT_MS, 6_000, 1_800_000),
    subscriptionClockSkewMs: int('SUBSCRIPTION_CLOCK_SKEW_MS', DEFAULT_SUBSCRIPTION_CLOCK_SKEW_MS, 0, 3_600_000),
    apiRateLimit: { perSecond: int('API_RATE_LIMIT_PER_SECOND', 50, 1, 1_000_000), burst: int('API_RATE_LIMIT_BURST', 200, 1, 1_000_000) },
    accountResourceLimit: int('ACCOUNT_RESOURCE_LIMIT', 1_000, 1, 1_000_000),
    accountFilterCostLimit: int('ACCOUNT_FILTER_COST_LIMIT', DEFAULT_ACCOUNT_FILTER_COST, 1, 1_000_000_000),
    replay: {
      accountMax: int('ACCOUNT_MAX_REPLAYS', 3, 1, 1_000),
      workerMax: int('WORKER_MAX_REPLAYS', 2, 1, 100),
      recordsPerSecond: int('REPLAY_RECORDS_PER_SECOND', 20_000, 100, 10_000_000),
      liveDelayMs: int('REPLAY_LIVE_DELAY_MS', 100, 1, 3_600_000),
      liveLagRecords: int('REPLAY_LIVE_LAG_RECORDS', 10_000, 1, 100_000_000),
    },
    bootstrapToken: env.API_BOOTSTRAP_TOKEN === '' ? undefined : env.API_BOOTSTRAP_TOKEN,
    apiTokenFile: str('API_TOKEN_FILE', '.local/api-token'),
    secretKey: secretKey === '' ? undefined : secretKey,
    roles: { worker: roleList.includes('worker'), api: roleList.includes('api') },
    retry: {
      maxAttempts: int('RETRY_MAX_ATTEMPTS', 10, 1, 1_000),
      maxElapsedMs: int('RETRY_MAX_ELAPSED_MS', 120_000, 0, 86_400_000),
    },
    parkAfterMs: int('PARK_AFTER_MS', 10_000, 100, 86_400_000),
    parking: {
      topicPartitions: int('PARKING_TOPIC_PARTITIONS', 1, 1, 1_000),
      retentionMs: int('PARKING_RETENTION_MS', 30 * 86_400_000, 3_600_000, 365 * 86_400_000),
      scanIntervalMs: int('PARKING_SCAN_INTERVAL_MS', 10_000, 100, 3_600_000),
    },
    heapGrowthPercent: heapGrowth(),
    egress: {
      allowHttp: bool('EGRESS_ALLOW_HTTP', false),
      allowCidrs: cidrs('EGRESS_ALLOW_CIDRS'),
      onlyCidrs: cidrs('EGRESS_ONLY_CIDRS'),
      kafkaTopicPrefix: topicPrefix(),
      accountTopicMaxPartitions: int('ACCOUNT_TOPIC_MAX_PARTITIONS', DEFAULT_ACCOUNT_TOPIC_MAX_PARTITIONS, 1, 1_000),
      accountMaxPartitions: int('ACCOUNT_MAX_PARTITIONS', DEFAULT_ACCOUNT_MAX_PARTITIONS, 1, 100_000),
      accountFileDestinations: bool('FILE_DESTINATIONS_FOR_ACCOUNTS', true),
      azureIngestionDomains: domains('AZURE_LOGS_INGESTION_DOMAINS', DEFAULT_AZURE_INGESTION_DOMAINS),
    },
    dnsResolver: dnsResolver(),
    domainRecheckIntervalMs: int('DOMAIN_RECHECK_INTERVAL_MS', 60_000, 0, 86_400_000),
    tcpAddressPool: tcpAddressPool(),
    metricsToken,
    cloud: {
      endpoint: url('CLOUD_ENDPOINT_URL'),
      stsEndpoint: url('CLOUD_STS_ENDPOINT_URL'),
      timeoutMs: int('CLOUD_TIMEOUT_MS', 10_000, 100, 300_000),
      gcsApiUrl: url('GCS_API_URL'),
      gcsTokenUrl: url('GCS_TOKEN_URL'),
      azureBlobEndpointUrl: url('AZURE_BLOB_ENDPOINT_URL'),
    },
    datadog: { baseUrl: url('DATADOG_BASE_URL') },
    azure: { authorityUrl: url('AZURE_AUTHORITY_URL') },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** What KAFKA_ACCOUNT_TOPIC_PREFIX writes for the account's id. */
export const ACCOUNT_ID_PLACEHOLDER = '{account_id}';

/** KAFKA_ACCOUNT_TOPIC_PREFIX when unset: a normal account's topics are named `<account id>.…`. */
export const DEFAULT_ACCOUNT_TOPIC_PREFIX = `${ACCOUNT_ID_PLACEHOLDER}.`;

/** AZURE_LOGS_INGESTION_DOMAINS when unset: Azure Monitor's ingestion endpoints (data collection endpoints and rules) in the public cloud. */
export const DEFAULT_AZURE_INGESTION_DOMAINS: readonly string[] = ['ingest.monitor.azure.com'];

/** ACCOUNT_TOPIC_MAX_PARTITIONS when unset: the most partitions of a normal account's topic on the service's own cluster. */
export const DEFAULT_ACCOUNT_TOPIC_MAX_PARTITIONS = 32;

/** ACCOUNT_MAX_PARTITIONS when unset: the most partitions of all a normal account's topics on the service's own cluster, eight topics of the largest. */
export const DEFAULT_ACCOUNT_MAX_PARTITIONS = 256;

/** SUBSCRIPTION_CLOCK_SKEW_MS when unset; ARCHITECTURE.md "Subscription start" says why 5 s. */
export const DEFAULT_SUBSCRIPTION_CLOCK_SKEW_MS = 5_000;

/**
 * The session timeout of the local service (KAFKA_BROKERS unset, `npm start`): a worker killed with
 * kill -9 holds its partitions until its session times out, and a person restarting it should not wait
 * 30 s for that (ARCHITECTURE.md, "Restarts"). 6 s is the broker's smallest allowed session.
 */
export const LOCAL_SESSION_TIMEOUT_MS = 6_000;

/** A 32-byte key from 64 hex digits or base64, or undefined. */
export function decodeKey(text: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  const b = Buffer.from(text, 'base64');
  return b.length === 32 ? b : undefined;
}
