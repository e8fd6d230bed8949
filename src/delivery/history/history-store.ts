// The API's delivery history: every (subscription, destination) series at two resolutions, minutes and
// hours, as packed point logs (point-log.ts), fed by the workers' records (history-board.ts) and answered
// per destination (its subscriptions' series added up) or per subscription. Points older than their
// retention, and the series of deleted destinations, are dropped (README.md "Memory").
import { Counters } from './counters.js';
import type { HistoryRecord } from './history-record.js';
import { CodeTable, PointLog } from './point-log.js';

export type Resolution = 'minute' | 'hour';

export interface HistoryTiming {
  /** A minute point's length (HISTORY_MINUTE_MS: 60,000; tests shorten it); an hour is 60 of them. */
  readonly minuteMs: number;
  /** How long minute points and hour points are kept (HISTORY_MINUTE_RETENTION_MS, HISTORY_HOUR_RETENTION_MS). */
  readonly minuteRetentionMs: number;
  readonly hourRetentionMs: number;
}

export const MINUTES_PER_HOUR = 60;

export function hourMs(t: HistoryTiming): number {
  return t.minuteMs * MINUTES_PER_HOUR;
}

interface Series {
  readonly minutes: PointLog;
  readonly hours: PointLog;
}

export interface HistoryPoint {
  /** The period's start, ms since the epoch, aligned to its resolution. */
  readonly start: number;
  readonly counters: Counters;
}

export class HistoryStore {
  private readonly codes = new CodeTable();
  /** destination id → subscription id ("" for none) → its series. */
  private readonly series = new Map<string, Map<string, Series>>();

  constructor(private readonly timing: HistoryTiming) {}

  /**
   * A worker's record of a closed minute or hour (its length says which); false for another length. One
   * past its retention (read from the topic's start) is left out.
   */
  apply(record: HistoryRecord, now: number): boolean {
    const resolution = record.lengthMs === this.timing.minuteMs ? 'minute' : record.lengthMs === hourMs(this.timing) ? 'hour' : undefined;
    if (resolution === undefined || record.start % record.lengthMs !== 0) return false;
    if (record.start + record.lengthMs <= now - (resolution === 'minute' ? this.timing.minuteRetentionMs : this.timing.hourRetentionMs)) return true;
    const index = record.start / record.lengthMs;
    for (const p of record.points) {
      const s = this.seriesOf(p.destination, p.subscription);
      (resolution === 'minute' ? s.minutes : s.hours).add(index, p.counters);
    }
    return true;
  }

  /**
   * The points of a destination (all its subscriptions' series added up) or of one subscription and
   * destination, over [from, to) at `resolution`: only periods with activity, in time order. An hour whose
   * minutes are all still kept is added up from them (so the current hour shows); older hours come from
   * the workers' hour records.
   */
  query(destination: string, subscription: string | undefined, from: number, to: number, resolution: Resolution, now: number): HistoryPoint[] {
    const bySub = this.series.get(destination);
    if (bySub === undefined) return [];
    const chosen = subscription === undefined ? [...bySub.values()] : [bySub.get(subscription)].filter((s): s is Series => s !== undefined);
    const length = resolution === 'minute' ? this.timing.minuteMs : hourMs(this.timing);
    const out = new Map<number, Counters>();
    const into = (start: number, c: Counters): void => {
      const have = out.get(start);
      if (have === undefined) out.set(start, c);
      else have.add(c);
    };
    const fromIndex = Math.floor(from / length);
    const toIndex = Math.ceil(to / length);
    // Minute points reach back this far; an hour starting here or later has all of its minutes.
    const minutesFrom = Math.ceil((now - this.timing.minuteRetentionMs) / hourMs(this.timing)) * hourMs(this.timing);
    for (const s of chosen) {
      if (resolution === 'minute') {
        for (const [i, c] of s.minutes.points(fromIndex, toIndex)) into(i * length, c);
        continue;
      }
      const fromMinutes = Math.max(fromIndex * length, minutesFrom);
      for (const [i, c] of s.hours.points(fromIndex, Math.min(toIndex, fromMinutes / length))) into(i * length, c);
      for (const [i, c] of s.minutes.points(fromMinutes / this.timing.minuteMs, (toIndex * length) / this.timing.minuteMs)) {
        into(Math.floor((i * this.timing.minuteMs) / length) * length, c);
      }
    }
    return [...out].sort((a, b) => a[0] - b[0]).map(([start, counters]) => ({ start, counters }));
  }

  /** Drops points past their retention, and the series of destinations that no longer exist. */
  prune(now: number, exists: (destination: string) => boolean): void {
    const minuteIndex = Math.floor((now - this.timing.minuteRetentionMs) / this.timing.minuteMs);
    const hourIndex = Math.floor((now - this.timing.hourRetentionMs) / hourMs(this.timing));
    for (const [destination, bySub] of this.series) {
      if (!exists(destination)) {
        this.series.delete(destination);
        continue;
      }
      for (const [sub, s] of bySub) {
        s.minutes.dropBefore(minuteIndex);
        s.hours.dropBefore(hourIndex);
        if (s.minutes.isEmpty && s.hours.isEmpty) bySub.delete(sub);
      }
      if (bySub.size === 0) this.series.delete(destination);
    }
  }

  /** The bytes the point logs hold, and how many series there are. */
  size(): { readonly series: number; readonly bytes: number } {
    let series = 0;
    let bytes = 0;
    for (const bySub of this.series.values()) {
      for (const s of bySub.values()) {
        series++;
        bytes += s.minutes.byteLength + s.hours.byteLength;
      }
    }
    return { series, bytes };
  }

  private seriesOf(destination: string, subscription: string): Series {
    let bySub = this.series.get(destination);
    if (bySub === undefined) this.series.set(destination, (bySub = new Map()));
    let s = bySub.get(subscription);
    if (s === undefined) bySub.set(subscription, (s = { minutes: new PointLog(this.codes), hours: new PointLog(this.codes) }));
    return s;
  }
}
