// The system under test for the fault scenarios: a broker that can be restarted on the same ports and
// data, the scenario's topics and config, and real service processes that can be killed and restarted.
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KafkaClient } from '../../../src/kafka/seam.js';
import { ConfigLog } from '../../../src/configlog/config-log.js';
import type { StoredDestination, StoredSource, StoredSubscription, StoredTarget } from '../../../src/configlog/resources.js';
import { newId } from '../../../src/ids.js';
import { createClient, ensureTopics, type TopicSpec } from '../../../src/kafka/client.js';
import { startLocalBroker, type LocalBroker } from '../../../src/kafka/local-broker.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import type { Progress } from './timing.js';

/** Where a scenario runs: a broker, and optionally the ability to stop and start it. */
export interface ChaosBroker {
  readonly brokers: string;
  /** Stops the broker (SIGTERM, clean shutdown) and starts it again on the same ports and data. */
  restart?(downMs: number): Promise<{ stoppedAt: number; readyAt: number }>;
}

/**
 * A broker of the scenario's own in persistent mode: a temporary data folder that survives stop(), and
 * the ports of the first start reused by every later one, so clients reconnect to the same address.
 */
export async function startRestartableBroker(log: Progress): Promise<ChaosBroker & { close(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'edge-chaos-kafka-'));
  let current: LocalBroker = await startLocalBroker({ dataDir });
  const { port, controllerPort } = current;
  log(`broker ${current.brokers} ready in ${current.startupMs} ms`);
  return {
    brokers: current.brokers,
    async restart(downMs) {
      await current.stop();
      const stoppedAt = Date.now();
      log('broker stopped');
      await new Promise((r) => setTimeout(r, downMs));
      // The listener ports were just released; a retry covers a kernel that is slow to let them go.
      for (let attempt = 1; ; attempt++) {
        try {
          current = await startLocalBroker({ port, controllerPort, dataDir });
          break;
        } catch (err) {
          if (attempt >= 5) throw err;
          log(`broker start failed (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); retrying`);
          await new Promise((r) => setTimeout(r, 1_000));
        }
      }
      const readyAt = Date.now();
      log(`broker back after ${readyAt - stoppedAt} ms (JVM start ${current.startupMs} ms)`);
      return { stoppedAt, readyAt };
    },
    async close() {
      await current.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A topic and group prefix no earlier run on the same broker used. */
export function chaosPrefix(scenario: string): string {
  return `chaos-${scenario}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

export function chaosKafka(brokers: string, clientId: string): KafkaClient {
  // Scenarios stop brokers and kill processes on purpose; the client's error lines would only be noise.
  return createClient({ clientId, brokers });
}

export interface ChaosTopics {
  readonly http: string;
  readonly tcp: string;
  readonly config: string;
  readonly audit: string;
  readonly dlq: string;
  out(name: string): string;
}

export function chaosTopics(prefix: string): ChaosTopics {
  return {
    http: `${prefix}.http`,
    tcp: `${prefix}.tcp`,
    config: `${prefix}.config`,
    audit: `${prefix}.audit`,
    dlq: `${prefix}.dlq`,
    out: (name) => `${prefix}.out.${name}`,
  };
}

/** Creates the service's topics before it starts (it leaves existing ones as they are), plus extra ones. */
export async function createChaosTopics(kafka: KafkaClient, topics: ChaosTopics, opts: { partitions?: number; config?: Record<string, string>; extra?: TopicSpec[] } = {}): Promise<void> {
  const admin = kafka.admin();
  try {
    const traffic = { partitions: opts.partitions ?? 4, ...(opts.config && { config: opts.config }) };
    await ensureTopics(admin, [
      { topic: topics.http, ...traffic },
      { topic: topics.tcp, ...traffic },
      { topic: topics.config, partitions: 1, compacted: true },
      { topic: topics.audit, partitions: 1 },
      { topic: topics.dlq, partitions: 1, ...(opts.config && { config: opts.config }) },
      ...(opts.extra ?? []),
    ]);
  } finally {
    await admin.close();
  }
}

export function destination(target: StoredTarget, description = ''): StoredDestination {
  return { id: newId('event_destination'), created_at: new Date().toISOString(), description, metadata: '', format: 'json', target };
}

export function subscription(description: string, sources: StoredSource[], destinationIds: string[]): StoredSubscription {
  return { id: newId('event_subscription'), created_at: new Date().toISOString(), description, metadata: '', sources, destination_ids: destinationIds };
}

/** Writes destinations and subscriptions straight to the config log, as the admin API would store them. */
export async function writeConfig(kafka: KafkaClient, topic: string, destinations: StoredDestination[], subscriptions: StoredSubscription[]): Promise<void> {
  const log = new ConfigLog({ kafka, topic });
  await log.start();
  try {
    await log.write([
      ...destinations.map((d) => ({ id: d.id, kind: 'event_destination' as const, data: d })),
      ...subscriptions.map((s) => ({ id: s.id, kind: 'event_subscription' as const, data: s })),
    ]);
  } finally {
    await log.stop();
  }
}

export interface UnexpectedExit {
  readonly pid: number | undefined;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly lastLogs: readonly string[];
}

/**
 * Service processes of one scenario. Every exit the scenario did not cause itself is recorded, and so
 * is every consumer crash the service logged: both mean "the worker restarted".
 */
export class ServiceFleet {
  readonly unexpectedExits: UnexpectedExit[] = [];
  private readonly running = new Set<ServiceProcess>();
  private readonly expected = new WeakSet<ServiceProcess>();
  private readonly everyProcess: ServiceProcess[] = [];
  kills = 0;

  constructor(readonly env: Record<string, string>) {}

  static env(prefix: string, brokers: string, extra: Record<string, string> = {}): Record<string, string> {
    return serviceEnv(prefix, brokers, { ROLES: 'worker', CONSUMER_SESSION_TIMEOUT_MS: '8000', ...extra });
  }

  get processes(): readonly ServiceProcess[] {
    return [...this.running];
  }

  async start(extraEnv: Record<string, string> = {}): Promise<ServiceProcess> {
    const p = await startService({ ...this.env, ...extraEnv });
    this.running.add(p);
    this.everyProcess.push(p);
    p.child.once('exit', (code, signal) => {
      this.running.delete(p);
      if (!this.expected.has(p)) this.unexpectedExits.push({ pid: p.child.pid, code, signal, lastLogs: p.logs.slice(-20) });
    });
    return p;
  }

  /** SIGKILL: no drain, no commit, no leaving the group. */
  async kill(p: ServiceProcess): Promise<void> {
    this.expected.add(p);
    this.kills++;
    await p.stop('SIGKILL');
  }

  /** SIGTERM by default: the service drains, commits what settled and leaves the group; resolves with its exit code. */
  async stop(p: ServiceProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    this.expected.add(p);
    return p.stop(signal);
  }

  async stopAll(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const all = [...this.running];
    for (const p of all) this.expected.add(p);
    await Promise.allSettled(all.map((p) => p.stop(signal)));
    // CHAOS_LOG_DIR keeps every service process's log for a look after the run.
    const dir = process.env.CHAOS_LOG_DIR;
    if (dir !== undefined && dir !== '') {
      mkdirSync(dir, { recursive: true });
      for (const p of this.everyProcess) writeFileSync(join(dir, `${this.env.CONSUMER_GROUP ?? 'service'}-${p.child.pid}.log`), `${p.logs.join('\n')}\n`);
    }
  }

  /** Log lines of every process so far that match `pattern` (the service logs JSON, one object a line). */
  logLines(pattern: RegExp): string[] {
    return this.everyProcess.flatMap((p) => p.logs.filter((l) => pattern.test(l)));
  }

  /**
   * When events are missing, the first error lines the services logged (level 50 and up), to say why;
   * nothing otherwise, since errors during an injected fault are expected.
   */
  diagnose(missing: number): string[] {
    if (missing === 0) return [];
    return this.logLines(/"level":(50|60)/)
      .slice(0, 5)
      .map((l) => `service error log: ${l.slice(0, 400)}`);
  }

  /** Consumer crashes the service logged (the client starts the consumer again after one). */
  consumerCrashes(): string[] {
    return this.logLines(/The consumer crashed/);
  }
}
