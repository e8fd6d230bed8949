import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/cli/command.js';
import { parseTapArgs } from '../../../src/cli/tap-command.js';

const env = { EDGE_EVENTS_TOKEN: 'tok', EDGE_EVENTS_URL: 'http://api.test:9000/' };

describe('edge-events tap arguments', () => {
  it("should tap a subscription by id with the given limits, at the API from the environment", () => {
    expect(parseTapArgs(['esb_1', '--limit', '5', '--seconds', '10'], env)).toEqual({ url: 'http://api.test:9000', token: 'tok', path: '/event_subscriptions/esb_1/tap?seconds=10&limit=5', body: undefined });
  });

  it('should tap an unsaved source from --type, --fields and --filter', () => {
    const o = parseTapArgs(['--type', 'tcp_connection_closed.v0', '--fields', 'conn.client_ip, conn.bytes_in', '--filter', 'ev.conn.server_port == 443'], env);
    expect(o.path).toBe('/tap');
    expect(o.body).toEqual({ type: 'tcp_connection_closed.v0', fields: ['conn.client_ip', 'conn.bytes_in'], filter: 'ev.conn.server_port == 443' });
  });

  it('should refuse both an id and --type, neither, a limit out of range, and no token to be found', () => {
    expect(() => parseTapArgs(['esb_1', '--type', 'x'], env)).toThrow(UsageError);
    expect(() => parseTapArgs([], env)).toThrow(UsageError);
    expect(() => parseTapArgs(['esb_1', '--limit', '10001'], env)).toThrow(/--limit must be a whole number from 1 to 10000/);
    expect(() => parseTapArgs(['esb_1'], { API_TOKEN_FILE: '/nonexistent/token' })).toThrow(/no token/);
  });
});
