import { describe, expect, it } from 'vitest';
import { AllowedMethods } from '../../../src/admin/allowed-methods.js';

describe('allowed methods of a path', () => {
  const allowed = new AllowedMethods();
  allowed.add('/edges/tcp', ['POST', 'GET', 'HEAD']);
  allowed.add('/edges/tcp/:id', ['GET', 'HEAD', 'PATCH', 'DELETE']);
  allowed.add('/edges/tcp/:id/ip_restriction', ['PUT', 'GET', 'HEAD', 'DELETE']);
  allowed.add('/docs/*', ['GET', 'HEAD']);

  it('should list the methods of the routes a path matches, sorted', () => {
    expect(allowed.of('/edges/tcp')).toEqual(['GET', 'HEAD', 'POST']);
    expect(allowed.of('/edges/tcp/edgtcp_1')).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
    expect(allowed.of('/edges/tcp/anything/ip_restriction')).toEqual(['DELETE', 'GET', 'HEAD', 'PUT']);
    expect(allowed.of('/docs/static/index.css')).toEqual(['GET', 'HEAD']);
  });

  it('should list none for a path no route has, so it stays a 404', () => {
    expect(allowed.of('/edges/tcp/a/b')).toEqual([]);
    expect(allowed.of('/edges')).toEqual([]);
    expect(allowed.of('/edges/tcp/')).toEqual([]);
  });
});
