// What the admin API's replay routes need from Kafka (src/admin/replays/): a replay's state from the
// progress board, its range in the raw topics, and its consumer group readied at the range's start.
import type { ServiceConfig } from '../config/service-config.js';
import type { TrafficEventType } from '../events/catalog.js';
import { withAdmin, type KafkaClient } from '../kafka/seam.js';
import type { ReplayBoard } from './replay-board.js';
import { resolveRange, type RangeResult } from './replay-range.js';
import { replayGroupId, replayStatus, type ReplayStatus, type StoredReplay } from './replay-record.js';

export interface ReplaySupport {
  status(r: StoredReplay): ReplayStatus;
  /** The range over the raw topics of these event types. */
  range(types: readonly string[], fromMs: number, toMs: number): Promise<RangeResult>;
  /** Commits each partition's start offset to the replay's group, where its workers begin. */
  prepare(r: StoredReplay): Promise<void>;
  /** Deletes the replay's group once it ended (its offsets are needed no more). */
  release(r: StoredReplay): Promise<void>;
  /** Called with a replay's id whenever a worker reports its progress. */
  onReport(fn: (replay: string) => void): () => void;
}

/** The raw topic of each traffic event type. */
export function trafficTopics(config: ServiceConfig): ReadonlyMap<TrafficEventType, string> {
  return new Map<TrafficEventType, string>([
    ['http_request_complete.v0', config.topics.httpRequestComplete],
    ['tcp_connection_closed.v0', config.topics.tcpConnectionClosed],
  ]);
}

export function replaySupport(kafka: KafkaClient, board: ReplayBoard, config: ServiceConfig): ReplaySupport {
  const topics = trafficTopics(config);
  const topicOf = (t: string): string => topics.get(t as TrafficEventType) ?? t;
  return {
    status: (r) => replayStatus(r, board.reports(r.id)),
    range: (types, fromMs, toMs) => withAdmin(kafka, (admin) => resolveRange(admin, types.map(topicOf), fromMs, toMs)),
    prepare: (r) =>
      withAdmin(kafka, async (admin) => {
        const group = replayGroupId(config.consumerGroup, r.id);
        for (const topic of new Set(r.partitions.map((p) => p.topic))) {
          await admin.commitGroupOffsets(group, topic, new Map(r.partitions.filter((p) => p.topic === topic).map((p) => [p.partition, p.start])));
        }
      }),
    release: (r) => withAdmin(kafka, (admin) => admin.deleteGroups([replayGroupId(config.consumerGroup, r.id)])),
    onReport: (fn) => board.onReport(fn),
  };
}
