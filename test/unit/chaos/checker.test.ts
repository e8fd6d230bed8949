// The chaos checker and lifetime rule must be able to fail: a checker that never reports a missing event
// would make every fault scenario pass.
import { describe, expect, it } from 'vitest';
import { checkDestination, totals } from '../../chaos/harness/checker.js';
import { judgeLifetimes, type ChurnedSubscription } from '../../chaos/harness/lifetime.js';
import { seqOfEnvelope } from '../../chaos/harness/verifiable-source.js';

describe('checkDestination', () => {
  it('should count missing, duplicated and unexpected deliveries separately', () => {
    const c = checkDestination('d', [1, 2, 3, 4], [2, 2, 2, 3, 9, 9]);
    expect(c).toMatchObject({ expected: 4, deliveries: 6, distinct: 2, missing: 2, duplicates: 2, unexpected: 2 });
    expect(c.missingSample).toEqual([1, 4]);
    expect(c.unexpectedSample).toEqual([9]);
  });

  it('should report nothing missing when every expected event arrived in any order', () => {
    expect(checkDestination('d', [3, 1, 2], [2, 3, 1])).toMatchObject({ missing: 0, duplicates: 0, unexpected: 0 });
  });

  it('should add up the pairs of several destinations', () => {
    const t = totals([checkDestination('a', [1, 2], [1]), checkDestination('b', [1, 2], [1, 2, 2])]);
    expect(t).toEqual({ expected: 4, missing: 1, duplicates: 1, unexpected: 0 });
  });
});

describe('seqOfEnvelope', () => {
  it('should read the sequence number from the url path of an http event and from bytes_in of a tcp event', () => {
    expect(seqOfEnvelope({ event_type: 'http_request_complete.v0', object: { http: { request: { url: { path: '/seq/42' } } } } })).toBe(42);
    expect(seqOfEnvelope({ event_type: 'tcp_connection_closed.v0', object: { conn: { bytes_in: 7 } } })).toBe(7);
    expect(seqOfEnvelope({ event_type: 'http_request_complete.v0', object: { http: { request: { url: { path: '/v1/orders' } } } } })).toBeUndefined();
  });
});

describe('judgeLifetimes', () => {
  // Records 0..99 stamped at t = seq * 100 ms, each delivered to the control destination 50 ms later.
  const stamp = (seq: number): number => seq * 100;
  const control = new Map(Array.from({ length: 100 }, (_, seq) => [seq, stamp(seq) + 50] as [number, number]));
  const sub: ChurnedSubscription = { index: 0, createSent: 900, createdAck: 1_000, deleteSent: 6_000, deletedAck: 6_100, matches: (s) => s % 2 === 0 };

  it('should require the matching records stamped after creation plus the allowance and delivered to the control before the delete was sent', () => {
    const v = judgeLifetimes([sub], new Map([[0, []]]), stamp, control, 2_000, 200);
    // Stamped 3,000..5,900 (seq 30..59), control arrival before 6,000, even: 30, 32, ..., 58.
    expect(v.mustReceive).toBe(15);
    expect(v.missing).toBe(15);
  });

  it('should flag an event stamped after the deletion acknowledgement plus the allowance, and an event the filter does not match', () => {
    const delivered = Array.from({ length: 15 }, (_, i) => 30 + 2 * i);
    const v = judgeLifetimes([sub], new Map([[0, [...delivered, 80, 84, 31]]]), stamp, control, 2_000, 200);
    expect(v).toMatchObject({ missing: 0, afterDeletion: 1, unmatched: 1 });
    expect(v.afterDeletionSample).toEqual([{ subscription: 0, seq: 84, stampedAfterAckMs: 2_300 }]);
  });

  it('should flag an event stamped before the create request less the clock skew allowance, and allow one within it', () => {
    // Create sent at 900 with 200 ms allowance: seq 6 (600) is too old, seq 8 (800) may go either way.
    const v = judgeLifetimes([sub], new Map([[0, [6, 8]]]), stamp, control, 2_000, 200);
    expect(v).toMatchObject({ beforeCreation: 1, afterDeletion: 0, unmatched: 0 });
    expect(v.beforeCreationSample).toEqual([{ subscription: 0, seq: 6, stampedBeforeCreateMs: 300 }]);
  });
});
