// Starts and stops the project's own single-node KRaft Kafka broker (a child JVM) for `npm start` and `npm test`.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createLogger, type Logger } from '../telemetry/logger.js';
import { renderServerProperties } from './broker-config.js';
import { LOCAL_KAFKA_DIR, PROJECT_ROOT, ensureBrokerJars, pinnedKafkaVersion } from './broker-jars.js';
import { brokerError, waitUntilReady } from './broker-readiness.js';
import { KafkaSetupError } from './errors.js';
import { findFreePorts, isPortFree } from './free-port.js';
import { answersAsCluster, formattedClusterId, leftoverBroker, ownerAlive, removeBrokerRecord, settingsDigest, writeBrokerRecord, type BrokerRecord } from './leftover-broker.js';
import { killOnExit, processAlive, stopProcess, type GuardedProcess } from './process-guard.js';

const serviceLog = createLogger('local-broker');

/** Where `npm start` keeps its broker's data between runs. */
export const DEFAULT_DATA_DIR = join(PROJECT_ROOT, '.local', 'kafka', 'data');
/** Kafka's customary ports, used by `npm start` and the CLI; tests use free ports instead. */
export const DEFAULT_PORT = 9092;
export const DEFAULT_CONTROLLER_PORT = 9093;

export interface LocalBrokerOptions {
  /** Client port on 127.0.0.1; a free one when omitted. */
  port?: number;
  /** KRaft controller port on 127.0.0.1; a free one when omitted. */
  controllerPort?: number;
  /**
   * Given: persistent mode; the folder is formatted once and reused by later starts.
   * Omitted: a fresh temporary folder, deleted by stop().
   */
  dataDir?: string;
  /** The broker's own log (stdout and stderr of the JVM); default `<dataDir>/broker.log`. */
  logFile?: string;
  /** How long to wait for describeCluster to succeed; default 90 s (a cold JVM on a busy 2-core box). */
  readyTimeoutMs?: number;
  /** The two sentences of a first run's jar fetch (broker-jars.ts); default standard error. */
  onProgress?: (line: string) => void;
  /** Where its "ready" and "stopped" lines go; default the service's log (the test suite keeps its own). */
  log?: Logger;
}

export interface LocalBroker {
  /** "127.0.0.1:port", ready for KAFKA_BROKERS or createKafkaClient. */
  brokers: string;
  pid: number;
  port: number;
  controllerPort: number;
  dataDir: string;
  logFile: string;
  version: string;
  /** Milliseconds from spawning the JVM (or finding a running one) to the first successful describeCluster. */
  startupMs: number;
  /** True when a broker an earlier start left running (its service was killed) was reused. */
  reused: boolean;
  /** Calls `listener` once if the broker exits without stop() having been called. */
  onUnexpectedExit(listener: (how: string) => void): void;
  /** SIGTERM, then SIGKILL if the broker has not exited after 20 s. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * A small heap and the serial collector suit a test broker on two shared cores: G1's parallel threads
 * would compete with the service under test. C1-only compilation starts faster and spends less CPU
 * compiling; a test broker never runs long enough to pay back C2. EDGE_KAFKA_JVM_OPTS adds or overrides.
 */
const JVM_OPTS = ['-Xms128m', '-Xmx512m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:+ExitOnOutOfMemoryError', '-XX:-UsePerfData', '-Djava.awt.headless=true'];

function javaCommand(): string {
  return process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
}

function jvmArgs(libs: string, mainClass: string, args: string[]): string[] {
  const extra = (process.env.EDGE_KAFKA_JVM_OPTS ?? '').split(/\s+/).filter((s) => s !== '');
  // The JVM expands a classpath entry ending in "/*" to every jar of that folder.
  const log4j = `-Dlog4j2.configurationFile=${join(LOCAL_KAFKA_DIR, 'log4j2.properties')}`;
  return [...JVM_OPTS, ...extra, log4j, '-cp', join(libs, '*'), mainClass, ...args];
}

export async function startLocalBroker(options: LocalBrokerOptions = {}): Promise<LocalBroker> {
  const log = options.log ?? serviceLog;
  const version = pinnedKafkaVersion();
  const libs = await ensureBrokerJars(options.onProgress ? { onProgress: options.onProgress } : {});

  const persistent = options.dataDir !== undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'edge-kafka-')));
  const logDir = join(dataDir, 'kraft');
  const logFile = options.logFile ?? join(dataDir, 'broker.log');
  const propsFile = join(dataDir, 'server.properties');
  if (persistent) {
    const reused = await reuseLeftover({ ...options, dataDir, logDir, logFile, version });
    if (reused !== undefined) return reused;
  }
  const { port, controllerPort } = await choosePorts(options);
  await mkdir(dataDir, { recursive: true });
  await mkdir(dirname(logFile), { recursive: true });
  const properties = renderServerProperties({ port, controllerPort, logDir });
  await writeFile(propsFile, properties);

  const removeTemp = async (): Promise<void> => {
    if (!persistent) await rm(dataDir, { recursive: true, force: true });
  };
  try {
    // meta.properties is what `format` writes; an existing one means the storage holds a cluster already.
    if (!existsSync(join(logDir, 'meta.properties'))) await formatStorage(libs, propsFile, logFile);
  } catch (err) {
    await removeTemp();
    throw err;
  }

  const started = Date.now();
  const child = spawnBroker(libs, propsFile, logFile);
  const pid = child.pid;
  if (pid === undefined) {
    const error = await brokerError('JAVA_NOT_FOUND', `Could not start ${javaCommand()}; Kafka ${version} needs Java 17 or newer.`, logFile);
    await removeTemp();
    throw error;
  }
  if (persistent) await writeBrokerRecord(dataDir, { pid, ownerPid: process.pid, port, controllerPort, version, settings: settingsDigest(properties) });
  const broker = controlled(child, { brokers: `127.0.0.1:${port}`, port, controllerPort, dataDir, logFile, version, persistent }, log);
  try {
    await waitUntilReady(child, broker.brokers, logFile, options.readyTimeoutMs ?? 90_000);
  } catch (err) {
    await broker.stop();
    throw err;
  }
  broker.startupMs = Date.now() - started;
  log.info({ brokerPid: pid, brokers: broker.brokers, version, startupMs: broker.startupMs, dataDir, persistent }, 'The local Kafka broker is ready.');
  return broker;
}

