import { describe, expect, it } from 'vitest';
import { decodeHealthRecord, encodeHealthRecord, healthPayload, healthStateOf, nextStep, type HealthRecord } from '../../../src/delivery/health/health-transition.js';
import { UNKNOWN_STATUS, type DestinationStatusSummary } from '../../../src/delivery/status/status-aggregate.js';

const MIN = 60_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const ok: HealthRecord = { state: 'ok', seq: 0, emittedAt: 0 };

describe('health transitions', () => {
  it('should read stalled over any state, the status state otherwise, and nothing of unknown', () => {
    expect(healthStateOf({ ...UNKNOWN_STATUS, state: 'parked', stalledSince: T0 })).toBe('stalled');
    expect(healthStateOf({ ...UNKNOWN_STATUS, state: 'failing' })).toBe('failing');
    expect(healthStateOf(UNKNOWN_STATUS)).toBeUndefined();
  });

  it('should keep a first ok without an event, and give a first failure an event from unknown', () => {
    expect(nextStep(undefined, 'ok', T0, MIN)).toEqual({ kind: 'baseline', record: ok });
    expect(nextStep(undefined, 'failing', T0, MIN)).toEqual({ kind: 'event', before: 'unknown', record: { state: 'failing', seq: 1, emittedAt: T0 } });
    expect(nextStep(undefined, undefined, T0, MIN)).toEqual({ kind: 'none' });
  });

  it('should emit a change at once after a baseline, and hold the next one until the interval since the last event has passed', () => {
    const first = nextStep(ok, 'failing', T0, MIN);
    expect(first).toEqual({ kind: 'event', before: 'ok', record: { state: 'failing', seq: 1, emittedAt: T0 } });
    const failing = (first as { record: HealthRecord }).record;
    expect(nextStep(failing, 'ok', T0 + MIN - 1, MIN)).toEqual({ kind: 'held' });
    expect(nextStep(failing, 'ok', T0 + MIN, MIN)).toEqual({ kind: 'event', before: 'failing', record: { state: 'ok', seq: 2, emittedAt: T0 + MIN } });
    // Back to the state the last event gave, or unknown: nothing to tell.
    expect(nextStep(failing, 'failing', T0 + 5 * MIN, MIN)).toEqual({ kind: 'none' });
    expect(nextStep(failing, undefined, T0 + 5 * MIN, MIN)).toEqual({ kind: 'none' });
  });

  it('should bound a destination flapping every second to one event per interval', () => {
    let last: HealthRecord | undefined = ok;
    let events = 0;
    for (let s = 0; s < 600; s++) {
      const step = nextStep(last, s % 2 === 0 ? 'failing' : 'ok', T0 + s * 1_000, MIN);
      if (step.kind === 'event') {
        events++;
        last = step.record;
      }
    }
    // 10 minutes of flapping: at most one a minute, the first at once.
    expect(events).toBeLessThanOrEqual(11);
    expect(events).toBeGreaterThanOrEqual(5);
  });

  it('should carry the reason and code while failing, not once ok, and at least one transition', () => {
    const s: DestinationStatusSummary = { ...UNKNOWN_STATUS, state: 'failing', lastError: { code: 'DESTINATION_ERROR', message: 'The receiver answered 500.', at: T0 }, lastDeliveredAt: T0 - 1_000 };
    const d = { id: 'ed_1', accountId: 'acct_1', uri: 'https://api.example.com/event_destinations/ed_1' };
    expect(healthPayload(d, s, 'ok', 'failing', T0, 0)).toEqual({
      account_id: 'acct_1',
      destination: { id: 'ed_1', uri: d.uri },
      state_before: 'ok',
      state: 'failing',
      reason: 'The receiver answered 500.',
      error_code: 'DESTINATION_ERROR',
      parked_events: 0,
      last_delivered_at: new Date(T0 - 1_000).toISOString(),
      stalled_since: null,
      changed_at: new Date(T0).toISOString(),
      transitions: 1,
    });
    expect(healthPayload(d, { ...s, state: 'ok' }, 'failing', 'ok', T0, 3)).toMatchObject({ reason: null, error_code: null, transitions: 3 });
  });

  it('should read back the records it writes and refuse others', () => {
    const r: HealthRecord = { state: 'parked', seq: 4, emittedAt: T0 };
    expect(decodeHealthRecord(encodeHealthRecord(r))).toEqual(r);
    expect(decodeHealthRecord(Buffer.from('{"v":1,"state":"unknown","seq":1,"emitted_at":0}'))).toBeUndefined();
    expect(decodeHealthRecord(Buffer.from('not json'))).toBeUndefined();
  });
});
