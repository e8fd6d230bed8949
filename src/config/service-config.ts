// The service's configuration from the environment: every problem is collected and reported at once,
// then the result is frozen.

export interface ServiceConfig {
  /** Comma-separated broker list; undefined means "start the local broker" (npm start). */
  readonly kafkaBrokers: string | undefined;
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
  };
  readonly consumerGroup: string;
  /** Root directory of file destinations; a destination path may not escape it. */
  readonly fileDestinationRoot: string;
  /** How long a worker drains in-flight deliveries on SIGTERM or revocation before it commits. */
  readonly drainTimeoutMs: number;
  /**
   * How long the group coordinator waits for a silent worker before it gives the worker's partitions to
   * another member. A worker that died without leaving (kill -9, a lost machine) holds them until then.
   */
  readonly consumerSessionTimeoutMs: number;
  /** Token of the first API key when none exists; generated and printed once when unset. */
  readonly bootstrapToken: string | undefined;
  /** Key that encrypts cloud secret keys in the config log (32 bytes, base64 or hex). */
  readonly secretKey: string | undefined;
  /** Which roles this process plays: the ingest worker, the admin API, or both. */
  readonly roles: { readonly worker: boolean; readonly api: boolean };
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

  const port = int('PORT', 8080, 0, 65535);
  const host = str('HOST', '127.0.0.1');
  const publicBaseUrl = str('PUBLIC_BASE_URL', `http://${host}:${port}`).replace(/\/+$/, '');
  try {
    const u = new URL(publicBaseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') problems.push('PUBLIC_BASE_URL must be an http or https URL');
  } catch {
    problems.push(`PUBLIC_BASE_URL must be an absolute URL, got "${publicBaseUrl}"`);
  }

  const rolesRaw = str('ROLES', 'api,worker');
  const roleList = rolesRaw.split(',').map((r) => r.trim());
  for (const r of roleList) if (r !== 'api' && r !== 'worker') problems.push(`ROLES may list only api and worker, got "${r}"`);

  const secretKey = env.SECRET_KEY;
  if (secretKey !== undefined && secretKey !== '' && decodeKey(secretKey) === undefined) {
    problems.push('SECRET_KEY must be 32 bytes, written as 64 hex digits or base64');
  }

  const config: ServiceConfig = {
    kafkaBrokers: env.KAFKA_BROKERS === '' ? undefined : env.KAFKA_BROKERS,
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
    },
    consumerGroup: str('CONSUMER_GROUP', 'edge-events-ingest'),
    fileDestinationRoot: str('FILE_DESTINATION_ROOT', '.local/destinations'),
    drainTimeoutMs: int('DRAIN_TIMEOUT_MS', 10_000, 0, 600_000),
    // The broker refuses sessions outside group.min.session.timeout.ms (6 s) .. group.max.session.timeout.ms (30 min).
    consumerSessionTimeoutMs: int('CONSUMER_SESSION_TIMEOUT_MS', 30_000, 6_000, 1_800_000),
    bootstrapToken: env.API_BOOTSTRAP_TOKEN === '' ? undefined : env.API_BOOTSTRAP_TOKEN,
    secretKey: secretKey === '' ? undefined : secretKey,
    roles: { worker: roleList.includes('worker'), api: roleList.includes('api') },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze(config);
}

/** A 32-byte key from 64 hex digits or base64, or undefined. */
export function decodeKey(text: string): Buffer | undefined {
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex');
  const b = Buffer.from(text, 'base64');
  return b.length === 32 ? b : undefined;
}
