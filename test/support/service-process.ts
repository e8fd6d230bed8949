// Runs the real service (src/main.ts) as a child process for integration tests, and stops or kills it.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyToTestLog } from './test-logs.js';
import { TEST_EGRESS_ENV } from './writer-deps.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServiceProcess {
  readonly child: ChildProcess;
  /** "http://127.0.0.1:port" once the service logged that it runs. */
  readonly url: string;
  /** Every log line so far (JSON, one per line). */
  readonly logs: string[];
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * The environment of a service under test: its own topics, group, secret key and token file, on the
 * suite's broker (a token file in the checkout would overwrite the one `npm start` wrote there).
 */
export function serviceEnv(prefix: string, brokers: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    KAFKA_BROKERS: brokers,
    PORT: '0',
    HOST: '127.0.0.1',
    TOPIC_HTTP_REQUEST_COMPLETE: `${prefix}.http`,
    TOPIC_TCP_CONNECTION_CLOSED: `${prefix}.tcp`,
    TOPIC_AUDIT: `${prefix}.audit`,
    TOPIC_CONFIG: `${prefix}.config`,
    TOPIC_DLQ: `${prefix}.dlq`,
    TOPIC_RETRY_PREFIX: `${prefix}.retry.`,
    TOPIC_STATUS: `${prefix}.status`,
    TOPIC_HISTORY: `${prefix}.history`,
    TOPIC_HISTORY_HOURS: `${prefix}.history.hours`,
    TOPIC_TAP_REQUESTS: `${prefix}.tap.requests`,
    TOPIC_TAP_EVENTS: `${prefix}.tap.events`,
    CONSUMER_GROUP: `${prefix}-ingest`,
    SECRET_KEY: randomBytes(32).toString('hex'),
    API_TOKEN_FILE: join(tmpdir(), `${prefix}-api-token`),
    DRAIN_TIMEOUT_MS: '10000',
    LOG_LEVEL: 'info',
    // The suite's receivers listen on loopback over plain http: opened here, as an operator would (SECURITY.md "Egress").
    ...TEST_EGRESS_ENV,
    // No test looks a name up beyond this machine: a reserved domain's TXT challenge is asked of the loopback's
    // discard port, where nothing answers, unless a test starts a DNS server of its own (test/support/dns-server.ts).
    DNS_RESOLVER: '127.0.0.1:9',
    // Nor does an azure_blob or gcs destination reach Azure or Google: their operator endpoints are the discard port
    // too, unless a test starts an emulator (test/support/azurite.ts, fake-gcs.ts).
    AZURE_BLOB_ENDPOINT_URL: 'http://127.0.0.1:9',
    GCS_API_URL: 'http://127.0.0.1:9',
    GCS_TOKEN_URL: 'http://127.0.0.1:9/token',
    // Nor Datadog or Microsoft Entra ID: their endpoints are the discard port too, unless a test names its own
    // (VictoriaLogs, the contract receivers of test/support/).
    DATADOG_BASE_URL: 'http://127.0.0.1:9',
    AZURE_AUTHORITY_URL: 'http://127.0.0.1:9',
    ...extra,
  };
}

export async function startService(env: Record<string, string>, timeoutMs = 90_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  let url: string | undefined;
  const toTestLog = copyToTestLog(`service ${child.pid ?? '?'}`);
  const onLine = (line: string): void => {
    logs.push(line);
    toTestLog(line);
    if (url === undefined && line.includes('The service is running.')) {
      try {
        url = (JSON.parse(line) as { address: string }).address;
      } catch {
        // not a JSON line
      }
    }
  };
  // One reader per stream: a line split across chunks of stdout is never joined to one from stderr.
  createInterface({ input: child.stdout as Readable }).on('line', onLine);
  createInterface({ input: child.stderr as Readable }).on('line', onLine);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const started = Date.now();
  while (url === undefined) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode} before it ran:\n${logs.slice(-20).join('\n')}`);
    if (Date.now() - started > timeoutMs) {
      child.kill('SIGKILL');
      throw new Error(`the service did not start within ${timeoutMs} ms:\n${logs.slice(-20).join('\n')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const address = url;
  return {
    child,
    url: address,
    logs,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}
