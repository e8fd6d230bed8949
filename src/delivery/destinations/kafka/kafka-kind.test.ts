import { describe, expect, it } from 'vitest';
import { describeKindContract } from '../../../../test/support/destination-kind-contract.js';
import { kafkaKind } from './kafka-kind.js';

describe('kafka kind', () => {
  describeKindContract(kafkaKind, {
    valid: [{ topic: 'events' }, { topic: 'a.b-c_d', brokers: ['k1:9092', 'k2:9093'], key: 'object.conn.client_ip' }],
    invalid: [
      { object: { topic: 'bad topic' }, code: 'invalid_body', field: 'topic' },
      { object: { topic: '..' }, code: 'invalid_body', field: 'topic' },
      { object: { topic: 'a', brokers: [] }, code: 'invalid_body', field: 'brokers' },
      { object: { topic: 'a', brokers: ['nohost'] }, code: 'invalid_body', field: 'brokers' },
      { object: { topic: 'a', key: 'object..x' }, code: 'invalid_body', field: 'key' },
    ],
  });

  it('should answer the service cluster and the event id key as null', () => {
    expect(kafkaKind.view({ topic: 't' })).toEqual({ topic: 't', brokers: null, key: null });
  });
});
