// `npm start` in local mode (no KAFKA_BROKERS: it runs its own broker) with every piece of state in a
// temporary folder and on free ports, for tests and benchmarks of starting, stopping and restarting it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newToken } from '../../src/admin/api-keys/tokens.js';
import { findFreePorts, isPortFree } from '../../src/kafka/free-port.js';
import { GroupProcess } from './process-group.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface LocalSetup {
  /** Environment of `npm start`: its broker's port and data folder, the API port, token, key and files. */
  readonly env: NodeJS.ProcessEnv;
  readonly brokerPort: number;
  readonly apiUrl: string;
  readonly token: string;
  readonly dir: string;
}

/** A broker port whose next port (the controller's) is free too. */
async function brokerPortPair(): Promise<number> {
  for (;;) {
    const [port] = await findFreePorts(1);
    if (port !== undefined && port < 65_535 && (await isPortFree(port + 1))) return port;
  }
}

export async function localSetup(extra: Record<string, string> = {}): Promise<LocalSetup> {
  const dir = mkdtempSync(join(tmpdir(), 'edge-events-local-'));
  const brokerPort = await brokerPortPair();
  const [apiPort] = await findFreePorts(1);
  const token = newToken();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH}`,
    LOCAL_KAFKA_PORT: String(brokerPort),
    LOCAL_KAFKA_DATA_DIR: join(dir, 'kafka'),
    PORT: String(apiPort),
    HOST: '127.0.0.1',
    API_BOOTSTRAP_TOKEN: token,
    API_TOKEN_FILE: join(dir, 'api-token'),
    SECRET_KEY: randomBytes(32).toString('hex'),
    FILE_DESTINATION_ROOT: join(dir, 'destinations'),
    LOG_FORMAT: 'json',
    ...extra,
  };
  for (const name of ['KAFKA_BROKERS', 'CONSUMER_SESSION_TIMEOUT_MS', 'EDGE_KAFKA_JVM_OPTS']) if (!(name in extra)) delete env[name];
  return { env, brokerPort, apiUrl: `http://127.0.0.1:${apiPort}`, token, dir };
}

export interface LocalService {
  readonly npm: GroupProcess;
  /** The pid of the service's node process (npm's child). */
  readonly pid: number;
  /** The broker's pid, from its "ready" or "reused" log line. */
  readonly brokerPid: number;
}

/** Runs `npm start` from the repository with `setup`'s environment and waits until it is ready. */
export async function startLocalService(setup: LocalSetup, timeoutMs = 90_000): Promise<LocalService> {
  const npm = new GroupProcess('npm', ['start'], ROOT, setup.env);
  try {
    await npm.lineMatching((l) => l.includes('"The service is ready."'), timeoutMs);
  } catch (err) {
    await npm.stop();
    throw err;
  }
  const brokerLine = npm.lines.find((l) => l.includes('"component":"local-broker"') && l.includes('"brokerPid"'));
  const brokerPid = (JSON.parse(brokerLine ?? '{}') as { brokerPid?: number }).brokerPid;
  if (brokerPid === undefined) throw new Error(`npm start logged no broker pid:\n${npm.lines.join('\n')}`);
  return { npm, pid: npm.childPid(), brokerPid };
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls until `pid` is gone; false when it is still there after `timeoutMs`. */
export async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (processAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}
