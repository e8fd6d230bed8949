// The per-destination queue that cuts batches by count and bytes; the runner adds the linger time.
import { payloadSize, type DeliveryItem } from './contract.js';

export interface BatchLimits {
  readonly maxRecords: number;
  readonly maxBytes: number;
  /** Added to each payload's length when counting bytes (see WriterLimits). */
  readonly recordOverheadBytes: number;
}

/** Whether an item of `size` counted bytes joins a batch of `count` items and `bytes`: a batch always takes its first. */
function joinsBatch(limits: BatchLimits, count: number, bytes: number, size: number): boolean {
  return count === 0 || (count < limits.maxRecords && bytes + size <= limits.maxBytes);
}

/** The head of `items` that one batch takes under `limits` (at least one item), as take() cuts it. */
export function firstBatch(items: readonly DeliveryItem[], limits: BatchLimits): readonly DeliveryItem[] {
  let bytes = 0;
  let n = 0;
  for (const item of items) {
    const size = payloadSize(item) + limits.recordOverheadBytes;
    if (!joinsBatch(limits, n, bytes, size)) break;
    bytes += size;
    n++;
  }
  return items.slice(0, n);
}

/**
 * A FIFO of items with their arrival times. take() returns the longest prefix within the limits whose
 * items are all of the head's lane, and always at least one item so a record at the byte limit still
 * moves. Amortised O(1) per item: the consumed head is sliced off only once it is most of the array.
 */
export class Batcher {
  private items: DeliveryItem[] = [];
  private times: number[] = [];
  private head = 0;
  private queuedBytes = 0;

  /** `lane` sorts items that must not share a batch (the runner's: whether an item holds its partition). */
  constructor(
    readonly limits: BatchLimits,
    private readonly lane: (item: DeliveryItem) => boolean = () => true,
  ) {}

  get size(): number {
    return this.items.length - this.head;
  }

  get bytes(): number {
    return this.queuedBytes;
  }

  /** Arrival time of the oldest queued item, or undefined when empty. */
  get oldestAt(): number | undefined {
    return this.head < this.times.length ? this.times[this.head] : undefined;
  }

  push(item: DeliveryItem, now: number): void {
    this.items.push(item);
    this.times.push(now);
    this.queuedBytes += payloadSize(item) + this.limits.recordOverheadBytes;
  }

  /** The oldest queued item, or undefined when empty. */
  peek(): DeliveryItem | undefined {
    return this.items[this.head];
  }

  /** Arrival time of the oldest queued item matching `predicate` (a scan from the head), or undefined. */
  firstArrival(predicate: (item: DeliveryItem) => boolean): number | undefined {
    for (let i = this.head; i < this.items.length; i++) if (predicate(this.items[i] as DeliveryItem)) return this.times[i];
    return undefined;
  }

  /** True when `item` is queued (a linear scan: for reports, not the hot path). */
  includes(item: DeliveryItem): boolean {
    return this.items.indexOf(item, this.head) >= 0;
  }

  /** True when a full batch is waiting, so there is no point lingering. */
  isFull(): boolean {
    return this.size >= this.limits.maxRecords || this.queuedBytes >= this.limits.maxBytes;
  }

  take(): DeliveryItem[] {
    const batch: DeliveryItem[] = [];
    let bytes = 0;
    const lane = this.head < this.items.length && this.lane(this.items[this.head] as DeliveryItem);
    while (this.head < this.items.length) {
      const item = this.items[this.head] as DeliveryItem;
      const size = payloadSize(item) + this.limits.recordOverheadBytes;
      if (!joinsBatch(this.limits, batch.length, bytes, size) || (batch.length > 0 && this.lane(item) !== lane)) break;
      batch.push(item);
      bytes += size;
      this.head++;
    }
    this.queuedBytes -= bytes;
    this.compact();
    return batch;
  }

  /**
   * Removes and returns the queued items matching `predicate` (a revoked partition's records), in order;
   * with `arrivedBy`, only those that arrived at or before that time, and only that head of the queue is read.
   */
  remove(predicate: (item: DeliveryItem) => boolean, arrivedBy = Number.POSITIVE_INFINITY): DeliveryItem[] {
    let end = this.head;
    while (end < this.items.length && (this.times[end] as number) <= arrivedBy) end++;
    // The kept items of the head move up to just before `end`, so the rest of the queue stays where it is.
    const removed: DeliveryItem[] = [];
    let keep = end;
    for (let i = end - 1; i >= this.head; i--) {
      const item = this.items[i] as DeliveryItem;
      if (predicate(item)) {
        removed.push(item);
        this.queuedBytes -= payloadSize(item) + this.limits.recordOverheadBytes;
      } else {
        keep--;
        this.items[keep] = item;
        this.times[keep] = this.times[i] as number;
      }
    }
    this.head = keep;
    this.compact();
    return removed.reverse();
  }

  private compact(): void {
    if (this.head === this.items.length) {
      this.items = [];
      this.times = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}
