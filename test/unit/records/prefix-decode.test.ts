import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TRAFFIC_EVENT_TYPES } from '../../../src/events/catalog.js';
import { createRecordDecoder } from '../../../src/records/record-decoder.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import { expectedRecord, recordArbitrary } from './arbitraries.js';

const decoder = createRecordDecoder();

/** The JSON text with conn moved to the end, so the decoder cannot find it at the head. */
function connLast(value: Buffer): Buffer {
  const { conn, ...rest } = JSON.parse(value.toString()) as Record<string, unknown>;
  return Buffer.from(JSON.stringify({ ...rest, conn }));
}

describe.each(TRAFFIC_EVENT_TYPES)('the cheap read of %s', (eventType) => {
  it('should give the same filterable fields as the full decode, and the full decode the record written, in every form', () => {
    fc.assert(
      fc.property(recordArbitrary(eventType), fc.constantFrom('avro', 'confluent', 'json', 'json, conn last'), (input, form) => {
        const msg = encodeRecord(eventType, input, form === 'json, conn last' ? 'json' : form);
        const result = decoder.decodeFilterable(eventType, form === 'json, conn last' ? { ...msg, value: connLast(msg.value) } : msg);
        if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
        const full = result.full();
        if (!full.ok) throw new Error(`${full.code}: ${full.message}`);
        const conn = full.record.conn as Record<string, unknown>;
        expect(result.filterable).toEqual({
          conn: { client_ip: conn.client_ip, server_ip: conn.server_ip, server_name: conn.server_name, server_port: conn.server_port },
        });
        expect(full.record).toEqual(expectedRecord(eventType, input));
      }),
      { numRuns: 400 },
    );
  });
});
