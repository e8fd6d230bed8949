// The two-account matrix (SECURITY.md "Accounts and tenancy"): every route and method of the OpenAPI document (so new routes
// are covered automatically), called with one account's key on another account's ids, answers exactly what an
// id that names nothing gets: 404 (403 on /accounts, which only the operator's keys may use). Lists never show
// another account's ids, references to them are refused as unknown, and nothing the probes sent changed them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, type IdKind } from '../../../src/ids.js';
import { startAdmin, type AdminHarness, type Body, type CallResult } from './admin-harness.js';
import type { DocumentedRoute } from './openapi-check.js';

/** One account's resources, one of each kind, with the key that made them. */
interface Tenant {
  readonly account: string;
  readonly token: string;
  readonly ids: Readonly<Record<IdKind, string>>;
  /** Its subscription's first source type, for the .../sources/{type} routes. */
  readonly sourceType: string;
  /** Each of its resources as its own key reads it. */
  readonly views: ReadonlyMap<string, Body>;
}

/** The collection each item path starts with, and the kind of id it takes. */
const KIND_OF_PATH: readonly (readonly [prefix: string, kind: IdKind, collection: string])[] = [
  ['/accounts/', 'account', '/accounts'],
  ['/api_keys/', 'api_key', '/api_keys'],
  ['/reserved_domains/', 'reserved_domain', '/reserved_domains'],
  ['/ip_policies/', 'ip_policy', '/ip_policies'],
  ['/ip_policy_rules/', 'ip_policy_rule', '/ip_policy_rules'],
  ['/edges/tcp/', 'tcp_edge', '/edges/tcp'],
  ['/reserved_addrs/', 'tcp_address', '/reserved_addrs'],
  ['/event_destinations/', 'event_destination', '/event_destinations'],
  ['/event_subscriptions/', 'event_subscription', '/event_subscriptions'],
];

let h: AdminHarness;
let routes: DocumentedRoute[];
let a: Tenant;
let b: Tenant;
let operator: Tenant;
const figures = { probes: 0, lists: 0, references: 0 };

async function ok(r: Promise<CallResult>, status = 201): Promise<Body> {
  const res = await r;
  expect(res.status, res.text).toBe(status);
  return res.json;
}

/** An account (the operator's when `account` is undefined) with a key and one resource of each kind. */
async function tenant(name: string, account?: string): Promise<Tenant> {
  const id = account ?? (await ok(h.call('POST', '/accounts', { body: { description: name } }))).id;
  const key = account === undefined ? await ok(h.call('POST', '/api_keys', { body: { account_id: id, description: `${name} key` } })) : undefined;
  const token = key?.token ?? h.token;
  const as = (method: string, path: string, body?: unknown): Promise<Body> => ok(h.call(method, path, { token, body }), method === 'POST' ? 201 : 200);
  const ownKey = await as('POST', '/api_keys', { description: `${name} second key` });
  const domain = await as('POST', '/reserved_domains', { domain: `*.${name}.matrix.test` });
  // Verified (by the operator, by hand), so that it holds its names against other accounts.
  await ok(h.call('POST', `/reserved_domains/${domain.id}/verify`, { body: { manual: true } }), 200);
  const policy = await as('POST', '/ip_policies', { description: name });
  const rule = await as('POST', '/ip_policy_rules', { cidr: '192.0.2.0/24', action: 'allow', ip_policy_id: policy.id });
  // A name under its own reservation, and a TCP address it reserved.
  const addr = await as('POST', '/reserved_addrs', { description: name });
  const edge = await as('POST', '/edges/tcp', { hostports: [`1.tcp.${name}.matrix.test:20000`, addr.addr] });
  await as('PUT', `/edges/tcp/${edge.id}/ip_restriction`, { ip_policy_ids: [policy.id] });
  const dest = await as('POST', '/event_destinations', { target: { file: { path: `${name}/events.ndjson` } } });
  const sub = await as('POST', '/event_subscriptions', { sources: [{ type: 'api_key_created.v0' }, { type: 'http_request_complete.v0', fields: ['conn.server_name'] }], destination_ids: [dest.id] });
  const ids = { account: id, api_key: ownKey.id, reserved_domain: domain.id, ip_policy: policy.id, ip_policy_rule: rule.id, tcp_edge: edge.id, tcp_address: addr.id, event_destination: dest.id, event_subscription: sub.id } as Record<IdKind, string>;
  const views = new Map<string, Body>();
  for (const [, kind, collection] of KIND_OF_PATH) {
    if (kind !== 'account') views.set(ids[kind], await ok(h.call('GET', `${collection}/${ids[kind]}`, { token }), 200));
  }
  return { account: id, token, ids, sourceType: 'api_key_created.v0', views };
}

