// The lifetime rule of the config churn scenario: which events a subscription must, may and must not
// receive, judged from record timestamps, the API's acknowledgements and a control destination.
//
// A record's Kafka timestamp (CreateTime, set by the source before sending) is no later than the moment
// the worker routes it, and the routing is no later than its delivery to the control destination, which
// receives every record. A change reaches every worker's view within PROPAGATION_MS of the API
// acknowledging it. A subscription receives only records stamped at or after its created_at less the
// worker's clock skew allowance (SUBSCRIPTION_CLOCK_SKEW_MS), and the API sets created_at after the
// create request was sent. So, for a subscription S created (request sent at createSent, acknowledged
// at createdAck) and deleted (request sent at deleteSent, acknowledged at deletedAck):
// - must receive: the records S's filter matches with timestamp >= createdAck + PROPAGATION_MS whose
//   control delivery came before deleteSent — they were routed while S was in the worker's view, and
//   stamped after S was created;
// - must not receive: any record with timestamp > deletedAck + PROPAGATION_MS — it was routed after the
//   worker applied the deletion; any record stamped before createSent less the allowance — it was
//   produced before S existed; nor any record S's filter does not match;
// - anything else (routed while the change was on its way) may go either way.

/** The bound this rule assumes on how long an acknowledged change takes to reach every worker. */
export const PROPAGATION_MS = 2_000;

export interface ChurnedSubscription {
  readonly index: number;
  readonly createSent: number;
  readonly createdAck: number;
  readonly deleteSent: number;
  readonly deletedAck: number;
  /** The records its filter matches. */
  matches(seq: number): boolean;
}

export interface LifetimeVerdict {
  readonly mustReceive: number;
  readonly missing: number;
  readonly duplicates: number;
  /** Events of records stamped after the deletion was acknowledged (plus the allowance). */
  readonly afterDeletion: number;
  /** Events of records stamped before the create request was sent (less the clock skew allowance). */
  readonly beforeCreation: number;
  /** Events of records the filter does not match. */
  readonly unmatched: number;
  readonly missingSample: ReadonlyArray<{ subscription: number; seq: number }>;
  readonly afterDeletionSample: ReadonlyArray<{ subscription: number; seq: number; stampedAfterAckMs: number }>;
  readonly beforeCreationSample: ReadonlyArray<{ subscription: number; seq: number; stampedBeforeCreateMs: number }>;
}

export function judgeLifetimes(
  subscriptions: readonly ChurnedSubscription[],
  delivered: ReadonlyMap<number, readonly number[]>,
  timestampOf: (seq: number) => number | undefined,
  controlArrival: ReadonlyMap<number, number>,
  propagationMs: number,
  clockSkewMs: number,
): LifetimeVerdict {
  const byTime: Stamped[] = [];
  for (const [seq, arrived] of controlArrival) {
    const ts = timestampOf(seq);
    if (ts !== undefined) byTime.push({ seq, ts, arrived });
  }
  byTime.sort((a, b) => a.ts - b.ts);
  let mustReceive = 0;
  let missing = 0;
  let duplicates = 0;
  let afterDeletion = 0;
  let beforeCreation = 0;
  let unmatched = 0;
  const missingSample: Array<{ subscription: number; seq: number }> = [];
  const afterDeletionSample: Array<{ subscription: number; seq: number; stampedAfterAckMs: number }> = [];
  const beforeCreationSample: Array<{ subscription: number; seq: number; stampedBeforeCreateMs: number }> = [];
  for (const s of subscriptions) {
    const got = new Map<number, number>();
    for (const seq of delivered.get(s.index) ?? []) got.set(seq, (got.get(seq) ?? 0) + 1);
    for (const [seq, n] of got) {
      duplicates += n - 1;
      const ts = timestampOf(seq);
      if (!s.matches(seq)) unmatched += n;
      else if (ts !== undefined && ts > s.deletedAck + propagationMs) {
        afterDeletion += n;
        if (afterDeletionSample.length < 10) afterDeletionSample.push({ subscription: s.index, seq, stampedAfterAckMs: ts - s.deletedAck });
      } else if (ts !== undefined && ts < s.createSent - clockSkewMs) {
        beforeCreation += n;
        if (beforeCreationSample.length < 10) beforeCreationSample.push({ subscription: s.index, seq, stampedBeforeCreateMs: s.createSent - ts });
      }
    }
    // Control arrivals come after their timestamps, so only records stamped before deleteSent can qualify.
    for (let i = firstAtOrAfter(byTime, s.createdAck + propagationMs); i < byTime.length; i++) {
      const { seq, ts, arrived } = byTime[i] as Stamped;
      if (ts >= s.deleteSent) break;
      if (arrived >= s.deleteSent || !s.matches(seq)) continue;
      mustReceive++;
      if (!got.has(seq)) {
        missing++;
        if (missingSample.length < 10) missingSample.push({ subscription: s.index, seq });
      }
    }
  }
  return { mustReceive, missing, duplicates, afterDeletion, beforeCreation, unmatched, missingSample, afterDeletionSample, beforeCreationSample };
}

interface Stamped {
  readonly seq: number;
  readonly ts: number;
  readonly arrived: number;
}

/** The index of the first entry stamped at or after `t` (binary search). */
function firstAtOrAfter(list: readonly Stamped[], t: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as Stamped).ts < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
