// When the local broker is ready for the service, and the errors that quote the end of its log.
import type { ChildProcess } from 'node:child_process';
import { open } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { OFFSETS_TOPIC_PARTITIONS, groupPartition } from './broker-config.js';
import { createClient, isKafkaClientName } from './client.js';
import { KafkaSetupError } from './errors.js';
import type { KafkaClient, KafkaClientName } from './seam.js';

/** Group ids whose coordinators cover every partition of the offsets topic. */
export function probeGroupIds(partitions = OFFSETS_TOPIC_PARTITIONS): string[] {
  const byPartition = new Map<number, string>();
  for (let i = 0; byPartition.size < partitions; i++) {
    const id = `local-broker-probe-${i}`;
    const partition = groupPartition(id, partitions);
    if (!byPartition.has(partition)) byPartition.set(partition, id);
  }
  return [...byPartition.values()];
}

const PROBE_GROUPS = probeGroupIds();

/**
 * Ready means a client can connect, describeCluster answers, and the group coordinator has loaded
 * every partition of the offsets topic. The offsets topic is created on the first group request;
 * waiting for all of it here spares the service's first consumers "coordinator is loading" retries
 * (and their warnings), whichever partition their group lands on.
 */
export async function waitUntilReady(child: ChildProcess, brokers: string, logFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // The service's own client, so the probe answers for the client the service will use.
  const kafka = createClient({ clientId: 'local-broker-probe', brokers, retries: 0, connectionTimeoutMs: 1_000, ...(clientName() && { name: clientName() }) });
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const how = child.exitCode !== null ? `exit code ${child.exitCode}` : `signal ${child.signalCode}`;
      throw await brokerError('BROKER_EXITED', `The Kafka broker exited (${how}) before it was ready.`, logFile);
    }
    const admin = kafka.admin();
    try {
      // Throws (no retries in this client) while the coordinator is not available or still loading.
      await admin.describeGroups(PROBE_GROUPS);
      await initTransactions(kafka);
      return;
    } catch {
      await sleep(250);
    } finally {
      await admin.close().catch(() => undefined);
    }
  }
  throw await brokerError('BROKER_START_TIMEOUT', `The Kafka broker at ${brokers} was not ready after ${timeoutMs} ms.`, logFile, true);
}

/** InitProducerId of a transactional producer: throws while the transaction coordinator is not ready. */
async function initTransactions(kafka: KafkaClient): Promise<void> {
  const producer = kafka.transactionalProducer({ transactionalId: 'local-broker-probe', transactionTimeoutMs: 10_000 });
  try {
    await producer.connect();
  } finally {
    await producer.close().catch(() => undefined);
  }
}

/** KAFKA_CLIENT when it names a client (the service reports a wrong one itself, with its other settings). */
function clientName(): KafkaClientName | undefined {
  const name = process.env.KAFKA_CLIENT ?? '';
  return isKafkaClientName(name) ? name : undefined;
}

export async function brokerError(code: KafkaSetupError['code'], message: string, logFile: string, retryable = false): Promise<KafkaSetupError> {
  return new KafkaSetupError(code, `${message}\nLast lines of ${logFile}:\n${await tail(logFile, 40)}`, { retryable });
}

async function tail(file: string, lines: number): Promise<string> {
  try {
    const handle = await open(file, 'r');
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, 64 * 1024);
      const { buffer } = await handle.read(Buffer.alloc(length), 0, length, size - length);
      return buffer.toString('utf8').split('\n').slice(-lines - 1).join('\n');
    } finally {
      await handle.close();
    }
  } catch {
    return '(no log written)';
  }
}