/** The id a route's path takes from `owner`, or a fresh id of the same kind (which names nothing). */
function idFor(route: DocumentedRoute, owner: Tenant | undefined): string {
  const entry = KIND_OF_PATH.find(([prefix]) => route.path.startsWith(prefix));
  if (entry === undefined) throw new Error(`the matrix has no resource for ${route.method} ${route.path}: add it to KIND_OF_PATH`);
  return owner?.ids[entry[1]] ?? newId(entry[1]);
}

/** A body the prober's own account could send to the route: only the id in the path can make it fail. */
function bodyFor(route: DocumentedRoute, prober: Tenant): unknown {
  if (route.method === 'PUT') return { ip_policy_ids: [prober.ids.ip_policy] };
  if (route.method === 'PATCH') return route.path.endsWith('{type}') ? {} : { description: 'a probe' };
  if (route.method === 'POST' && route.path.endsWith('/sources')) return { type: 'api_key_deleted.v0' };
  if (route.method === 'POST' && route.path.endsWith('/replays')) return { from: new Date(Date.now() - 3_600_000).toISOString() };
  return undefined;
}

const query = (route: DocumentedRoute): string => (route.path.endsWith('/decision') ? '?ip=192.0.2.1' : '');

beforeAll(async () => {
  h = await startAdmin();
  routes = (await h.openapi()).routes();
  a = await tenant('alpha');
  b = await tenant('bravo');
  operator = await tenant('operator', (await ok(h.call('GET', '/accounts'), 200)).accounts[0].id);
}, 120_000);

afterAll(async () => {
  await h?.stop();
  process.stdout.write(`account matrix: ${figures.probes} probes of another account's ids on ${routes?.length ?? 0} operations, ${figures.lists} lists, ${figures.references} references; all refused\n`);
});

