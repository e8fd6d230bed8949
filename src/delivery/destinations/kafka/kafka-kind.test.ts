import { OPERATOR } from '../../../accounts/account.js';
import { describe, expect, it } from 'vitest';
import { describeKindContract } from '../../../../test/support/destination-kind-contract.js';
import { kafkaKind } from './kafka-kind.js';

describe('kafka kind', () => {
  describeKindContract(kafkaKind, {
    valid: [
      { topic: 'events' },
      { topic: 'a.b-c_d', brokers: ['k1:9092', 'k2:9093'], key: 'object.conn.client_ip' },
      { topic: 'x'.repeat(249), partitions: 12, replication_factor: 3 },
    ],
    invalid: [
      { object: { topic: 'bad topic' }, code: 'invalid_topic_name', field: 'topic' },
      { object: { topic: '..' }, code: 'invalid_topic_name', field: 'topic' },
      { object: { topic: 'x'.repeat(250) }, code: 'invalid_topic_name', field: 'topic' },
      // The service's own topics (default names here), its retry topics and Kafka's own.
      { object: { topic: 'edge.config' }, code: 'internal_topic', field: 'topic' },
      { object: { topic: 'edge.audit', brokers: ['elsewhere:9092'] }, code: 'internal_topic', field: 'topic' },
      { object: { topic: 'edge.retry.ed_01JD3Z8Q4T2R7M5N6P9K0W1X2Y' }, code: 'internal_topic', field: 'topic' },
      { object: { topic: '__consumer_offsets' }, code: 'internal_topic', field: 'topic' },
      { object: { topic: 'a', brokers: [] }, code: 'invalid_body', field: 'brokers' },
      { object: { topic: 'a', brokers: ['nohost'] }, code: 'invalid_body', field: 'brokers' },
      { object: { topic: 'a', key: 'object..x' }, code: 'invalid_body', field: 'key' },
      { object: { topic: 'a', partitions: 0 }, code: 'invalid_body', field: 'partitions' },
      { object: { topic: 'a', replication_factor: 17 }, code: 'invalid_body', field: 'replication_factor' },
    ],
  });

  it('should answer the service cluster, the event id key and the default creation settings as null', () => {
    expect(kafkaKind.view({ topic: 't' }, { fileRoot: '.', account: OPERATOR })).toEqual({ topic: 't', brokers: null, key: null, partitions: null, replication_factor: null });
  });
});
