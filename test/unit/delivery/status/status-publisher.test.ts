import { describe, expect, it } from 'vitest';
import type { DestinationStatus } from '../../../../src/delivery/destination-health.js';
import { StatusPublisher } from '../../../../src/delivery/status/status-publisher.js';
import type { KafkaClient, OutgoingMessage } from '../../../../src/kafka/seam.js';
import { decodeReport, type ParkedBacklog } from '../../../../src/delivery/status/status-report.js';
import { createRootLogger } from '../../../../src/telemetry/logger.js';
import { VirtualClock } from '../fakes.js';

/** Just the producer calls the publisher makes; `down` makes sends fail. */
class RecordingKafka {
  readonly sends: OutgoingMessage[][] = [];
  down = false;
  idempotentProducer() {
    return {
      connect: async () => undefined,
      close: async () => undefined,
      send: async (_topic: string, messages: readonly OutgoingMessage[]) => {
        if (this.down) throw new Error('the broker is down');
        this.sends.push([...messages]);
      },
    };
  }
}

const ok = (at: number): DestinationStatus => ({ state: 'ok', since: at, lastError: undefined, lastDeliveredAt: at, lastAttemptAt: at , stalledSince: undefined });

function setup() {
  const kafka = new RecordingKafka();
  const clock = new VirtualClock();
  const health = new Map<string, DestinationStatus>();
  const backlog = new Map<string, ParkedBacklog>();
  const publisher = new StatusPublisher({
    kafka: kafka as unknown as KafkaClient,
    topic: 'edge.status',
    workerId: 'w1',
    health: { statuses: () => health.entries() },
    parked: { backlog: (id) => backlog.get(id), oldestParkedAt: () => undefined },
    intervalMs: 15_000,
    clock,
    logger: createRootLogger({ write: () => undefined }, 'info'),
  });
  const sent = () => kafka.sends.flat().map((m) => ({ key: String(m.key), report: m.value === null ? null : decodeReport(m.value as Buffer) }));
  return { kafka, clock, health, backlog, publisher, sent };
}

describe('status publisher', () => {
  it('should send a report when something that matters changes, and otherwise once an interval', async () => {
    const { clock, health, publisher, sent } = setup();
    health.set('ed_quiet', { state: 'unknown', since: clock.t, lastError: undefined, lastDeliveredAt: undefined, lastAttemptAt: undefined , stalledSince: undefined });
    health.set('ed_1', ok(clock.t));
    await publisher.publish();
    // Nothing to say about a destination never tried.
    expect(sent().map((s) => s.key)).toEqual(['ed_1/w1']);
    expect(sent()[0]?.report).toMatchObject({ destination: 'ed_1', worker: 'w1', state: 'ok', stopped: false });

    // A newer delivery alone waits for the interval; a failure goes at once.
    clock.t += 1_000;
    health.set('ed_1', { ...ok(clock.t - 1_000), lastDeliveredAt: clock.t, lastAttemptAt: clock.t });
    await publisher.publish();
    expect(sent()).toHaveLength(1);
    clock.t += 1_000;
    health.set('ed_1', { state: 'failing', since: clock.t, lastError: { code: 'DESTINATION_UNREACHABLE', message: 'refused', at: clock.t }, lastDeliveredAt: clock.t - 1_000, lastAttemptAt: clock.t, stalledSince: undefined });
    await publisher.publish();
    expect(sent().map((s) => s.report?.state)).toEqual(['ok', 'failing']);
    clock.t += 15_000;
    await publisher.publish();
    expect(sent().map((s) => s.report?.state)).toEqual(['ok', 'failing', 'failing']);
  });

  it('should send a parked backlog as it changes, even from a worker that never delivered', async () => {
    const { clock, health, backlog, publisher, sent } = setup();
    health.set('ed_2', { state: 'unknown', since: clock.t, lastError: undefined, lastDeliveredAt: undefined, lastAttemptAt: undefined , stalledSince: undefined });
    backlog.set('ed_2', { events: 0, checkedAt: clock.t });
    await publisher.publish();
    expect(sent()).toEqual([]);
    backlog.set('ed_2', { events: 7, checkedAt: clock.t });
    await publisher.publish();
    backlog.set('ed_2', { events: 0, checkedAt: clock.t + 1 });
    await publisher.publish();
    expect(sent().map((s) => s.report?.parked?.events)).toEqual([7, 0]);
  });

  it('should tombstone the report of a deleted destination, mark every report stopped at a stop, and send again what a failed send lost', async () => {
    const { kafka, clock, health, publisher, sent } = setup();
    health.set('ed_1', ok(clock.t));
    health.set('ed_2', ok(clock.t));
    kafka.down = true;
    await publisher.publish();
    expect(sent()).toEqual([]);
    kafka.down = false;
    await publisher.publish();
    expect(sent().map((s) => s.key)).toEqual(['ed_1/w1', 'ed_2/w1']);
    health.delete('ed_2');
    await publisher.publish();
    expect(sent().at(-1)).toEqual({ key: 'ed_2/w1', report: null });
    await publisher.stop();
    expect(sent().at(-1)).toMatchObject({ key: 'ed_1/w1', report: { stopped: true } });
  });
});
