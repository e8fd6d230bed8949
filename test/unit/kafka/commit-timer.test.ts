import { describe, expect, it } from 'vitest';
import { CommitTimer, type PartitionOffset } from '../../../src/kafka/platformatic/commit-timer.js';

describe('the commit timer of the platformatic consumer', () => {
  it('should send the commits made within its interval as one request, with the highest offset of each partition', async () => {
    const requests: PartitionOffset[][] = [];
    const timer = new CommitTimer(async (offsets) => void requests.push([...offsets]), 20);
    await Promise.all([timer.commit('a', 0, 10), timer.commit('a', 1, 5), timer.commit('a', 0, 12), timer.commit('b', 0, 3)]);
    expect(requests).toEqual([
      [
        { topic: 'a', partition: 0, offset: 12 },
        { topic: 'a', partition: 1, offset: 5 },
        { topic: 'b', partition: 0, offset: 3 },
      ],
    ]);
    await timer.commit('a', 0, 20);
    expect(requests).toHaveLength(2);
  });

  it('should reject every commit of a request that failed, and send later ones afresh', async () => {
    let fail = true;
    const requests: PartitionOffset[][] = [];
    const timer = new CommitTimer(async (offsets) => {
      requests.push([...offsets]);
      if (fail) throw new Error('the coordinator moved');
    }, 5);
    const results = await Promise.allSettled([timer.commit('a', 0, 1), timer.commit('a', 1, 1)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await expect(timer.commit('a', 0, 2)).resolves.toBeUndefined();
    expect(requests.map((r) => r.length)).toEqual([2, 1]);
  });

  it('should send what is pending at once when flushed, before its interval', async () => {
    const requests: PartitionOffset[][] = [];
    const timer = new CommitTimer(async (offsets) => void requests.push([...offsets]), 60_000);
    const committed = timer.commit('a', 0, 7);
    await timer.flush();
    await committed;
    expect(requests).toEqual([[{ topic: 'a', partition: 0, offset: 7 }]]);
  });
});
