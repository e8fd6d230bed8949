import { describe, expect, it } from 'vitest';
import { AUDIT_EVENT_TYPES, EVENT_TYPES, TRAFFIC_FIELDS, fieldOf } from '../../../src/events/catalog.js';

describe('event catalogue', () => {
  it('should mark exactly the four conn fields filterable on both traffic types', () => {
    for (const fields of Object.values(TRAFFIC_FIELDS)) {
      expect(fields.filter((s) => s.filterable).map((s) => s.name).sort()).toEqual([
        'conn.client_ip',
        'conn.server_ip',
        'conn.server_name',
        'conn.server_port',
      ]);
    }
  });

  it('should list 16 audit kinds in three forms plus the two agent session events and destination health', () => {
    expect(AUDIT_EVENT_TYPES).toHaveLength(16 * 3 + 2 + 1);
    expect(EVENT_TYPES).toContain('ip_restriction_created.v0');
    expect(EVENT_TYPES).toContain('agent_session_stop.v0');
    expect(EVENT_TYPES).toContain('event_destination_health.v0');
  });

  it('should find a field by its dotted name and not a field of the other type', () => {
    expect(fieldOf('tcp_connection_closed.v0', 'conn.server_port')?.type).toBe('int32');
    expect(fieldOf('tcp_connection_closed.v0', 'http.request.method')).toBeUndefined();
  });
});
