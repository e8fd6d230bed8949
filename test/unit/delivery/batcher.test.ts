import { describe, expect, it } from 'vitest';
import { Batcher } from '../../../src/delivery/batcher.js';
import { item } from './fakes.js';

describe('batcher', () => {
  it('should take the longest prefix within the count limit', () => {
    const b = new Batcher({ maxRecords: 2, maxBytes: 1000, recordOverheadBytes: 0 });
    const items = [item(), item(), item()];
    items.forEach((i) => b.push(i, 0));
    expect(b.isFull()).toBe(true);
    expect(b.take()).toEqual(items.slice(0, 2));
    expect(b.take()).toEqual(items.slice(2));
    expect(b.size).toBe(0);
    expect(b.bytes).toBe(0);
  });

  it('should take the longest prefix within the byte limit, overhead included', () => {
    const b = new Batcher({ maxRecords: 100, maxBytes: 50, recordOverheadBytes: 5 });
    const items = [item(20), item(20), item(20)];
    items.forEach((i) => b.push(i, 0));
    expect(b.bytes).toBe(75);
    expect(b.take()).toEqual(items.slice(0, 2));
    expect(b.bytes).toBe(25);
  });

  it('should still move a single record bigger than the byte limit', () => {
    const b = new Batcher({ maxRecords: 100, maxBytes: 10, recordOverheadBytes: 0 });
    const big = item(40);
    b.push(big, 0);
    b.push(item(5), 0);
    expect(b.take()).toEqual([big]);
  });

  it('should report the arrival time of the oldest queued item', () => {
    const b = new Batcher({ maxRecords: 1, maxBytes: 1000, recordOverheadBytes: 0 });
    expect(b.oldestAt).toBeUndefined();
    b.push(item(), 5);
    b.push(item(), 9);
    expect(b.oldestAt).toBe(5);
    b.take();
    expect(b.oldestAt).toBe(9);
  });

  it('should keep order and byte count through many pushes and takes', () => {
    const b = new Batcher({ maxRecords: 7, maxBytes: 1 << 20, recordOverheadBytes: 1 });
    const pushed = Array.from({ length: 5000 }, () => item(10));
    const taken = [];
    for (const [n, i] of pushed.entries()) {
      b.push(i, n);
      if (n % 3 === 0) taken.push(...b.take());
    }
    while (b.size > 0) taken.push(...b.take());
    expect(taken).toEqual(pushed);
    expect(b.bytes).toBe(0);
  });

  it('should remove matching items and keep the rest in order', () => {
    const b = new Batcher({ maxRecords: 10, maxBytes: 1000, recordOverheadBytes: 0 });
    const items = [item(10), item(10), item(10)];
    items.forEach((i, n) => b.push(i, n));
    expect(b.remove((i) => i === items[1])).toEqual([items[1]]);
    expect(b.bytes).toBe(20);
    expect(b.take()).toEqual([items[0], items[2]]);
  });

  it('should not put items of two lanes in one batch, and remove only the matching items that arrived by a time', () => {
    const consumed = (n: number) => item(10, { topic: 't', partition: 0, offset: n });
    const b = new Batcher({ maxRecords: 10, maxBytes: 1000, recordOverheadBytes: 0 }, (i) => i.source !== undefined);
    const items = [consumed(0), consumed(1), item(10), item(10), consumed(2)];
    items.forEach((i, n) => b.push(i, n * 10));
    expect(b.firstArrival((i) => i.source === undefined)).toBe(20);
    expect(b.remove((i) => i.source !== undefined, 10)).toEqual([items[0], items[1]]);
    expect(b.take()).toEqual([items[2], items[3]]);
    expect(b.take()).toEqual([items[4]]);
    expect(b.firstArrival(() => true)).toBeUndefined();
  });
});
