// What the worker knows of its place in the consumer group: the partitions it owns (the consumer's
// join), a generation counted per join, and whether a rebalance is under way (the group coordinator's
// answer to a heartbeat). The worker commits a partition only while it owns it.
import { createLogger } from '../telemetry/logger.js';

const log = createLogger('ingest');

/**
 * Heartbeat answers that end this worker's hold on its partitions (Kafka's protocol error names). A
 * rebalance in progress still accepts commits from the current generation (the Java consumer commits
 * in onPartitionsRevoked then); the others mean the group has moved on without this member.
 */
const REBALANCING = 'REBALANCE_IN_PROGRESS';
const LEFT_BEHIND = new Set(['ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'FENCED_INSTANCE_ID']);

export class GroupMembership {
  private joins = 0;
  private owned = new Map<string, ReadonlySet<number>>();
  private rebalancingSince: number | undefined;
  private leftBehind = false;

  /** The assignment of a completed join (topic -> partitions). */
  joined(assignment: Readonly<Record<string, readonly number[]>>, details: Readonly<Record<string, unknown>> = {}): void {
    this.joins++;
    this.owned = new Map(Object.entries(assignment).map(([topic, partitions]) => [topic, new Set(partitions)]));
    this.rebalancingSince = undefined;
    this.leftBehind = false;
    const partitions = Object.values(assignment).reduce((n, list) => n + list.length, 0);
    log.info({ ...details, generation: this.joins, partitions, assignment: assignmentText(assignment) }, 'The worker joined its consumer group.');
  }

  /** Counts joins: a batch remembers it, and commits only if no join happened since. */
  get generation(): number {
    return this.joins;
  }

  /** True while a rebalance is under way: the worker stops routing and drains. */
  get rebalancing(): boolean {
    return this.rebalancingSince !== undefined;
  }

  /** When in-flight work of a rebalance must be settled or given up; infinite without a rebalance. */
  drainDeadline(drainTimeoutMs: number): number {
    return this.rebalancingSince === undefined ? Number.POSITIVE_INFINITY : this.rebalancingSince + drainTimeoutMs;
  }

  /** True when the worker may commit the partition for a batch begun in `generation`. */
  owns(topic: string, partition: number, generation: number): boolean {
    return generation === this.joins && !this.leftBehind && (this.owned.get(topic)?.has(partition) ?? false);
  }

  /** A group error from the coordinator: a rebalance starts the drain deadline; being left behind also stops commits. */
  groupError(type: string): void {
    const behind = LEFT_BEHIND.has(type);
    if (type !== REBALANCING && !behind) return;
    if (behind) this.leftBehind = true;
    if (this.rebalancingSince === undefined) {
      this.rebalancingSince = Date.now();
      log.info({ reason: type }, 'The consumer group is rebalancing: the worker stops routing, drains what is in flight, and rejoins.');
    }
  }
}

/**
 * An assignment in a line a person reads: each topic with its partitions as ranges, e.g.
 * "edge.audit 0-2; edge.traffic.tcp_connection_closed.v0 0-5" (a list of every number ran to 330 characters).
 */
export function assignmentText(assignment: Readonly<Record<string, readonly number[]>>): string {
  const ranges = (list: readonly number[]): string => {
    const sorted = [...list].sort((a, b) => a - b);
    const out: string[] = [];
    for (let i = 0; i < sorted.length; ) {
      let j = i;
      while (j + 1 < sorted.length && sorted[j + 1] === (sorted[j] as number) + 1) j++;
      out.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
      i = j + 1;
    }
    return out.join(',');
  };
  const topics = Object.entries(assignment).filter(([, list]) => list.length > 0).sort(([a], [b]) => a.localeCompare(b));
  return topics.length === 0 ? 'none' : topics.map(([topic, list]) => `${topic} ${ranges(list)}`).join('; ');
}
