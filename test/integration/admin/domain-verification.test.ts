// Reserved domains prove control before they own traffic (SECURITY.md "Traffic ownership"): a public suffix
// is refused; a reservation starts pending with a DNS TXT challenge, becomes verified once a real DNS server
// (on 127.0.0.1, the service's DNS_RESOLVER) answers with the challenge, or when the operator account
// verifies it by hand; another account's pending reservation blocks no one; audit events carry the status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeUntil, testClient, uniqueName } from '../../support/kafka.js';
import { startDnsServer, type TestDnsServer } from '../../support/dns-server.js';
import { startAdmin, type AdminHarness, type Body, type CallResult } from './admin-harness.js';

let h: AdminHarness;
let dns: TestDnsServer;

beforeAll(async () => {
  dns = await startDnsServer();
  // No periodic re-check here, so each test counts the questions its own calls ask.
  h = await startAdmin({ env: { DNS_RESOLVER: dns.address, DOMAIN_RECHECK_INTERVAL_MS: '0' } });
});
afterAll(async () => {
  await h?.stop();
  await dns?.stop();
});

async function ok(r: Promise<CallResult>, status = 201): Promise<Body> {
  const res = await r;
  expect(res.status, res.text).toBe(status);
  return res.json;
}

async function account(description: string): Promise<string> {
  const a = await ok(h.call('POST', '/accounts', { body: { description } }));
  return (await ok(h.call('POST', '/api_keys', { body: { account_id: a.id } }))).token as string;
}

/** A name of its own under .test for each test. */
const zone = (): string => `${uniqueName('dv').toLowerCase().replace(/[^a-z0-9]/g, '')}.test`;

describe('reserved domains and public suffixes', () => {
  it('should refuse a public suffix, whole or as a wildcard, from the ICANN and the private sections, and take a name below one', async () => {
    const token = await account('suffixes');
    for (const [domain, suffix] of [['*.co.uk', 'co.uk'], ['co.uk', 'co.uk'], ['*.github.io', 'github.io'], ['github.io', 'github.io'], ['*.s3.amazonaws.com', 's3.amazonaws.com']]) {
      const r = await h.call('POST', '/reserved_domains', { token, body: { domain } });
      expect([domain, r.status, r.json.error_code, r.json.details]).toEqual([
        domain,
        400,
        'public_suffix',
        { field: 'domain', domain, public_suffix: suffix, problems: [{ path: 'domain', code: 'public_suffix', message: expect.stringContaining(`public suffix ${suffix} whole`) }] },
      ]);
    }
    for (const domain of [`shop${zone()}.co.uk`, `*.me${zone()}.github.io`]) expect((await ok(h.call('POST', '/reserved_domains', { token, body: { domain } }))).status).toBe('pending');
  });
});

describe('verifying a reserved domain', () => {
  it('should stay pending until its TXT record holds the challenge, then be verified, with audit events of each state', async () => {
    const token = await account('verifies');
    const base = `shop.${zone()}`;
    const made = await ok(h.call('POST', '/reserved_domains', { token, body: { domain: `*.${base}` } }));
    const name = `_edge-events-challenge.${base}`;
    expect(made).toMatchObject({ status: 'pending', verified_at: null, verified_by: null, verification: { record_type: 'TXT', record_name: name, record_value: expect.stringMatching(/^edge-events-verification=[A-Za-z0-9_-]{22}$/) } });
    const verify = () => h.call('POST', `/reserved_domains/${made.id}/verify`, { token });

    let r = await verify();
    expect([r.status, r.json.error_code, r.json.details]).toEqual([422, 'domain_not_verified', { domain: `*.${base}`, record_name: name, reason: `${name} has no TXT record` }]);
    expect(dns.questions).toContain(name);
    dns.txt.set(name, [['v=spf1 -all'], ['edge-events-verification=someone-else']]);
    r = await verify();
    expect([r.status, r.json.details.reason]).toEqual([422, `none of the 2 TXT record(s) of ${name} holds the challenge value`]);
    expect((await ok(h.call('GET', `/reserved_domains/${made.id}`, { token }), 200)).status).toBe('pending');

    // A value published in two character strings counts, as it is read joined.
    const value = made.verification.record_value as string;
    dns.txt.set(name, [['v=spf1 -all'], [value.slice(0, 10), value.slice(10)]]);
    const verified = await ok(verify(), 200);
    expect(verified).toMatchObject({ id: made.id, status: 'verified', verified_by: 'dns', verified_at: expect.any(String), verification: made.verification });
    dns.txt.delete(name);
    // Verifying again answers it as it is, with no look-up.
    const asked = dns.questions.length;
    expect(await ok(verify(), 200)).toEqual(verified);
    expect(dns.questions.length).toBe(asked);

    const events = await consumeUntil(testClient(), { topics: [h.env.TOPIC_AUDIT as string], until: (got) => got.filter((m) => m.key === made.id).length >= 2, timeoutMs: 30_000 });
    const mine = events.filter((m) => m.key === made.id).map((m) => JSON.parse(m.value ?? '{}') as Body);
    expect(mine.map((e) => [e.event_type, e.object.status, e.object.verified_by, e.object.verification.record_name])).toEqual([
      ['domain_created.v0', 'pending', null, name],
      ['domain_updated.v0', 'verified', 'dns', name],
    ]);
  });

  it("should let the operator account verify any account's reservation by hand, and no one else", async () => {
    const token = await account('by hand');
    const made = await ok(h.call('POST', '/reserved_domains', { token, body: { domain: `www.${zone()}` } }));
    const refused = await h.call('POST', `/reserved_domains/${made.id}/verify`, { token, body: { manual: true } });
    expect([refused.status, refused.json.error_code]).toEqual([403, 'forbidden']);
    const asked = dns.questions.length;
    const verified = await ok(h.call('POST', `/reserved_domains/${made.id}/verify`, { body: { manual: true } }), 200);
    expect(verified).toMatchObject({ id: made.id, account_id: made.account_id, status: 'verified', verified_by: 'operator' });
    expect(dns.questions.length).toBe(asked);
    expect((await ok(h.call('GET', `/reserved_domains/${made.id}`, { token }), 200)).status).toBe('verified');
    // Another account's reservation stays out of reach of other normal accounts.
    const other = await account('stranger');
    expect((await h.call('POST', `/reserved_domains/${made.id}/verify`, { token: other })).status).toBe(404);
  });

  it("should let another account reserve a name someone holds pending, and give it to whoever verifies first", async () => {
    const [alpha, bravo] = [await account('alpha'), await account('bravo')];
    const base = zone();
    const a = await ok(h.call('POST', '/reserved_domains', { token: alpha, body: { domain: `*.${base}` } }));
    // Alpha's is pending: it proves nothing, so it does not keep bravo out.
    const b = await ok(h.call('POST', '/reserved_domains', { token: bravo, body: { domain: `shop.${base}` } }));
    dns.txt.set(`_edge-events-challenge.${base}`, [[a.verification.record_value]]);
    dns.txt.set(`_edge-events-challenge.shop.${base}`, [[b.verification.record_value]]);
    expect((await ok(h.call('POST', `/reserved_domains/${a.id}/verify`, { token: alpha }), 200)).status).toBe('verified');
    const late = await h.call('POST', `/reserved_domains/${b.id}/verify`, { token: bravo });
    expect([late.status, late.json.error_code, late.json.details.by]).toEqual([409, 'domain_reserved', "another account's reservation"]);
    const again = await h.call('POST', '/reserved_domains', { token: bravo, body: { domain: `www.${base}` } });
    expect([again.status, again.json.error_code]).toEqual([409, 'domain_reserved']);
  });
});