describe("the two-account matrix: one account's key on another's resources", () => {
  const pairs: [string, () => Tenant, () => Tenant][] = [
    ["bravo's key on alpha's", () => b, () => a],
    ["alpha's key on the operator's", () => a, () => operator],
  ];
  for (const [name, prober, owner] of pairs) {
    it(`${name} ids should be answered on every route exactly as ids that name nothing: 404, or 403 on /accounts`, async () => {
      const items = routes.filter((r) => r.path.includes('{'));
      expect(items.length).toBeGreaterThan(25);
      for (const route of items) {
        const send = (id: string) => {
          const path = route.path.replace('{id}', id).replace('{type}', owner().sourceType);
          return h.call(route.method, `${path}${query(route)}`, { token: prober().token, body: bodyFor(route, prober()) });
        };
        const theirId = idFor(route, owner());
        const noId = idFor(route, undefined);
        const theirs = await send(theirId);
        const nobodys = await send(noId);
        const where = `${route.method} ${route.path}`;
        const expected = route.path.startsWith('/accounts/') ? 403 : 404;
        expect([where, theirs.status]).toEqual([where, expected]);
        // The same body, word for word, but for the id the path named: nothing tells the two apart.
        expect(theirs.text.replaceAll(theirId, '<id>'), where).toBe(nobodys.text.replaceAll(noId, '<id>'));
        figures.probes++;
      }
    });

    it(`${name} resources should be in none of the prober's lists, whatever the query`, async () => {
      const lists = routes.filter((r) => r.method === 'GET' && !r.path.includes('{'));
      expect(lists.length).toBeGreaterThan(6);
      const queries = ['', `?ip_policy_id=${owner().ids.ip_policy}`, `?account_id=${owner().account}`, '?limit=1'];
      for (const route of lists) {
        for (const q of queries) {
          const r = await h.call('GET', `${route.path}${q}`, { token: prober().token });
          if (route.path === '/accounts') {
            expect([route.path, r.status]).toEqual([route.path, 403]);
            continue;
          }
          if (r.status === 400) continue; // a query parameter the list does not take
          expect([route.path + q, r.status]).toEqual([route.path + q, 200]);
          for (const id of Object.values(owner().ids)) expect(r.text, `${route.path}${q} shows ${id}`).not.toContain(id);
          figures.lists++;
        }
      }
    });

    it(`references to ${name} resources should be refused as unknown, and a taken domain or hostport not named`, async () => {
      const o = owner();
      const p = prober();
      const refused = async (method: string, path: string, body: unknown, status: number, code: string): Promise<Body> => {
        const r = await h.call(method, path, { token: p.token, body });
        expect([method, path, r.status, r.json?.error_code], r.text).toEqual([method, path, status, code]);
        // The id the request sent may be echoed; no other id of the owner's may appear.
        const sent = `${path} ${JSON.stringify(body)}`;
        for (const id of Object.values(o.ids)) if (!sent.includes(id)) expect(r.text, `${method} ${path} names ${id}`).not.toContain(id);
        figures.references++;
        return r.json;
      };
      await refused('POST', '/event_subscriptions', { destination_ids: [o.ids.event_destination] }, 400, 'unknown_reference');
      await refused('PATCH', `/event_subscriptions/${p.ids.event_subscription}`, { destination_ids: [o.ids.event_destination] }, 400, 'unknown_reference');
      await refused('POST', '/ip_policy_rules', { cidr: '198.51.100.0/24', action: 'deny', ip_policy_id: o.ids.ip_policy }, 400, 'unknown_reference');
      await refused('PUT', `/edges/tcp/${p.ids.tcp_edge}/ip_restriction`, { ip_policy_ids: [o.ids.ip_policy] }, 400, 'unknown_reference');
      await refused('POST', '/api_keys', { account_id: o.account }, 400, 'unknown_reference');
      const [named, address] = (o.views.get(o.ids.tcp_edge) as Body).hostports as string[];
      await refused('POST', '/edges/tcp', { hostports: [address] }, 409, 'hostport_not_reserved');
      await refused('PATCH', `/edges/tcp/${p.ids.tcp_edge}`, { hostports: [address] }, 409, 'hostport_not_reserved');
      await refused('POST', '/edges/tcp', { hostports: [named] }, 409, 'hostport_name_reserved');
      await refused('PATCH', `/edges/tcp/${p.ids.tcp_edge}`, { hostports: [named] }, 409, 'hostport_name_reserved');
      const wildcard = (o.views.get(o.ids.reserved_domain) as Body).domain as string;
      await refused('POST', '/reserved_domains', { domain: wildcard }, 409, 'domain_reserved');
      await refused('POST', '/reserved_domains', { domain: `shop.${wildcard.slice(2)}` }, 409, 'domain_reserved');
      await refused('POST', '/reserved_domains', { domain: `*.${wildcard.split('.').slice(2).join('.')}` }, 409, 'domain_reserved');
    });

    it(`${name} resources should be exactly as they were after every probe`, async () => {
      const o = owner();
      for (const [id, view] of o.views) {
        const entry = KIND_OF_PATH.find(([, kind]) => o.ids[kind] === id) as (typeof KIND_OF_PATH)[number];
        expect((await h.call('GET', `${entry[2]}/${id}`, { token: o.token })).json, id).toEqual(view);
      }
    });
  }
});
