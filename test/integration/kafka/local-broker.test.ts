// Integration tests of the local broker control itself: persistent restarts, clean stops, loud failures.
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startLocalBroker } from '../../../src/kafka/local-broker.js';
import { consumeUntil, createTopics, produce, testClient, uniqueName, withAdmin } from '../../support/kafka.js';

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('local broker', () => {
  it('should keep topics and records across a restart of a persistent data folder, formatting it only once', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'edge-kafka-persist-'));
    const topic = uniqueName('persist');
    try {
      const first = await startLocalBroker({ dataDir });
      try {
        const kafka = testClient('persist-test', first.brokers);
        await createTopics(kafka, [{ topic }]);
        await produce(kafka, topic, [{ key: 'k', value: 'kept' }]);
      } finally {
        await first.stop();
      }
      expect(processAlive(first.pid)).toBe(false);
      expect(existsSync(dataDir)).toBe(true);

      const second = await startLocalBroker({ dataDir });
      try {
        const kafka = testClient('persist-test', second.brokers);
        expect(await withAdmin(kafka, (admin) => admin.listTopics())).toContain(topic);
        const got = await consumeUntil(kafka, { topics: [topic], until: (m) => m.length >= 1 });
        expect(got.map((m) => m.value)).toEqual(['kept']);
      } finally {
        await second.stop();
      }
      const log = readFileSync(second.logFile, 'utf8');
      expect(log.match(/Formatting metadata directory/g)).toHaveLength(1);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('should stop the broker by its pid and delete its temporary data folder', async () => {
    const broker = await startLocalBroker();
    expect(processAlive(broker.pid)).toBe(true);
    expect(broker.brokers).toBe(`127.0.0.1:${broker.port}`);
    await broker.stop();
    await broker.stop(); // a second stop is harmless
    expect(processAlive(broker.pid)).toBe(false);
    expect(existsSync(broker.dataDir)).toBe(false);
  });

  it('should refuse a port that is already taken with code BROKER_PORT_IN_USE', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    try {
      if (address === null || typeof address === 'string') throw new Error('The test server has no port.');
      await expect(startLocalBroker({ port: address.port })).rejects.toMatchObject({ code: 'BROKER_PORT_IN_USE' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("should fail with the tail of the broker's log when the JVM cannot start", async () => {
    const saved = process.env.EDGE_KAFKA_JVM_OPTS;
    process.env.EDGE_KAFKA_JVM_OPTS = '-XX:+NoSuchOptionForThisTest';
    try {
      const failure = startLocalBroker();
      await expect(failure).rejects.toMatchObject({ code: 'BROKER_FORMAT_FAILED' });
      await expect(failure).rejects.toThrow(/Unrecognized VM option 'NoSuchOptionForThisTest'/);
    } finally {
      if (saved === undefined) delete process.env.EDGE_KAFKA_JVM_OPTS;
      else process.env.EDGE_KAFKA_JVM_OPTS = saved;
    }
  });
});
