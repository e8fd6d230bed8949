// The AWS emulator for the cloud tests: moto's server (PyPI "moto[server]", installed by .ci/run) on a free
// 127.0.0.1 port, plus helpers to build SDK clients against it and to name resources uniquely.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { findFreePorts } from '../../src/kafka/free-port.js';
import { killOnExit, stopProcess } from '../../src/kafka/process-guard.js';

export interface MotoServer {
  readonly endpoint: string;
  stop(): Promise<void>;
}

/** The region and account moto answers for; ARNs in tests use them. */
export const MOTO_REGION = 'us-east-1';
export const MOTO_ACCOUNT = '123456789012';
/** Any key pair works against moto; these are the ones the tests' own clients sign with. */
export const MOTO_CREDENTIALS = { accessKeyId: 'AKIAEDGEEVENTSTEST01', secretAccessKey: 'edge-events-test-secret' };

const PYTHON = process.env.PYTHON ?? 'python3';
const STARTUP_TIMEOUT_MS = 60_000;

async function ready(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`moto exited (${child.exitCode ?? child.signalCode}) before it listened:\n${output()}`);
    }
    try {
      const res = await fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`moto did not answer on ${endpoint} within ${STARTUP_TIMEOUT_MS} ms:\n${output()}`);
}

async function startOnce(): Promise<MotoServer> {
  const [port] = await findFreePorts(1);
  const endpoint = `http://127.0.0.1:${port}`;
  const child = spawn(PYTHON, ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const release = killOnExit(child);
  let log = '';
  // Keep the tail only: moto logs one line per request.
  const keep = (chunk: Buffer): void => {
    log = (log + chunk.toString('utf8')).slice(-8000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const spawnError = new Promise<never>((_, reject) => child.once('error', (err) => reject(err)));
  try {
    await Promise.race([ready(endpoint, child, () => log), spawnError]);
  } catch (err) {
    await stopProcess(child, 2000);
    release();
    throw err;
  }
  return {
    endpoint,
    async stop() {
      await stopProcess(child, 3000);
      release();
    },
  };
}

/**
 * Starts moto, failing loudly with the reason when it cannot: python3 missing, moto not installed
 * (`python3 -m pip install 'moto[server]'`), or a port lost to another process (retried once).
 */
export async function startMoto(): Promise<MotoServer> {
  try {
    return await startOnce();
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    if (!/Address already in use/.test(text)) {
      throw new Error(`The AWS emulator (moto server) could not start: ${text}\nInstall it with: python3 -m pip install 'moto[server]'`, {
        cause: err,
      });
    }
    return startOnce();
  }
}

/** A resource name no other test uses: [a-zA-Z0-9_.-], valid for streams, delivery streams and log groups. */
export function uniqueResource(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

/** Settings of the tests' own SDK clients (setup and read-back) against the emulator. */
export function motoClientConfig(endpoint: string) {
  return { region: MOTO_REGION, endpoint, credentials: MOTO_CREDENTIALS, maxAttempts: 3 };
}

export function arnOf(kind: 'delivery_stream' | 'data_stream' | 'log_service', name: string): string {
  if (kind === 'delivery_stream') return `arn:aws:firehose:${MOTO_REGION}:${MOTO_ACCOUNT}:deliverystream/${name}`;
  if (kind === 'data_stream') return `arn:aws:kinesis:${MOTO_REGION}:${MOTO_ACCOUNT}:stream/${name}`;
  return `arn:aws:logs:${MOTO_REGION}:${MOTO_ACCOUNT}:log-group:${name}`;
}
