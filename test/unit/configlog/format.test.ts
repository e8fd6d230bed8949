// Unit tests of the config record format: what a record decodes to, whatever strings the decoder shares.
import { describe, expect, it } from 'vitest';
import { decodeConfigRecord, encodeConfigValue } from '../../../src/configlog/format.js';

const subscription = {
  id: 'esb_01HZX2Y3Z4A5B6C7D8E9F0G1H2',
  created_at: '2024-05-01T00:00:00Z',
  description: 'TLS from 10/8',
  metadata: '',
  sources: [{ type: 'tcp_connection_closed.v0', fields: ['conn.client_ip', 'conn.server_name', 'conn.bytes_in'], filter: 'ev.conn.server_port == 443' }],
  destination_ids: ['ed_01HZX2Y3Z4A5B6C7D8E9F0G1H2', 'ed_01HZX2Y3Z4A5B6C7D8E9F0G1H3'],
};

describe('decodeConfigRecord', () => {
  it('should decode a stored resource to exactly what was encoded, twice over', () => {
    for (let i = 0; i < 2; i++) {
      const rec = decodeConfigRecord(Buffer.from(subscription.id), encodeConfigValue('event_subscription', subscription));
      expect(rec).toEqual({ type: 'put', id: subscription.id, value: { v: 1, kind: 'event_subscription', data: subscription } });
    }
  });

  it('should keep long list elements, digit-led keys and a "__proto__" key as plain data', () => {
    const data = { id: 'ed_X', tags: ['x'.repeat(500), 'short'], '1st': 'first', nested: JSON.parse('{"__proto__": {"polluted": true}}') as unknown };
    const rec = decodeConfigRecord(Buffer.from('ed_X'), encodeConfigValue('event_destination', data));
    expect(rec.type).toBe('put');
    const got = (rec as { value: { data: Record<string, unknown> } }).value.data;
    expect(got).toEqual(data);
    expect(Object.getPrototypeOf(got.nested)).toBe(Object.prototype);
    expect(Object.hasOwn(got.nested as object, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('should still tell deletes, sync markers and unreadable records apart', () => {
    expect(decodeConfigRecord(Buffer.from('esb_1'), null)).toEqual({ type: 'delete', id: 'esb_1' });
    expect(decodeConfigRecord(Buffer.from('__sync/a/1'), null)).toEqual({ type: 'sync', id: '__sync/a/1' });
    expect(decodeConfigRecord(Buffer.from('esb_1'), Buffer.from('{'))).toMatchObject({ type: 'invalid', reason: 'the value is not JSON' });
  });
});
