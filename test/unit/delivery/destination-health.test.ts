import { describe, expect, it } from 'vitest';
import { DestinationHealth, REMIND_EVERY_MS } from '../../../src/delivery/destination-health.js';
import { DeliveryError } from '../../../src/delivery/errors.js';
import { createRootLogger } from '../../../src/telemetry/logger.js';
import { VirtualClock } from './fakes.js';

function setup() {
  const lines: Array<{ msg: string; level: number; code?: string }> = [];
  const logger = createRootLogger({ write: (s: string) => void lines.push(JSON.parse(s) as { msg: string; level: number }) }, 'info');
  const clock = new VirtualClock();
  const health = new DestinationHealth('ed_1', logger, clock);
  return { health, clock, lines, messages: () => lines.map((l) => l.msg) };
}

const refused = new DeliveryError('DESTINATION_UNREACHABLE', 'connection refused');

describe('destination health', () => {
  it('should log once per state change, not once per failed attempt', () => {
    const { health, clock, messages } = setup();
    expect(health.status.state).toBe('unknown');
    health.delivered(5);
    for (let i = 0; i < 50; i++) {
      clock.t += 100;
      health.failed(refused);
    }
    expect(health.status.state).toBe('failing');
    health.parked(10, refused);
    for (let i = 0; i < 50; i++) health.parked(10, refused);
    expect(health.status.state).toBe('parked');
    health.delivered(1);
    expect(health.status.state).toBe('ok');
    expect(messages()).toEqual([
      'The destination is failing.',
      'The destination spent its retry budget, or its deliveries waited for it past PARK_AFTER_MS; they are parked in its retry topic and will be re-driven.',
      'The destination delivers again.',
    ]);
  });

  it('should stay parked through deliveries made while new events still park at once, and record them', () => {
    const { health, clock } = setup();
    const slow = new DeliveryError('DESTINATION_TIMEOUT', 'The destination is slow');
    health.parked(10, slow);
    clock.t += 1_000;
    health.delivered(500, true);
    expect(health.status.state).toBe('parked');
    expect(health.status.lastDeliveredAt).toBe(clock.t);
    expect(health.status.lastError?.code).toBe('DESTINATION_TIMEOUT');
    health.delivered(500);
    expect(health.status.state).toBe('ok');
  });

  it('should say at most once a minute that a destination is still failing, with the attempts since the last line', () => {
    const { health, clock, lines } = setup();
    health.failed(refused);
    for (let i = 0; i < 300; i++) {
      clock.t += 1_000;
      health.failed(refused);
    }
    const still = lines.filter((l) => l.msg === 'The destination is still failing.');
    // 300 s of failures a second apart: one line when it started failing, then one a minute.
    expect(still).toHaveLength(Math.floor(300_000 / REMIND_EVERY_MS));
    expect(still[0]).toMatchObject({ failedAttempts: 60, code: 'DESTINATION_UNREACHABLE' });
  });

  it('should report the destination’s own error behind a fail-fast one as the last error', () => {
    const { health } = setup();
    const misconfigured = new DeliveryError('DESTINATION_MISCONFIGURED', 'The destination cannot run as configured: no key');
    const failedFast = new DeliveryError('DESTINATION_UNHEALTHY', 'parked since ...', { cause: misconfigured });
    health.failed(new DeliveryError('DESTINATION_UNHEALTHY', 'parked since ... after DESTINATION_UNHEALTHY', { cause: failedFast }));
    expect(health.status.lastError).toMatchObject({ code: 'DESTINATION_MISCONFIGURED', message: misconfigured.message });
  });

  it('should record when the last attempt ended, and start afresh when the target changes, keeping the last error and delivery', () => {
    const { health, clock } = setup();
    health.delivered(3);
    const deliveredAt = clock.t;
    clock.t += 500;
    health.failed(refused);
    expect(health.status).toMatchObject({ state: 'failing', lastAttemptAt: clock.t, lastDeliveredAt: deliveredAt });
    health.reconfigured();
    expect(health.status).toMatchObject({ state: 'unknown', lastAttemptAt: undefined, lastDeliveredAt: deliveredAt, lastError: { code: 'DESTINATION_UNREACHABLE' } });
  });

  it("should never record the destination's own secret in its last error, nor log it", () => {
    const { health, lines } = setup();
    health.useSecrets(['a-signing-secret-of-32-characters']);
    health.failed(new DeliveryError('DESTINATION_REJECTED', 'HTTP 400: bad signature for key a-signing-secret-of-32-characters'));
    expect(health.status.lastError?.message).toBe('HTTP 400: bad signature for key [redacted]');
    expect(JSON.stringify(lines)).not.toContain('a-signing-secret-of-32-characters');
  });

  it('should show a destination that failed its check at start as failing, with the reason', () => {
    const { health, messages } = setup();
    health.checkFailed(new DeliveryError('DESTINATION_NOT_FOUND', 'The check of target.data_stream.stream_arn failed: ResourceNotFoundException: no stream'));
    expect(health.status).toMatchObject({ state: 'failing', lastError: { code: 'DESTINATION_NOT_FOUND' } });
    expect(messages()).toEqual(['The destination failed its check at start; its events will be retried and parked until it is fixed.']);
  });

  it('should show a first connect that failed as failing with the reason, unless an attempt came first', () => {
    const { health, messages } = setup();
    health.connectFailed(refused);
    expect(health.status).toMatchObject({ state: 'failing', lastError: { code: 'DESTINATION_UNREACHABLE', message: 'connection refused' } });
    expect(messages()).toEqual(['The destination could not be reached; its events will be retried and parked until it can.']);
    const late = setup();
    late.health.delivered(2);
    late.health.connectFailed(refused);
    expect(late.health.status.state).toBe('ok');
    expect(late.health.status.lastError).toBeUndefined();
  });
});
