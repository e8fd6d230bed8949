import { describe, expect, it } from 'vitest';
import { CommitTimer, type PartitionOffset } from '../../../src/kafka/commit-timer.js';

describe('the commit timer of the group consumers', () => {
  it('should send the commits made within its interval as one request, with the latest offset of each partition', async () => {
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

  it('should keep at most one commit per partition in flight and send the latest offset asked for meanwhile', async () => {
    // Issue 22, finding 8: two requests for one partition in flight, and a client retry could land the earlier last.
    const requests: PartitionOffset[][] = [];
    const answers: Array<() => void> = [];
    let inFlight = 0;
    let most = 0;
    const timer = new CommitTimer(async (offsets) => {
      requests.push([...offsets]);
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise<void>((r) => answers.push(r));
      inFlight--;
    }, 1);
    const first = timer.commit('a', 0, 5);
    while (requests.length === 0) await new Promise((r) => setTimeout(r, 2));
    // While 5 is in flight: two more for the same partition, and one for another partition, which need not wait.
    const second = timer.commit('a', 0, 9);
    const third = timer.commit('a', 0, 8);
    const other = timer.commit('a', 1, 4);
    await new Promise((r) => setTimeout(r, 20));
    expect(requests).toEqual([[{ topic: 'a', partition: 0, offset: 5 }], [{ topic: 'a', partition: 1, offset: 4 }]]);
    answers.splice(0).forEach((answer) => answer());
    await Promise.all([first, other]);
    while (requests.length < 3) await new Promise((r) => setTimeout(r, 2));
    // The latest offset asked for wins, not the highest.
    expect(requests[2]).toEqual([{ topic: 'a', partition: 0, offset: 8 }]);
    answers.splice(0).forEach((answer) => answer());
    await Promise.all([second, third]);
    expect(most).toBeLessThanOrEqual(2);
    const flushed = timer.commit('a', 0, 11);
    const flushing = timer.flush();
    while (answers.length === 0) await new Promise((r) => setTimeout(r, 2));
    answers.splice(0).forEach((answer) => answer());
    await Promise.all([flushed, flushing]);
    expect(requests[3]).toEqual([{ topic: 'a', partition: 0, offset: 11 }]);
  });

  it('should give up waiting for a commit the broker leaves unanswered once the flush deadline passed', async () => {
    const timer = new CommitTimer(() => new Promise<void>(() => undefined), 1);
    void timer.commit('a', 0, 3).catch(() => undefined);
    const started = Date.now();
    expect(await timer.flush(50)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
