import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from '../../../../src/kafka/seam.js';
import { DeliveryError } from '../../../../src/delivery/errors.js';
import { PARKING_HEADERS, fromParkedMessage, metaOf, retryTopic, toParkedMessage } from '../../../../src/delivery/parking/parked-record.js';

function asConsumed(m: { key?: unknown; value: unknown; headers?: unknown }, offset: string): IncomingMessage {
  const headers = Object.fromEntries(Object.entries((m.headers ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v)]));
  return { key: Buffer.from(String(m.key)), value: m.value as Buffer, headers, offset, timestamp: '0' };
}

describe('parked records', () => {
  it('should name the retry topic after the destination', () => {
    expect(retryTopic('edge.retry.', 'ed_01ABC')).toBe('edge.retry.ed_01ABC');
  });

  it('should round-trip a delivery, pointing it at its retry-topic offset and remembering where it came from', () => {
    const item = { eventId: 'ev_1', payload: Buffer.from('{"event_id":"ev_1"}'), source: { topic: 'edge.traffic.x', partition: 2, offset: 41 } };
    const m = toParkedMessage(item, 'ed_1', new DeliveryError('DESTINATION_TIMEOUT', 'slow'), 1_000);
    expect(m.headers).toMatchObject({ [PARKING_HEADERS.parkedAt]: '1000', [PARKING_HEADERS.parkCount]: '1', [PARKING_HEADERS.errorCode]: 'DESTINATION_TIMEOUT' });
    const back = fromParkedMessage('edge.retry.ed_1', 0, asConsumed(m, '7'))!;
    expect(back).toMatchObject({ eventId: 'ev_1', payload: item.payload, source: { topic: 'edge.retry.ed_1', partition: 0, offset: 7 } });
    expect(metaOf(back)).toEqual({ parkedAt: 1_000, parkCount: 1, origin: item.source });

    // Parked again later: first parked-at and origin stay, the count goes up.
    const again = toParkedMessage(back, 'ed_1', new DeliveryError('DESTINATION_THROTTLED', 'slow down'), 9_000);
    expect(again.headers).toMatchObject({
      [PARKING_HEADERS.parkedAt]: '1000',
      [PARKING_HEADERS.parkCount]: '2',
      [PARKING_HEADERS.sourceTopic]: 'edge.traffic.x',
      [PARKING_HEADERS.sourceOffset]: '41',
    });
  });

  it('should keep the subscription of a delivery through parking and parking again, and none for a test event', () => {
    const item = { eventId: 'ev_2', payload: Buffer.from('{"event_id":"ev_2"}'), source: { topic: 'edge.traffic.x', partition: 0, offset: 3 }, subscriptionId: 'esb_1' };
    const m = toParkedMessage(item, 'ed_1', new DeliveryError('DESTINATION_TIMEOUT', 'slow'), 1_000);
    expect(m.headers).toMatchObject({ [PARKING_HEADERS.subscriptionId]: 'esb_1' });
    const back = fromParkedMessage('edge.retry.ed_1', 0, asConsumed(m, '8'))!;
    expect(back.subscriptionId).toBe('esb_1');
    const again = toParkedMessage(back, 'ed_1', new DeliveryError('DESTINATION_TIMEOUT', 'slow'), 2_000);
    expect(fromParkedMessage('edge.retry.ed_1', 0, asConsumed(again, '9'))?.subscriptionId).toBe('esb_1');

    const testEvent = toParkedMessage({ eventId: 'ev_3', payload: Buffer.from('{}') }, 'ed_1', new DeliveryError('DESTINATION_TIMEOUT', 'slow'), 1_000);
    expect(Object.keys(testEvent.headers ?? {})).not.toContain(PARKING_HEADERS.subscriptionId);
    expect(fromParkedMessage('edge.retry.ed_1', 0, asConsumed(testEvent, '10'))).not.toHaveProperty('subscriptionId');
  });

  it('should skip a record without a value', () => {
    expect(fromParkedMessage('t', 0, asConsumed({ key: 'k', value: null }, '1'))).toBeUndefined();
  });
});
