// API abuse, limits: each account is rate limited on its own, all its API keys drawing on one bucket (so
// minting keys does not raise it), answered with 429 rate_limited and a Retry-After header; other
// accounts' keys, and requests without a key, are unaffected.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request, startAdmin, type AdminHarness } from '../admin/admin-harness.js';

let h: AdminHarness;

beforeAll(async () => {
  h = await startAdmin({ env: { API_RATE_LIMIT_PER_SECOND: '2', API_RATE_LIMIT_BURST: '5' } });
});

afterAll(async () => {
  await h?.stop();
});

it("an account past its burst should get 429 rate_limited with Retry-After on each of its keys, another account's key should not, and the key should work again after waiting", async () => {
  const second = await h.call('POST', '/api_keys', { body: { description: 'second key' } });
  const account = await h.call('POST', '/accounts', { body: { description: 'other' } });
  const other = await h.call('POST', '/api_keys', { body: { account_id: account.json.id, description: 'other account' } });
  expect([second.status, account.status, other.status], other.text).toEqual([201, 201, 201]);
  // Three creations above took three of the operator's five tokens.
  await new Promise((resolve) => setTimeout(resolve, 1600));
  const statuses: number[] = [];
  let limited: Awaited<ReturnType<typeof request>> | undefined;
  for (let i = 0; i < 12 && limited === undefined; i++) {
    const r = await request(h.url, 'GET', '/ip_policies', { token: h.token });
    statuses.push(r.status);
    if (r.status === 429) limited = r;
  }
  // After the wait the bucket holds at least five tokens less the three taken (and never more than five).
  expect(statuses.slice(0, 2)).toEqual([200, 200]);
  expect(limited, statuses.join(',')).toBeDefined();
  const r = limited as Awaited<ReturnType<typeof request>>;
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 2, String(r.headers.get('retry-after'))).toBe(true);
  expect(r.json).toMatchObject({ error_code: 'rate_limited', status_code: 429, details: { retry_after: retryAfter, limit_per_second: 2, burst: 5 } });
  expect(r.json.msg).toContain(`retry after ${retryAfter} s.`);

  // A body is not even read: a POST is refused the same way, whatever it carries.
  const post = await request(h.url, 'POST', '/ip_policies', { token: h.token, body: { description: 'x'.repeat(1000) } });
  expect(post.status).toBe(429);

  // The limit is per account: the account's second key is refused too, another account's key is not, and a
  // request without a valid key is a 401, never a 429.
  expect((await request(h.url, 'GET', '/ip_policies', { token: second.json.token })).status).toBe(429);
  expect((await request(h.url, 'GET', '/ip_policies', { token: other.json.token })).status).toBe(200);
  expect((await request(h.url, 'GET', '/ip_policies', { token: null })).status).toBe(401);
  expect((await request(h.url, 'GET', '/healthz', { token: null })).status).toBe(200);

  await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
  expect((await request(h.url, 'GET', '/ip_policies', { token: h.token })).status).toBe(200);
});

it('the OpenAPI document should describe the 429 answer on every admin route', async () => {
  const doc = (await request(h.url, 'GET', '/openapi.json', { token: null })).json as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
  const routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ route: `${method} ${path}`, has429: '429' in op.responses })));
  expect(routes.length).toBeGreaterThan(30);
  expect(routes.filter((r) => !r.has429)).toEqual([]);
});
