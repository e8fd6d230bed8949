// Unit tests of the local broker's server.properties: the settings a single node needs to work at all.
import { describe, expect, it } from 'vitest';
import { OFFSETS_TOPIC_PARTITIONS, brokerSettings, groupPartition, renderServerProperties } from '../../../src/kafka/broker-config.js';
import { probeGroupIds } from '../../../src/kafka/broker-readiness.js';

const input = { port: 19092, controllerPort: 19093, logDir: '/data/kraft' };
const settings = new Map(brokerSettings(input));

describe('local broker config', () => {
  it('should run one KRaft node as broker and sole controller voter on loopback', () => {
    expect(settings.get('process.roles')).toBe('broker,controller');
    expect(settings.get('controller.quorum.voters')).toBe(`${settings.get('node.id')}@127.0.0.1:19093`);
    expect(settings.get('listeners')).toBe('PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093');
    expect(settings.get('advertised.listeners')).toBe('PLAINTEXT://127.0.0.1:19092');
    expect(settings.get('log.dirs')).toBe('/data/kraft');
  });

  it('should give every internal topic a replication factor one node can meet', () => {
    const replication = [...settings].filter(([key]) => /replication\.factor$|min\.isr$|^min\.insync\.replicas$/.test(key));
    expect(replication.map(([key]) => key).sort()).toEqual(
      [
        'default.replication.factor',
        'min.insync.replicas',
        'offsets.topic.replication.factor',
        'share.coordinator.state.topic.min.isr',
        'share.coordinator.state.topic.replication.factor',
        'transaction.state.log.min.isr',
        'transaction.state.log.replication.factor',
      ].sort(),
    );
    expect(replication.every(([, value]) => value === '1')).toBe(true);
  });

  it('should start new groups without the initial rebalance delay and never auto-create topics', () => {
    expect(settings.get('group.initial.rebalance.delay.ms')).toBe('0');
    expect(settings.get('auto.create.topics.enable')).toBe('false');
  });

  it('should write each setting once as a properties line, escaping backslashes in paths', () => {
    const text = renderServerProperties({ ...input, logDir: 'C:\\kafka\\data' });
    const lines = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(lines).toHaveLength(settings.size);
    expect(new Set(lines.map((line) => line.split('=')[0])).size).toBe(lines.length);
    expect(lines).toContain('log.dirs=C:\\\\kafka\\\\data');
  });
});

describe('groupPartition', () => {
  it("should place a group as Kafka does, from Java's String hash with the sign bit cleared", () => {
    // Java: "hello".hashCode() == 99162322, "abc".hashCode() == 96354, and
    // "polygenelubricants".hashCode() == Integer.MIN_VALUE, whose Utils.abs is 0.
    expect(groupPartition('hello', 10)).toBe(2);
    expect(groupPartition('abc', 50)).toBe(96354 % 50);
    expect(groupPartition('polygenelubricants', 10)).toBe(0);
    expect(groupPartition('', 10)).toBe(0);
  });

  it("should let the readiness probe's group ids reach every partition of the offsets topic", () => {
    const ids = probeGroupIds();
    expect(new Set(ids.map((id) => groupPartition(id, OFFSETS_TOPIC_PARTITIONS))).size).toBe(OFFSETS_TOPIC_PARTITIONS);
    expect(settings.get('offsets.topic.num.partitions')).toBe(String(OFFSETS_TOPIC_PARTITIONS));
  });
});
