// Renders the server.properties of the single-node KRaft broker+controller that the project runs locally.

export interface BrokerConfigInput {
  /** Client listener port on 127.0.0.1. */
  port: number;
  /** KRaft controller listener port on 127.0.0.1. */
  controllerPort: number;
  /** Folder of the broker's log segments and KRaft metadata (Kafka's log.dirs). */
  logDir: string;
}

/** The one node's id; it is both the broker and the only controller voter. */
export const NODE_ID = 1;

/** Partitions of the offsets topic (see below); the readiness probe covers each one's coordinator. */
export const OFFSETS_TOPIC_PARTITIONS = 10;

/**
 * The offsets topic partition whose leader coordinates a group: Kafka's
 * `Utils.abs(groupId.hashCode()) % partitions`, where Utils.abs clears the sign bit and hashCode is
 * Java's String hash (s[0]*31^(n-1) + ... + s[n-1], in 32-bit arithmetic over UTF-16 units).
 */
export function groupPartition(groupId: string, partitions: number): number {
  let hash = 0;
  for (let i = 0; i < groupId.length; i++) hash = (Math.imul(31, hash) + groupId.charCodeAt(i)) | 0;
  return (hash & 0x7fffffff) % partitions;
}

/**
 * Settings as key/value pairs, in the order they are written. Why each non-default one is set:
 * - Static `controller.quorum.voters` ("id@host:port"), so `StorageTool format` needs only a cluster
 *   id and no `--standalone` bootstrap of a dynamic quorum.
 * - Replication factor 1 (and min.isr 1) for every internal topic: the defaults of 3 cannot be met
 *   by one node, and the offsets and transaction topics would never be created.
 * - `group.initial.rebalance.delay.ms=0`: the default 3 s delay before the first rebalance of a new
 *   group only slows tests and restarts down.
 * - 10 partitions instead of 50 for the offsets topic, and 1 for the transaction state topic (each
 *   process has one transactional writer, the config log's): they are created on first use, and 50
 *   partitions take seconds on a small machine. The readiness probe (local-broker.ts) waits until
 *   every one of them has loaded.
 * - `auto.create.topics.enable=false`: the service creates its topics explicitly (ensureTopics), with
 *   their partitions and cleanup policy; auto-creation would hide a misspelt topic name and would
 *   create the compacted config log as a plain deleting topic.
 */
export function brokerSettings(input: BrokerConfigInput): Array<[string, string]> {
  const host = '127.0.0.1';
  return [
    ['process.roles', 'broker,controller'],
    ['node.id', String(NODE_ID)],
    ['controller.quorum.voters', `${NODE_ID}@${host}:${input.controllerPort}`],
    ['listeners', `PLAINTEXT://${host}:${input.port},CONTROLLER://${host}:${input.controllerPort}`],
    ['advertised.listeners', `PLAINTEXT://${host}:${input.port}`],
    ['controller.listener.names', 'CONTROLLER'],
    ['inter.broker.listener.name', 'PLAINTEXT'],
    ['listener.security.protocol.map', 'PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT'],
    ['log.dirs', input.logDir],
    ['num.partitions', '1'],
    ['default.replication.factor', '1'],
    ['min.insync.replicas', '1'],
    ['offsets.topic.replication.factor', '1'],
    ['offsets.topic.num.partitions', String(OFFSETS_TOPIC_PARTITIONS)],
    ['transaction.state.log.replication.factor', '1'],
    ['transaction.state.log.min.isr', '1'],
    ['transaction.state.log.num.partitions', '1'],
    ['share.coordinator.state.topic.replication.factor', '1'],
    ['share.coordinator.state.topic.min.isr', '1'],
    ['group.initial.rebalance.delay.ms', '0'],
    ['auto.create.topics.enable', 'false'],
    // Two cores are shared with the service and the tests: keep the broker's thread pools small.
    ['num.network.threads', '2'],
    ['num.io.threads', '4'],
    ['num.recovery.threads.per.data.dir', '1'],
    ['background.threads', '4'],
  ];
}

/** The settings as a Java properties file. */
export function renderServerProperties(input: BrokerConfigInput): string {
  const lines = brokerSettings(input).map(([key, value]) => `${key}=${escapeValue(value)}`);
  return `# Written by the project's local broker control; regenerated on every start.\n${lines.join('\n')}\n`;
}

/** Java properties treat backslash as an escape (Windows paths); ':' and '=' in values are literal. */
function escapeValue(value: string): string {
  return value.replace(/\\/g, '\\\\');
}
