// Where a replay's range lies in the raw topics: for each partition, the offsets of the first records
// stamped at or after `from` and `to` (ListOffsets by timestamp), and whether retention has already
// dropped records stamped after `from`.
import type { KafkaAdmin } from '../kafka/seam.js';
import type { ReplayPartition } from './replay-record.js';

export type RangeResult =
  | { readonly ok: true; readonly partitions: ReplayPartition[] }
  /** Retention dropped records stamped at or after `from`: the earliest time whose records every partition still holds. */
  | { readonly ok: false; readonly earliestAvailableMs: number };

/**
 * The partitions of `topics` over [fromMs, toMs). A partition whose low offset is above 0 lost records to
 * retention; its earliest kept record's timestamp is then the earliest time it can replay from, and the
 * range is refused when `from` is before the latest of those (a partition that lost nothing limits nothing).
 */
export async function resolveRange(admin: KafkaAdmin, topics: readonly string[], fromMs: number, toMs: number): Promise<RangeResult> {
  const partitions: ReplayPartition[] = [];
  let earliest = Number.NEGATIVE_INFINITY;
  for (const topic of topics) {
    const [bounds, first, atFrom, atTo] = await Promise.all([
      admin.partitionOffsets(topic),
      admin.offsetsForTime(topic, 0),
      admin.offsetsForTime(topic, fromMs),
      admin.offsetsForTime(topic, toMs),
    ]);
    const firstOf = new Map(first.map((f) => [f.partition, f]));
    const fromOf = new Map(atFrom.map((f) => [f.partition, f.offset]));
    const toOf = new Map(atTo.map((f) => [f.partition, f.offset]));
    for (const { partition, low, high } of bounds) {
      const kept = firstOf.get(partition);
      if (low > 0 && kept !== undefined && kept.offset >= 0) earliest = Math.max(earliest, kept.timestamp);
      // -1: no record stamped at or after the time, so the range reaches the partition's end.
      const at = (o: number | undefined): number => (o === undefined || o < 0 ? high : Math.min(o, high));
      const start = at(fromOf.get(partition));
      const end = Math.max(start, at(toOf.get(partition)));
      partitions.push({ topic, partition, start, end });
    }
  }
  if (fromMs < earliest) return { ok: false, earliestAvailableMs: earliest };
  return { ok: true, partitions };
}
