// The worker's view of its consumer group: ownership per join, and what the coordinator's group errors mean.
import { describe, expect, it } from 'vitest';
import { GroupMembership, assignmentText } from '../../../src/ingest/group-membership.js';

describe('group membership', () => {
  it('should own the assigned partitions only in the generation of the join that assigned them', () => {
    const m = new GroupMembership();
    m.joined({ raw: [0, 2] });
    const g = m.generation;
    expect([m.owns('raw', 0, g), m.owns('raw', 1, g), m.owns('other', 0, g)]).toEqual([true, false, false]);
    m.joined({ raw: [0] });
    expect([m.owns('raw', 0, g), m.owns('raw', 0, m.generation)]).toEqual([false, true]);
  });

  it('should start the drain deadline at a rebalance and still let the current generation commit', () => {
    const m = new GroupMembership();
    m.joined({ raw: [0] });
    expect(m.drainDeadline(5_000)).toBe(Number.POSITIVE_INFINITY);
    const before = Date.now();
    m.groupError('REBALANCE_IN_PROGRESS');
    expect(m.rebalancing).toBe(true);
    expect(m.drainDeadline(5_000)).toBeGreaterThanOrEqual(before + 5_000);
    expect(m.owns('raw', 0, m.generation)).toBe(true);
  });

  it('should stop commits once the group has moved on without this member, until it joins again', () => {
    for (const type of ['UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION']) {
      const m = new GroupMembership();
      m.joined({ raw: [0] });
      m.groupError(type);
      expect([m.rebalancing, m.owns('raw', 0, m.generation)]).toEqual([true, false]);
      m.joined({ raw: [0] });
      expect([m.rebalancing, m.owns('raw', 0, m.generation)]).toEqual([false, true]);
    }
  });

  it('should ignore errors that say nothing about the group, such as a coordinator that moved', () => {
    const m = new GroupMembership();
    m.joined({ raw: [0] });
    m.groupError('NOT_COORDINATOR_FOR_GROUP');
    expect([m.rebalancing, m.owns('raw', 0, m.generation)]).toEqual([false, true]);
  });
});

describe('the join log line', () => {
  it('should write an assignment as each topic with its partitions as ranges, short enough to read', () => {
    const assignment = { 'edge.traffic.tcp_connection_closed.v0': [5, 0, 1, 2, 3, 4], 'edge.audit': [0, 1, 2], 'edge.traffic.http_request_complete.v0': [0, 2, 3, 5], 'edge.empty': [] };
    const text = assignmentText(assignment);
    expect(text).toBe('edge.audit 0-2; edge.traffic.http_request_complete.v0 0,2-3,5; edge.traffic.tcp_connection_closed.v0 0-5');
    expect(assignmentText({})).toBe('none');
  });
});