type BrokerPlace = Pick<LocalBroker, 'brokers' | 'port' | 'controllerPort' | 'dataDir' | 'logFile' | 'version'> & { persistent: boolean };

/** The LocalBroker handle of a spawned child or an adopted pid: stop(), the exit guard and the exit watch. */
function controlled(target: GuardedProcess, place: BrokerPlace, log: Logger, reused = false): LocalBroker {
  const pid = typeof target === 'number' ? target : (target.pid as number);
  const release = killOnExit(target);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await stopProcess(target, 20_000);
      release();
      if (place.persistent) await removeBrokerRecord(place.dataDir);
      else await rm(place.dataDir, { recursive: true, force: true });
      log.info({ brokerPid: pid, brokers: place.brokers }, 'The local Kafka broker stopped.');
    })();
    return stopping;
  };
  const onUnexpectedExit = (listener: (how: string) => void): void => {
    if (typeof target !== 'number') {
      target.once('exit', (code, signal) => {
        if (stopping === undefined) listener(code !== null ? `exit code ${code}` : `signal ${signal}`);
      });
      return;
    }
    // Not this process's child: no exit event, so look once a second.
    const timer = setInterval(() => {
      if (stopping !== undefined) clearInterval(timer);
      else if (!processAlive(pid)) {
        clearInterval(timer);
        listener('it is gone');
      }
    }, 1_000).unref();
  };
  const { persistent: _persistent, ...where } = place;
  return { ...where, pid, startupMs: 0, reused, onUnexpectedExit, stop };
}

/**
 * A broker left running in this data folder by a service that was killed: reused when it runs the
 * settings this start would write and serves this folder's cluster, so a restart skips the broker's own
 * start; stopped otherwise, so the new one can bind its ports.
 */
