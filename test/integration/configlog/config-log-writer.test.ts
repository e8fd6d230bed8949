// The config log writer on the real broker: a writer killed inside a transaction does not block readers
// past a bound, a lost broker answer neither duplicates nor loses a change, and a write after one whose
// produce answers were lost still lands.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { KafkaClient } from '../../../src/kafka/seam.js';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { ConfigLog } from '../../../src/configlog/config-log.js';
import type { StoredDestination } from '../../../src/configlog/resources.js';
import { newId } from '../../../src/ids.js';
import { API_KEYS, BrokerProxy } from '../../support/broker-proxy.js';
import { consumeUntil, createTopics, testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { TopicCollector } from '../../support/topic-collector.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const STUCK_WRITER = fileURLToPath(new URL('./stuck-writer.ts', import.meta.url));
const running: ChildProcess[] = [];
const logs: ConfigLog[] = [];

afterEach(async () => {
  for (const c of running.splice(0)) c.kill('SIGKILL');
  await Promise.allSettled(logs.splice(0).map((l) => l.stop()));
});

function destination(description: string): StoredDestination {
  return { id: newId('event_destination'), created_at: new Date().toISOString(), description, metadata: '', format: 'json', target: { http: { url: 'https://example.com/' } } };
}

async function topics(kafka: KafkaClient): Promise<{ config: string; audit: string }> {
  const prefix = uniqueName('cfgw');
  const t = { config: `${prefix}.config`, audit: `${prefix}.audit` };
  await createTopics(kafka, [
    { topic: t.config, partitions: 1, compacted: true },
    { topic: t.audit, partitions: 1 },
  ]);
  return t;
}

async function started(log: ConfigLog): Promise<ConfigLog> {
  logs.push(log);
  await log.start();
  return log;
}

/** The id the stuck writer writes (stuck-writer.ts). */
const STUCK_ID = 'ed_01JSTUCK000000000000000000';

/** Starts a writer that gets stuck in a transaction, and kills it (SIGKILL) once its record is appended. */
async function killWriterInTransaction(kafka: KafkaClient, configTopic: string, writerId: string): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', STUCK_WRITER], {
    cwd: ROOT,
    env: { ...process.env, BROKERS: testBrokers(), CONFIG_TOPIC: configTopic, WRITER_ID: writerId, MISSING_TOPIC: uniqueName('missing') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  const output: string[] = [];
  createInterface({ input: child.stdout as Readable }).on('line', (l) => output.push(l));
  createInterface({ input: child.stderr as Readable }).on('line', (l) => output.push(l));
  // The appended, uncommitted record is visible to a reader of uncommitted records only.
  await consumeUntil(kafka, { topics: [configTopic], readUncommitted: true, until: (got) => got.some((m) => m.key === STUCK_ID), timeoutMs: 60_000 }).catch((err: unknown) => {
    throw new Error(`the stuck writer did not get stuck (${String(err)}):\n${output.join('\n')}`);
  });
  child.kill('SIGKILL');
  await new Promise((r) => child.once('exit', r));
}

describe('config log writer', () => {
  it('should fence a writer killed inside a transaction as soon as a writer with the same id starts', async () => {
    const kafka = testClient('config-writer-test');
    const t = await topics(kafka);
    const writerId = uniqueName('replica');
    await killWriterInTransaction(kafka, t.config, writerId);
    const restarted = Date.now();
    const successor = await started(new ConfigLog({ kafka: testClient('config-writer-test'), topic: t.config, writerId, syncTimeoutMs: 40_000 }));
    expect(Date.now() - restarted).toBeLessThan(10_000);
    const d = destination('after the crash');
    await successor.write([{ id: d.id, kind: 'event_destination', data: d }]);
    expect(successor.get(d.id)?.data).toEqual(d);
    expect(successor.get(STUCK_ID)).toBeUndefined();
  });

  it('should let readers past a writer killed inside a transaction within the transaction timeout when no successor comes', async () => {
    const kafka = testClient('config-writer-test');
    const t = await topics(kafka);
    await killWriterInTransaction(kafka, t.config, uniqueName('replica'));
    const readerStarted = Date.now();
    // A reader loads the log up to its own sync marker, which lies behind the open transaction.
    await started(new ConfigLog({ kafka: testClient('config-writer-test'), topic: t.config, writerId: uniqueName('reader'), syncTimeoutMs: 60_000 }));
    // The transaction timeout (10 s) plus the broker's check for timed-out transactions (every 10 s).
    expect(Date.now() - readerStarted).toBeLessThan(25_000);
  }, 90_000);

  it('should report a write whose commit answer was lost as made, with one resource and one audit event', async () => {
    const t = await topics(testClient('config-writer-test'));
    const faults = await BrokerProxy.start(testBrokers());
    onTestFinished(() => faults.stop());
    const log = await started(new ConfigLog({ kafka: faults.client('config-writer-lost-commit', { retries: 2 }), topic: t.config, writerId: uniqueName('replica') }));
    const d = destination('created once');
    faults.lose.add(API_KEYS.endTxn);
    const writing = log.write([{ id: d.id, kind: 'event_destination', data: d }], [{ topic: t.audit, messages: [{ key: d.id, value: JSON.stringify({ created: d.id }) }] }]);
    writing.catch(() => undefined);
    // Lift the fault once the commit answer was lost, so the writer can find out what happened.
    const deadline = Date.now() + 30_000;
    while (faults.lost === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    faults.lose.clear();
    await expect(writing).resolves.toBeUndefined();
    expect(log.get(d.id)?.data).toEqual(d);
    const audit = new TopicCollector(testClient('config-writer-test'), [t.audit]);
    await audit.start();
    try {
      await audit.settled(1);
      expect(audit.messages.map((m) => m.key)).toEqual([d.id]);
    } finally {
      await audit.stop();
    }
  }, 90_000);

  it('should land a write made after one whose produce answers were all lost', async () => {
    const t = await topics(testClient('config-writer-test'));
    const faults = await BrokerProxy.start(testBrokers());
    onTestFinished(() => faults.stop());
    const log = await started(new ConfigLog({ kafka: faults.client('config-writer-lost-produce', { retries: 2 }), topic: t.config, writerId: uniqueName('replica'), syncTimeoutMs: 10_000 }));
    const lost = destination('its produce answers are lost');
    faults.lose.add(API_KEYS.produce);
    const first = await log.write([{ id: lost.id, kind: 'event_destination', data: lost }]).then(
      () => 'made',
      () => 'failed',
    );
    faults.lose.clear();
    const next = destination('written after');
    await log.write([{ id: next.id, kind: 'event_destination', data: next }]);
    expect(log.get(next.id)?.data).toEqual(next);
    // The first write either landed whole or not at all, and a fresh reader sees what this one sees.
    const reader = await started(new ConfigLog({ kafka: testClient('config-writer-test'), topic: t.config }));
    expect({ first, next: reader.get(next.id)?.data, lost: reader.get(lost.id) !== undefined }).toEqual({ first, next, lost: first === 'made' });
  }, 90_000);
});
