import { describe, expect, it } from 'vitest';
import { makeEnvelope } from '../../../src/events/envelope.js';
import { decodeEnvelopeAvro, encodeEnvelopeAvro } from '../../../src/records/envelope-avro.js';

describe('the Avro envelope', () => {
  it('should carry a traffic envelope through Avro, with its timestamp in microseconds', () => {
    const envelope = makeEnvelope(
      'http_request_complete.v0',
      { conn: { client_ip: '10.0.0.1' }, http: { request: { headers: { Accept: ['*/*'] } } } },
      { timestamp: new Date('2024-05-01T12:00:00.123Z'), eventId: 'ev_01HX' },
    );
    const result = decodeEnvelopeAvro(encodeEnvelopeAvro(envelope));
    expect(result).toEqual({ ok: true, envelope: { ...envelope, event_timestamp: '2024-05-01T12:00:00.123000Z' } });
  });

  it('should carry an audit principal as JSON', () => {
    const principal = { type: 'api_key', id: 'ak_1', uri: 'https://api.example.com/api_keys/ak_1' } as const;
    const envelope = makeEnvelope('api_key_created.v0', { id: 'ak_2' }, { principal, eventId: 'ev_2' });
    const result = decodeEnvelopeAvro(encodeEnvelopeAvro(envelope));
    expect(result.ok && result.envelope.principal).toEqual(principal);
  });

  it('should report bytes that are not an envelope rather than throw', () => {
    const result = decodeEnvelopeAvro(Buffer.from([0x02, 0x41]));
    expect(result.ok ? 'ok' : result.code).toBe('malformed_avro');
  });
});
