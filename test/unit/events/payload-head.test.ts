// The head of a payload: the envelope's JSON up to the end of the event id's time digits.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { payloadHead } from '../../../src/events/envelope.js';
import { eventTimeDigits } from '../../../src/ids.js';

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
});
