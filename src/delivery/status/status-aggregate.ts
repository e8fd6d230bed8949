// A destination's status over all workers, from their reports (ARCHITECTURE.md "Destination status"):
// - the last delivery and the last error are the latest any worker reported, stopped ones included;
// - the state is the worst (parked > failing > ok) among running workers whose last attempt is recent,
//   else the state of the running worker that attempted last, else unknown;
// - the parked backlog is the latest measurement of the retry topic, and its oldest delivery the oldest
//   any running worker knows of;
// - a record waits for it past the bound since the earliest any running worker reports.
import type { DestinationState } from '../destination-health.js';
import type { ReportedError, StatusReport } from './status-report.js';

export interface StatusTiming {
  /** A report not refreshed for this long is from a worker that stopped reporting: history, not state. */
  readonly expireAfterMs: number;
  /** A running worker's state counts while its last attempt is at most this old. */
  readonly activeWindowMs: number;
}

/**
 * From the interval at which workers re-publish their reports: one missed report is tolerated twice over
 * before a worker counts as gone, and a worker that is still failing keeps a recent attempt time, since
 * each report carries it.
 */
export function statusTiming(reportIntervalMs: number): StatusTiming {
  return { expireAfterMs: 3 * reportIntervalMs, activeWindowMs: 4 * reportIntervalMs };
}

export interface DestinationStatusSummary {
  readonly state: DestinationState;
  readonly lastDeliveredAt: number | undefined;
  readonly lastError: ReportedError | undefined;
  /** Deliveries in the destination's retry topic not yet re-driven; 0 when none were ever parked. */
  readonly parkedEvents: number;
  readonly oldestParkedAt: number | undefined;
  /** The earliest stalledSince of a running worker (DestinationStatus.stalledSince). */
  readonly stalledSince: number | undefined;
}

export const UNKNOWN_STATUS: DestinationStatusSummary = Object.freeze({
  state: 'unknown',
  lastDeliveredAt: undefined,
  lastError: undefined,
  parkedEvents: 0,
  oldestParkedAt: undefined,
  stalledSince: undefined,
});

const SEVERITY: Readonly<Record<DestinationState, number>> = { unknown: 0, ok: 1, failing: 2, parked: 3 };

export function aggregateStatus(reports: Iterable<StatusReport>, now: number, timing: StatusTiming): DestinationStatusSummary {
  let lastDeliveredAt: number | undefined;
  let lastError: ReportedError | undefined;
  const live: StatusReport[] = [];
  for (const r of reports) {
    if (r.lastDeliveredAt !== null && (lastDeliveredAt === undefined || r.lastDeliveredAt > lastDeliveredAt)) lastDeliveredAt = r.lastDeliveredAt;
    if (r.lastError !== null && (lastError === undefined || r.lastError.at > lastError.at)) lastError = r.lastError;
    if (!r.stopped && now - r.reportedAt <= timing.expireAfterMs) live.push(r);
  }
  const parkedEvents = latestBy(live.filter((r) => r.parked !== null), (r) => r.parked?.checkedAt ?? 0)?.parked?.events ?? 0;
  let oldestParkedAt: number | undefined;
  if (parkedEvents > 0) {
    for (const r of live) if (r.oldestParkedAt !== null && (oldestParkedAt === undefined || r.oldestParkedAt < oldestParkedAt)) oldestParkedAt = r.oldestParkedAt;
  }
  let stalledSince: number | undefined;
  for (const r of live) if (r.stalledSince !== null && (stalledSince === undefined || r.stalledSince < stalledSince)) stalledSince = r.stalledSince;
  return { state: stateOf(live, now, timing), lastDeliveredAt, lastError, parkedEvents, oldestParkedAt, stalledSince };
}

function stateOf(live: readonly StatusReport[], now: number, timing: StatusTiming): DestinationState {
  // A worker in state unknown has not tried the current target: it says nothing about it.
  const attempted = live.filter((r) => r.state !== 'unknown' && r.lastAttemptAt !== null);
  const recent = attempted.filter((r) => now - (r.lastAttemptAt ?? 0) <= timing.activeWindowMs);
  if (recent.length > 0) return recent.reduce((worst, r) => (SEVERITY[r.state] > SEVERITY[worst] ? r.state : worst), 'unknown' as DestinationState);
  return latestBy(attempted, (r) => r.lastAttemptAt ?? 0)?.state ?? 'unknown';
}

function latestBy<T>(items: readonly T[], time: (item: T) => number): T | undefined {
  let latest: T | undefined;
  for (const item of items) if (latest === undefined || time(item) > time(latest)) latest = item;
  return latest;
}
