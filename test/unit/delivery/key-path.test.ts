import { describe, expect, it } from 'vitest';
import { compileKeyPath } from '../../../src/delivery/key-path.js';
import { makeEnvelope } from '../../../src/events/envelope.js';

const envelope = makeEnvelope('tcp_connection_closed.v0', { conn: { client_ip: '10.0.0.1', server_port: 443, gone: null } });
const withEnvelope = { eventId: envelope.event_id, payload: Buffer.from(JSON.stringify(envelope)), envelope };
const payloadOnly = { eventId: envelope.event_id, payload: Buffer.from(JSON.stringify(envelope)) };

describe('key path', () => {
  it('should key by the event id by default', () => {
    expect(compileKeyPath(undefined)(withEnvelope)).toBe(envelope.event_id);
  });

  it('should read a nested envelope field, from the object or from the payload', () => {
    expect(compileKeyPath('object.conn.client_ip')(withEnvelope)).toBe('10.0.0.1');
    expect(compileKeyPath('object.conn.client_ip')(payloadOnly)).toBe('10.0.0.1');
    expect(compileKeyPath('object.conn.server_port')(withEnvelope)).toBe('443');
  });

  it('should fall back to the event id for a missing or null field', () => {
    expect(compileKeyPath('object.conn.gone')(withEnvelope)).toBe(envelope.event_id);
    expect(compileKeyPath('object.nothing.here')(withEnvelope)).toBe(envelope.event_id);
  });
});
