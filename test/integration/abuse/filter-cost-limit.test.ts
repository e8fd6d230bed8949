// API abuse, limits: a record is matched against its owner's filters, so the filter work one account can
// make a worker do per record is the sum of its subscriptions' and open taps' filter costs. A change past
// ACCOUNT_FILTER_COST_LIMIT is answered 409 filter_cost_limit with the totals, and passes again once
// work is removed; the operator and other accounts are not held by it. Real API and worker processes on
// the real broker.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { compileFilter } from '../../../src/cel/compile.js';
import { startAdmin, type AdminHarness, type Body } from '../admin/admin-harness.js';
import { openTap } from '../pipeline/tap-support.js';

const TCP = 'tcp_connection_closed.v0';
/** A filter well within the per-filter bound that still costs something: a search of a name. */
const FILTER = '(ev.conn.server_name + ".edge.test").contains("shop.example") && ev.conn.server_port == 443';
const COST = ((): number => {
  const r = compileFilter(FILTER, TCP);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.filter.cost;
})();
/** Room for two such filters, not three. */
const LIMIT = Math.floor(2.5 * COST);

let h: AdminHarness;

beforeAll(async () => {
  h = await startAdmin({ roles: 'api,worker', env: { ACCOUNT_FILTER_COST_LIMIT: String(LIMIT) } });
}, 120_000);

afterAll(async () => {
  await h?.stop();
});

async function account(description: string): Promise<{ id: string; token: string; destination: string }> {
  const a = await h.call('POST', '/accounts', { body: { description } });
  expect(a.status, a.text).toBe(201);
  const key = await h.call('POST', '/api_keys', { body: { account_id: a.json.id } });
  expect(key.status, key.text).toBe(201);
  const token = key.json.token as string;
  const d = await h.call('POST', '/event_destinations', { token, body: { target: { file: { path: `${description}.ndjson` } }, verify: false } });
  expect(d.status, d.text).toBe(201);
  return { id: a.json.id as string, token, destination: d.json.id as string };
}

const source = (filter: string): Body => ({ type: TCP, fields: ['conn.bytes_in'], filter });

it("an account past its filter work per record should get 409 filter_cost_limit with the totals, and a create should pass again once work is removed", async () => {
  const shop = await account('costly');
  const create = (filter: string): ReturnType<AdminHarness['call']> =>
    h.call('POST', '/event_subscriptions', { token: shop.token, body: { sources: [source(filter)], destination_ids: [shop.destination] } });
  const first = await create(FILTER);
  expect(first.status, first.text).toBe(201);
  expect((await create(FILTER)).status).toBe(201);

  const refused = await create(FILTER);
  expect(refused.status, refused.text).toBe(409);
  expect(refused.json).toMatchObject({ error_code: 'filter_cost_limit', details: { account_id: shop.id, limit: LIMIT, current: 2 * COST, cost: COST, total: 3 * COST } });
  // The customer's sentence gives the limit, not the operator's setting (docs/api-errors.md names it).
  expect(refused.json.msg).toContain('the limit is');
  expect(refused.json.msg).not.toContain('ACCOUNT_FILTER_COST_LIMIT');
  expect((await h.call('GET', '/event_subscriptions', { token: shop.token })).json.event_subscriptions).toHaveLength(2);

  // A filter without a cost is no work: a subscription with none passes.
  expect((await create('')).status).toBe(201);
  // Growing a filter in place is checked; shrinking one is not refused.
  const grown = await h.call('PATCH', `/event_subscriptions/${first.json.id}/sources/${TCP}`, { token: shop.token, body: { filter: `${FILTER} && ${FILTER}` } });
  expect([grown.status, grown.json.error_code]).toEqual([409, 'filter_cost_limit']);
  expect((await h.call('PATCH', `/event_subscriptions/${first.json.id}/sources/${TCP}`, { token: shop.token, body: { filter: 'ev.conn.server_port == 443' } })).status).toBe(200);
  expect((await create(FILTER)).status).toBe(201);

  // Another account and the operator are not held by this one's work.
  const other = await account('other');
  expect((await h.call('POST', '/event_subscriptions', { token: other.token, body: { sources: [source(FILTER)], destination_ids: [other.destination] } })).status).toBe(201);
  for (let i = 0; i < 3; i++) expect((await h.call('POST', '/event_subscriptions', { body: { sources: [source(FILTER)], destination_ids: [] } })).status).toBe(201);
}, 60_000);

it("an open tap's filter should count in its account's work: a playground tap past the limit is refused, and one open holds back a create until it ends", async () => {
  const shop = await account('tapping');
  const sub = await h.call('POST', '/event_subscriptions', { token: shop.token, body: { sources: [source(FILTER)], destination_ids: [shop.destination] } });
  expect(sub.status, sub.text).toBe(201);

  const tap = await openTap(h.url, shop.token, 'POST', '/tap?seconds=6', source(FILTER));
  expect(tap.status).toBe(200);
  await tap.comment((t) => t.startsWith('listening on'));
  // One subscription and the tap: a second tap or subscription would make three filters.
  const second = await h.call('POST', '/tap?seconds=1', { token: shop.token, body: source(FILTER) });
  expect(second.status, second.text).toBe(409);
  expect(second.json).toMatchObject({ error_code: 'filter_cost_limit', details: { current: 2 * COST, total: 3 * COST } });
  const held = await h.call('POST', '/event_subscriptions', { token: shop.token, body: { sources: [source(FILTER)], destination_ids: [shop.destination] } });
  expect([held.status, held.json.error_code]).toEqual([409, 'filter_cost_limit']);

  // A tap of the account's own subscription evaluates its filter again: it counts too.
  const again = await h.call('GET', `/event_subscriptions/${sub.json.id}/tap?seconds=1`, { token: shop.token });
  expect([again.status, again.json.error_code]).toEqual([409, 'filter_cost_limit']);

  // Once the tap ends, its work is gone.
  await tap.ended;
  expect((await h.call('POST', '/event_subscriptions', { token: shop.token, body: { sources: [source(FILTER)], destination_ids: [shop.destination] } })).status).toBe(201);
}, 60_000);