async function reuseLeftover(o: LocalBrokerOptions & { dataDir: string; logDir: string; logFile: string; version: string }): Promise<LocalBroker | undefined> {
  const leftover = await leftoverBroker(o.dataDir);
  if (leftover === undefined) return undefined;
  if (ownerAlive(leftover)) {
    throw new KafkaSetupError(
      'BROKER_PORT_IN_USE',
      `The local broker in ${o.dataDir} belongs to a service that is running (pid ${leftover.ownerPid}); stop that one first, or give this one a LOCAL_KAFKA_PORT and LOCAL_KAFKA_DATA_DIR of its own.`,
    );
  }
  const log = o.log ?? serviceLog;
  const started = Date.now();
  const clusterId = formattedClusterId(o.logDir);
  if (matches(leftover, o) && clusterId !== undefined && (await answersAsCluster(leftover.port, clusterId))) {
    const broker = controlled(leftover.pid, { brokers: `127.0.0.1:${leftover.port}`, port: leftover.port, controllerPort: leftover.controllerPort, dataDir: o.dataDir, logFile: o.logFile, version: o.version, persistent: true }, log, true);
    broker.startupMs = Date.now() - started;
    await writeBrokerRecord(o.dataDir, { ...leftover, ownerPid: process.pid });
    log.info({ brokerPid: leftover.pid, brokers: broker.brokers }, 'The local Kafka broker an earlier start left running is reused.');
    return broker;
  }
  log.info({ brokerPid: leftover.pid }, 'A local Kafka broker an earlier start left running has other settings: it is stopped first.');
  await stopProcess(leftover.pid, 20_000);
  await removeBrokerRecord(o.dataDir);
  return undefined;
}

function matches(leftover: BrokerRecord, o: LocalBrokerOptions & { logDir: string; version: string }): boolean {
  if (leftover.version !== o.version) return false;
  if ((o.port !== undefined && o.port !== leftover.port) || (o.controllerPort !== undefined && o.controllerPort !== leftover.controllerPort)) return false;
  return leftover.settings === settingsDigest(renderServerProperties({ port: leftover.port, controllerPort: leftover.controllerPort, logDir: o.logDir }));
}

async function choosePorts(options: LocalBrokerOptions): Promise<{ port: number; controllerPort: number }> {
  // Three candidates: at most one can clash with a port the caller fixed, leaving two distinct ones.
  const free = (await findFreePorts(3)).filter((p) => p !== options.port && p !== options.controllerPort);
  const port = options.port ?? free.shift();
  const controllerPort = options.controllerPort ?? free.shift();
  if (port === undefined || controllerPort === undefined || port === controllerPort) {
    throw new KafkaSetupError('BROKER_PORT_IN_USE', `The client and controller ports must differ (got ${port} and ${controllerPort}).`);
  }
  for (const [name, wanted] of [['port', options.port], ['controller port', options.controllerPort]] as const) {
    if (wanted !== undefined && !(await isPortFree(wanted))) {
      throw new KafkaSetupError('BROKER_PORT_IN_USE', `The Kafka ${name} 127.0.0.1:${wanted} is already in use (another broker?).`, {
        retryable: true,
      });
    }
  }
  return { port, controllerPort };
}

/**
 * A KRaft cluster id: a UUID in URL-safe base64 without padding (what `kafka-storage random-uuid`
 * prints). One in 64 such strings starts with "-", which the storage tool's argument parser reads as
 * an option ("--cluster-id expected one argument"); Kafka's own Uuid.randomUuid() draws again then,
 * and so does this.
 */
export function newClusterId(random: (n: number) => Buffer = randomBytes): string {
  for (;;) {
    const id = random(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

async function formatStorage(libs: string, propsFile: string, logFile: string): Promise<void> {
  const clusterId = newClusterId();
  const args = jvmArgs(libs, 'kafka.tools.StorageTool', ['format', '--ignore-formatted', '-t', clusterId, '-c', propsFile]);
  const code = await new Promise<number | null>((resolve, reject) => {
    const fd = openSync(logFile, 'a');
    const child = spawn(javaCommand(), args, { stdio: ['ignore', fd, fd] });
    closeSync(fd);
    child.on('error', (err) => reject(new KafkaSetupError('JAVA_NOT_FOUND', `Could not run ${javaCommand()}: ${err.message}`, { cause: err })));
    child.on('close', resolve);
  });
  if (code !== 0) throw await brokerError('BROKER_FORMAT_FAILED', `Formatting the broker storage exited with ${code}.`, logFile);
}

/**
 * The broker runs in a process group of its own (detached): a Ctrl-C at the terminal signals the
 * terminal's whole foreground group, and the broker must outlive the service's drain, which still needs
 * it; the service stops the broker after draining (and process-guard.ts when it exits).
 */
function spawnBroker(libs: string, propsFile: string, logFile: string): ChildProcess {
  const fd = openSync(logFile, 'a');
  try {
    const child = spawn(javaCommand(), jvmArgs(libs, 'kafka.Kafka', [propsFile]), { stdio: ['ignore', fd, fd], detached: true });
    child.on('error', () => undefined); // a failed spawn shows as pid === undefined
    return child;
  } finally {
    closeSync(fd);
  }
}
