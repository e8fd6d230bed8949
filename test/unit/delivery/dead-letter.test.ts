import { describe, expect, it } from 'vitest';
import { deadLetterHeaders } from '../../../src/delivery/dead-letter.js';

describe('dead-letter headers', () => {
  it('should name the source record, the error and the destination', () => {
    const headers = deadLetterHeaders({
      value: Buffer.from('{}'),
      source: { topic: 'edge.traffic.tcp_connection_closed.v0', partition: 3, offset: 42 },
      errorCode: 'DESTINATION_REJECTED',
      errorMessage: 'hooks.example answered 400',
      destinationId: 'ed_1',
    });
    expect(headers).toEqual({
      'x-source-topic': 'edge.traffic.tcp_connection_closed.v0',
      'x-source-partition': '3',
      'x-source-offset': '42',
      'x-error-code': 'DESTINATION_REJECTED',
      'x-error-message': 'hooks.example answered 400',
      'x-destination-id': 'ed_1',
    });
  });

  it('should keep extra headers, leave out the destination for input errors and cut long messages', () => {
    const headers = deadLetterHeaders({
      value: null,
      errorCode: 'DECODE_FAILED',
      errorMessage: 'e'.repeat(5000),
      headers: { 'content-type': 'application/json' },
    });
    expect(headers['content-type']).toBe('application/json');
    expect(headers['x-destination-id']).toBeUndefined();
    expect(headers['x-source-topic']).toBeUndefined();
    expect(String(headers['x-error-message'])).toHaveLength(1000);
  });
});