describe('re-checking pending reserved domains', () => {
  it('should verify a pending reservation by itself once its record is published, with the service as principal', async () => {
    const checking = await startAdmin({ env: { DNS_RESOLVER: dns.address, DOMAIN_RECHECK_INTERVAL_MS: '300' } });
    try {
      const a = await checking.call('POST', '/accounts', { body: {} });
      const token = (await checking.call('POST', '/api_keys', { body: { account_id: a.json.id } })).json.token as string;
      const made = (await checking.call('POST', '/reserved_domains', { token, body: { domain: `*.${zone()}` } })).json;
      const name = made.verification.record_name as string;
      const get = async (): Promise<Body> => (await checking.call('GET', `/reserved_domains/${made.id}`, { token })).json;
      const deadline = Date.now() + 10_000;
      while (!dns.questions.includes(name) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(dns.questions).toContain(name);
      expect((await get()).status).toBe('pending');
      dns.txt.set(name, [[made.verification.record_value]]);
      while ((await get()).status !== 'verified' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(await get()).toMatchObject({ status: 'verified', verified_by: 'dns' });
      const events = await consumeUntil(testClient(), { topics: [checking.env.TOPIC_AUDIT as string], until: (got) => got.filter((m) => m.key === made.id).length >= 2, timeoutMs: 30_000 });
      const updated = events.filter((m) => m.key === made.id).map((m) => JSON.parse(m.value ?? '{}') as Body)[1];
      expect([updated.event_type, updated.principal, updated.object.status]).toEqual(['domain_updated.v0', null, 'verified']);
    } finally {
      await checking.stop();
    }
  });

  it("should re-check one account's pending reservations beside another's, so names whose DNS never answers delay no one else", async () => {
    const checking = await startAdmin({ env: { DNS_RESOLVER: dns.address, DOMAIN_RECHECK_INTERVAL_MS: '300' } });
    try {
      const tokenOf = async (): Promise<string> => {
        const a = await checking.call('POST', '/accounts', { body: {} });
        return (await checking.call('POST', '/api_keys', { body: { account_id: a.json.id } })).json.token as string;
      };
      const slow = await tokenOf();
      const quick = await tokenOf();
      // Ten names whose look-ups each wait out the resolver (two tries of 2 s), reserved first.
      for (let i = 0; i < 10; i++) {
        const made = (await checking.call('POST', '/reserved_domains', { token: slow, body: { domain: zone() } })).json;
        dns.silent.add(made.verification.record_name as string);
      }
      const made = (await checking.call('POST', '/reserved_domains', { token: quick, body: { domain: zone() } })).json;
      dns.txt.set(made.verification.record_name as string, [[made.verification.record_value]]);
      const started = Date.now();
      const get = async (): Promise<Body> => (await checking.call('GET', `/reserved_domains/${made.id}`, { token: quick })).json;
      // One at a time, the ten silent names would hold it back for 40 s.
      while ((await get()).status !== 'verified' && Date.now() - started < 15_000) await new Promise((r) => setTimeout(r, 100));
      expect((await get()).status).toBe('verified');
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      await checking.stop();
    }
  });
});
