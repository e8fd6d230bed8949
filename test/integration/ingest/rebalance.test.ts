// Rebalances on the real broker with two workers in one group and a destination that hangs: the revoked
// work is drained or abandoned within the drain deadline, and nothing is lost.
import { expect, it } from 'vitest';
import { checkDestination } from '../../chaos/harness/checker.js';
import { HttpSink, type SinkMode } from '../../chaos/harness/http-sink.js';
import { ServiceFleet, chaosKafka, chaosPrefix, chaosTopics, createChaosTopics, destination, subscription, writeConfig } from '../../chaos/harness/service-cluster.js';
import { waitFor } from '../../chaos/harness/timing.js';
import { SEQ_FIELDS, VerifiableSource } from '../../chaos/harness/verifiable-source.js';
import type { ServiceProcess } from '../../support/service-process.js';
import { testBrokers } from '../../support/kafka.js';

const DRAIN_TIMEOUT_MS = 3_000;
const HTTP = 'http_request_complete.v0';
const TCP = 'tcp_connection_closed.v0';

/** The worker logs each completed join of its group with its duration (start or rebalance to assignment) and the assignment. */
function joins(p: ServiceProcess, groupId: string): Array<{ duration: number; partitions: number }> {
  return p.logs
    .filter((l) => l.includes('The worker joined its consumer group.'))
    .map((l) => JSON.parse(l) as { group: string; durationMs: number; partitions: number })
    .filter((j) => j.group === groupId)
    .map((j) => ({ duration: j.durationMs, partitions: j.partitions }));
}

interface Rig {
  readonly sink: HttpSink;
  readonly source: VerifiableSource;
  readonly fleet: ServiceFleet;
}

/**
 * Topics of 4 partitions, one subscription to every record delivering to the sink's "slow" path (answering
 * as `mode` says, with the writer's own timeout `timeoutMs` when given), and a fleet with the drain
 * deadline; `body` starts the workers, and everything is torn down after it.
 */
async function withRig(name: string, drainTimeoutMs: number, mode: SinkMode, timeoutMs: number | undefined, body: (rig: Rig) => Promise<void>): Promise<void> {
  const prefix = chaosPrefix(name);
  const topics = chaosTopics(prefix);
  const kafka = chaosKafka(testBrokers(), `${name}-test`);
  const sink = new HttpSink();
  const source = new VerifiableSource(kafka, topics);
  const fleet = new ServiceFleet(ServiceFleet.env(prefix, testBrokers(), { DRAIN_TIMEOUT_MS: String(drainTimeoutMs) }));
  try {
    await sink.start();
    sink.setMode('slow', mode);
    await createChaosTopics(kafka, topics, { partitions: 4 });
    const slow = destination({ http: { url: sink.url('slow'), ...(timeoutMs !== undefined && { timeout_ms: timeoutMs }) } }, 'slow');
    const sources = [{ type: HTTP, fields: [...SEQ_FIELDS[HTTP]] }, { type: TCP, fields: [...SEQ_FIELDS[TCP]] }];
    await writeConfig(kafka, topics.config, [slow], [subscription('everything', sources, [slow.id])]);
    await body({ sink, source, fleet });
  } finally {
    await fleet.stopAll('SIGKILL');
    await Promise.allSettled([sink.stop(), source.close()]);
  }
}

it('a worker joining while the first waits on a hung destination should get its partitions within the drain deadline, and no event should be lost when it leaves again', async () => {
  // The writer's own timeout is far beyond the test: only the drain deadline can end the wait.
  await withRig('rebalance', DRAIN_TIMEOUT_MS, { kind: 'hang' }, 300_000, async ({ sink, source, fleet }) => {
    const first = await fleet.start();
    await source.produce(0, 400);
    await waitFor('the first worker to wait on the hung destination', () => sink.of('slow').refused > 0, 60_000);

    // The second worker's start-up waits for its first assignment.
    const second = await fleet.start();
    const joined = joins(second, fleet.env.CONSUMER_GROUP as string);
    expect(joined.length, second.logs.slice(-20).join('\n')).toBeGreaterThan(0);
    // The first worker notices the rebalance at its next heartbeat (3 s), drains for the deadline, and rejoins.
    expect(joined[0]?.duration).toBeLessThan(DRAIN_TIMEOUT_MS + 3_000 + 6_000);
    expect(joined[0]?.partitions).toBeGreaterThan(0);

    sink.setMode('slow', { kind: 'ok' });
    await source.produce(400, 800);
    const all = (n: number): number[] => Array.from({ length: n }, (_, i) => i);
    await waitFor('800 events', () => checkDestination('slow', all(800), sink.of('slow').seqs).missing === 0, 60_000);

    // The second worker leaves: the first gets every partition back, with its bookkeeping of the ones it had before.
    await fleet.stop(second);
    await source.produce(800, 1_200);
    await waitFor('1,200 events', () => checkDestination('slow', all(1_200), sink.of('slow').seqs).missing === 0, 60_000).catch(() => undefined);
    const check = checkDestination('slow', all(1_200), sink.of('slow').seqs);
    expect({ missing: check.missing, sample: check.missingSample }).toEqual({ missing: 0, sample: [] });
    expect(fleet.consumerCrashes()).toEqual([]);
    expect(fleet.unexpectedExits).toEqual([]);
    expect(first.child.exitCode).toBeNull();
  });
}, 240_000);

it('batches in flight when the group rebalances should end as soon as the join forgets their partitions, not hold the worker until the drain deadline', async () => {
  const drainTimeoutMs = 30_000;
  // Every write takes a while, so batches are always in flight when the second worker joins.
  await withRig('rebalance-stale', drainTimeoutMs, { kind: 'slow', delayMs: 1_500 }, undefined, async ({ sink, source, fleet }) => {
    const first = await fleet.start();
    await source.produce(0, 400);
    await waitFor('the first worker to be writing', () => sink.of('slow').seqs.length > 0, 60_000);
    // Records keep coming while the second worker starts and joins.
    let produced = 400;
    let feeding = true;
    const feeder = (async () => {
      while (feeding && produced < 2_000) {
        await source.produce(produced, produced + 20);
        produced += 20;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await fleet.start();
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    feeding = false;
    await feeder;
    const all = Array.from({ length: produced }, (_, i) => i);
    // Well inside the drain deadline: a batch the join made stale must not wait for it.
    await waitFor('every event', () => checkDestination('slow', all, sink.of('slow').seqs).missing === 0, drainTimeoutMs / 2).catch(() => undefined);
    const check = checkDestination('slow', all, sink.of('slow').seqs);
    expect({ missing: check.missing, deadlineLines: first.logs.filter((l) => l.includes('The drain deadline passed')).length }).toEqual({ missing: 0, deadlineLines: 0 });
    expect(fleet.unexpectedExits).toEqual([]);
  });
}, 240_000);
