// A persistent local broker records its pid, ports and settings in its data folder, so that a broker left
// running by a service that was killed (kill -9 cannot be intercepted) is found by the next start: reused
// when it runs the same settings, stopped otherwise.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient } from './client.js';
import { processAlive } from './process-guard.js';

export interface BrokerRecord {
  readonly pid: number;
  /** The process that started or reused it: while that one lives, the broker is not left over. */
  readonly ownerPid: number;
  readonly port: number;
  readonly controllerPort: number;
  readonly version: string;
  /** SHA-256 of the server.properties it was started with. */
  readonly settings: string;
}

const PID_FILE = 'broker.pid';

export function settingsDigest(properties: string): string {
  return createHash('sha256').update(properties).digest('hex');
}

export async function writeBrokerRecord(dataDir: string, record: BrokerRecord): Promise<void> {
  await writeFile(join(dataDir, PID_FILE), `${JSON.stringify(record)}\n`);
}

export async function removeBrokerRecord(dataDir: string): Promise<void> {
  await rm(join(dataDir, PID_FILE), { force: true });
}

/**
 * The broker an earlier start left running in `dataDir`, or undefined (a stale record is removed). Its
 * owner may still be alive: see ownerAlive().
 */
export async function leftoverBroker(dataDir: string): Promise<BrokerRecord | undefined> {
  let record: BrokerRecord;
  try {
    record = JSON.parse(await readFile(join(dataDir, PID_FILE), 'utf8')) as BrokerRecord;
  } catch {
    return undefined;
  }
  if (!Number.isInteger(record.pid) || record.pid <= 0 || !processAlive(record.pid) || !runsWith(record.pid, join(dataDir, 'server.properties'))) {
    await removeBrokerRecord(dataDir);
    return undefined;
  }
  return record;
}

/** True while the service that started or reused the broker runs: then the broker is in use, not left over. */
export function ownerAlive(record: BrokerRecord): boolean {
  return record.ownerPid !== process.pid && Number.isInteger(record.ownerPid) && processAlive(record.ownerPid);
}

/**
 * Whether the process is a broker started with this properties file. Linux shows a process's command
 * line in /proc; elsewhere the cluster id check in answersAsCluster() has to do.
 */
function runsWith(pid: number, propsFile: string): boolean {
  const cmdline = `/proc/${pid}/cmdline`;
  if (!existsSync('/proc/self/cmdline')) return true;
  try {
    return readFileSync(cmdline, 'utf8').split('\0').includes(propsFile);
  } catch {
    return false;
  }
}

/** The cluster id StorageTool wrote when it formatted the folder (meta.properties). */
export function formattedClusterId(logDir: string): string | undefined {
  try {
    return /^cluster\.id=(.+)$/m.exec(readFileSync(join(logDir, 'meta.properties'), 'utf8'))?.[1]?.trim();
  } catch {
    return undefined;
  }
}

/** True when the broker on `port` answers and serves the cluster this data folder was formatted for. */
export async function answersAsCluster(port: number, clusterId: string): Promise<boolean> {
  const admin = createClient({ clientId: 'local-broker-probe', brokers: `127.0.0.1:${port}`, retries: 0, connectionTimeoutMs: 1_000 }).admin();
  try {
    return (await admin.cluster()).id === clusterId;
  } catch {
    return false;
  } finally {
    await admin.close().catch(() => undefined);
  }
}
