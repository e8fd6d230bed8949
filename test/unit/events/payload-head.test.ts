// The head of a payload: the envelope's JSON up to the end of the event id's time digits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPayload, eventIdBytesOfPayload, payloadHead } from '../../../src/events/envelope.js';
import { eventIdOf, eventTimeDigits, pairDigits, recordDigits } from '../../../src/ids.js';

describe('payloadHead', () => {
  it('should be the envelope JSON up to the ten time digits of the event id, for any Kafka timestamp', () => {
    const times = fc.oneof(fc.integer({ min: -1e15, max: 2 ** 53 - 1 }), fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }));
    fc.assert(
      fc.property(times, (ms) => {
        expect(payloadHead(ms).toString('latin1')).toBe(`{"event_id":"ev_${eventTimeDigits(ms)}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('should give each timestamp its own head when records share their millisecond or not', () => {
    const base = Date.UTC(2024, 4, 1);
    // Runs of equal timestamps, as a producer's batch has, between other ones.
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 40 }), (steps) => {
        for (const ms of steps.map((s, i) => base + (s === 0 ? 0 : i))) expect(payloadHead(ms).toString('latin1')).toBe(`{"event_id":"ev_${eventTimeDigits(ms)}`);
      }),
      { numRuns: 300 },
    );
  });
});

describe('eventIdBytesOfPayload', () => {
  it('should view the event id of any payload buildPayload makes, byte for byte the id eventIdOf computes', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Date.UTC(2100, 0, 1) }), fc.nat(1_000_000), fc.string(), (ms, offset, text) => {
        const tail = Buffer.from(`","event_type":"x","object":${JSON.stringify({ text })}}`);
        const pair = pairDigits('sub_1', 'dst_1');
        const payload = buildPayload(payloadHead(ms), recordDigits('edge.http', 3, offset), pair, 0, tail);
        const view = eventIdBytesOfPayload(payload);
        expect(view?.toString('latin1')).toBe(eventIdOf(ms, 'edge.http', 3, offset, 'sub_1', 'dst_1'));
        expect(view?.buffer).toBe(payload.buffer);
      }),
      { numRuns: 500 },
    );
  });

  it('should give nothing for a payload that does not start as buildPayload writes it', () => {
    expect(eventIdBytesOfPayload(Buffer.from(JSON.stringify({ event_type: 'x', event_id: 'ev_0000000000aaaaaaaaaaaaaaaa' })))).toBeUndefined();
    expect(eventIdBytesOfPayload(Buffer.from('{"event_id":"ev_12'))).toBeUndefined();
  });
});
