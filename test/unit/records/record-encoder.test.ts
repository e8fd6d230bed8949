import { describe, expect, it } from 'vitest';
import { createRecordDecoder } from '../../../src/records/record-decoder.js';
import { canonicalRecord, encodeRecord } from '../../../src/records/record-encoder.js';
import { seededRecord } from '../../../src/traffic/seeded-records.js';

const TCP = 'tcp_connection_closed.v0';
const decoder = createRecordDecoder();

describe('the record encoder', () => {
  it('should refuse a record the decoder would refuse, naming the field', () => {
    expect(() => encodeRecord(TCP, { conn: { client_ip: '10.0.0.1' } }, 'avro')).toThrow(/conn\.server_ip is required/);
    expect(() => canonicalRecord(TCP, { ...seededRecord(TCP, 1), extra: 1 })).toThrow(/extra is not a field/);
  });

  it('should write JSON with absent fields and empty groups left out', () => {
    const input = { ...seededRecord(TCP, 1), ip_policy: { decision: null }, traffic_policy: { logs: null } };
    const { value, headers } = encodeRecord(TCP, input, 'json');
    expect(headers).toEqual({ 'content-type': 'application/json' });
    expect(Object.keys(JSON.parse(value.toString()) as object)).toEqual(['conn']);
  });

  it('should refuse to write in Avro a long below -2^52, which avsc would write wrongly, and write it in JSON', () => {
    const input = seededRecord(TCP, 1) as { conn: Record<string, unknown> };
    const low = { ...input, conn: { ...input.conn, bytes_in: -(2 ** 52) - 1 } };
    expect(() => encodeRecord(TCP, low, 'avro')).toThrow(/-2\^52/);
    const result = decoder.decodeFilterable(TCP, encodeRecord(TCP, low, 'json'));
    const full = result.ok ? result.full() : result;
    expect(full.ok && (full.record.conn as Record<string, unknown>).bytes_in).toBe(-(2 ** 52) - 1);
  });

  it('should give the same bytes for the same sample seed', () => {
    expect(encodeRecord(TCP, seededRecord(TCP, 9), 'avro').value).toEqual(encodeRecord(TCP, seededRecord(TCP, 9), 'avro').value);
    expect(encodeRecord(TCP, seededRecord(TCP, 9), 'avro').value).not.toEqual(encodeRecord(TCP, seededRecord(TCP, 10), 'avro').value);
  });
});
