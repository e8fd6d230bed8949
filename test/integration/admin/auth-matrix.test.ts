// The auth matrix (src/admin/README.md "Auth"): every route of the OpenAPI document (so new routes are covered
// automatically) with no token, a malformed header, a garbage token, a deleted key's token and a valid token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request, startAdmin, type AdminHarness } from './admin-harness.js';
import type { DocumentedRoute } from './openapi-check.js';

let h: AdminHarness;
let routes: DocumentedRoute[];
let deletedToken: string;

beforeAll(async () => {
  h = await startAdmin();
  routes = (await h.openapi()).routes();
  const k = (await h.call('POST', '/api_keys', { body: { description: 'to be deleted' } })).json;
  expect((await h.call('DELETE', `/api_keys/${k.id}`)).status).toBe(204);
  deletedToken = k.token;
});
afterAll(async () => {
  await h?.stop();
});

/** A concrete path for a template; ids name nothing, which is fine: auth runs before any lookup. */
function concrete(path: string): string {
  return path.replace('{type}', 'http_request_complete.v0').replace(/\{[^}]+\}/g, 'x_01ARZ3NDEKTSV4RRFFQ69G5FAV');
}
const hasBody = (method: string): boolean => method === 'POST' || method === 'PUT' || method === 'PATCH';

describe('auth matrix', () => {
  it('the OpenAPI document should list the admin routes, each with bearer security', async () => {
    const paths = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const expected of [
      'POST /api_keys',
      'DELETE /api_keys/{id}',
      'GET /ip_policies',
      'PATCH /ip_policy_rules/{id}',
      'POST /edges/tcp',
      'PUT /edges/tcp/{id}/ip_restriction',
      'GET /edges/tcp/{id}/ip_restriction',
      'DELETE /edges/tcp/{id}/ip_restriction',
      'GET /edges/tcp/{id}/ip_restriction/decision',
    ]) {
      expect(paths).toContain(expected);
    }
    const doc = (await h.openapi()).doc as unknown as { security: unknown; components: { securitySchemes: unknown } };
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(doc.components.securitySchemes).toEqual({ bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }) });
  });

  const refused: [string, (route: DocumentedRoute) => Record<string, string>][] = [
    ['no Authorization header', () => ({})],
    ['a header that is not Bearer', () => ({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` })],
    ['a Bearer header with no token', () => ({ authorization: 'Bearer ' })],
    ['a garbage token', () => ({ authorization: 'Bearer eek_thisIsNotAKeyThatExists0000000000000000000' })],
    ["a deleted key's token", () => ({ authorization: `Bearer ${deletedToken}` })],
  ];
  for (const [name, headers] of refused) {
    it(`every route should answer 401 with the error body and WWW-Authenticate for ${name}`, async () => {
      expect(routes.length).toBeGreaterThan(15);
      for (const route of routes) {
        const r = await request(h.url, route.method, concrete(route.path), {
          headers: headers(route),
          body: hasBody(route.method) ? {} : undefined,
        });
        const where = `${route.method} ${route.path}`;
        expect([where, r.status]).toEqual([where, 401]);
        expect(r.json).toMatchObject({ error_code: 'unauthorized', status_code: 401, details: { reason: expect.any(String) } });
        expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
      }
    });
  }

  it('every route should accept a valid token (any answer but 401, and one its OpenAPI entry documents)', async () => {
    for (const route of routes) {
      // h.call checks the status and body against the route's documented responses.
      const r = await h.call(route.method, concrete(route.path), { body: hasBody(route.method) ? {} : undefined });
      expect([`${route.method} ${route.path}`, r.status === 401]).toEqual([`${route.method} ${route.path}`, false]);
    }
  });

  it('the scheme name should be case-insensitive (RFC 7235 2.1)', async () => {
    expect((await request(h.url, 'GET', '/ip_policies', { headers: { authorization: `bearer ${h.token}` } })).status).toBe(200);
  });

  it('health, readiness, metrics, the OpenAPI document and the docs page should need no token', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs']) {
      const r = await request(h.url, 'GET', path);
      expect([path, r.status]).toEqual([path, 200]);
    }
  });
});
