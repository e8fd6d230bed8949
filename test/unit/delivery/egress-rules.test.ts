import { describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../../src/config/service-config.js';
import { OPERATOR, accountContext } from '../../../src/accounts/account.js';
import { accountFolder, egressRules } from '../../../src/delivery/egress-rules.js';

describe('egress rules', () => {
  it("should refuse the service's own topics as configured, its retry topics and Kafka's own, and nothing else", () => {
    const rules = egressRules(loadServiceConfig({ TOPIC_CONFIG: 'acme.config', TOPIC_RETRY_PREFIX: 'acme.retry.', TOPIC_STATUS: 'acme.status' }).topics);
    expect(rules.topicRefusal('acme.config')).toBe('it is the config log of this service');
    expect(rules.topicRefusal('acme.status')).toBe('it is the destination status topic of this service');
    expect(rules.topicRefusal('edge.health')).toBe('it is the destination health topic of this service');
    expect(rules.topicRefusal('edge.audit')).toBe('it is the audit topic of this service');
    expect(rules.topicRefusal('edge.dlq')).toBe('it is the dead-letter topic of this service');
    expect(rules.topicRefusal('edge.traffic.tcp_connection_closed.v0')).toBe('it is a raw traffic topic of this service');
    expect(rules.topicRefusal('edge.history')).toBe('it is a delivery history topic of this service');
    expect(rules.topicRefusal('edge.history.hours')).toBe('it is a delivery history topic of this service');
    expect(rules.topicRefusal('acme.retry.ed_1')).toBe("it is under the prefix of this service's retry topics (acme.retry.)");
    expect(rules.topicRefusal('__transaction_state')).toBe("topics beginning with \"__\" are Kafka's own");
    // The defaults of the names it was not given are not reserved.
    for (const free of ['edge.config', 'edge.retry.ed_1', 'acme.config.copy', 'customer.events', '_single']) expect(rules.topicRefusal(free), free).toBeUndefined();
  });

  it('should refuse addresses inside the network unless EGRESS_ALLOW_CIDRS opens their range, judging IPv4-mapped IPv6 by its IPv4 address', () => {
    const strict = egressRules(loadServiceConfig({}).topics, loadServiceConfig({}).egress);
    const opened = egressRules(loadServiceConfig({}).topics, loadServiceConfig({ EGRESS_ALLOW_CIDRS: '10.9.0.0/16, fd00:9::/32' }).egress);
    expect(strict.addressRefusal('169.254.169.254')).toBe(
      '169.254.169.254 is a link-local (cloud metadata services answer there) address (169.254.0.0/16) inside the network, which destinations of this service may not reach',
    );
    for (const address of ['10.9.1.1', '::ffff:10.9.1.1', 'fd00:9::1']) {
      expect([address, strict.addressRefusal(address) !== undefined, opened.addressRefusal(address)]).toEqual([address, true, undefined]);
    }
    for (const address of ['10.8.1.1', '127.0.0.1', 'fd00:8::1']) expect(opened.addressRefusal(address), address).toBeDefined();
    for (const address of ['93.184.216.34', '2606:4700:4700::1111', '::ffff:93.184.216.34']) expect(strict.addressRefusal(address), address).toBeUndefined();
  });

  it('should refuse every address outside EGRESS_ONLY_CIDRS when it is set, public ones included, and an http URL naming one', () => {
    const closed = egressRules(loadServiceConfig({}).topics, loadServiceConfig({ EGRESS_ALLOW_CIDRS: '127.0.0.0/8,::1/128', EGRESS_ONLY_CIDRS: '127.0.0.0/8,::1/128' }).egress);
    for (const address of ['127.0.0.1', '127.5.0.9', '::1']) expect(closed.addressRefusal(address), address).toBeUndefined();
    for (const address of ['93.184.216.34', '2606:4700:4700::1111', '10.0.0.1', '::ffff:93.184.216.34']) {
      expect(closed.addressRefusal(address), address).toBe(`${address} is outside the ranges this service's destinations may reach`);
    }
    expect(closed.urlRefusal(new URL('https://93.184.216.34/hook'))?.code).toBe('internal_address');
  });

  it('should judge IPv6 spellings that carry an IPv4 address by that address, and refuse the IPv6 ranges that lead inside', () => {
    const strict = egressRules(loadServiceConfig({}).topics, loadServiceConfig({}).egress);
    const opened = egressRules(loadServiceConfig({}).topics, loadServiceConfig({ EGRESS_ALLOW_CIDRS: '10.9.0.0/16' }).egress);
    // Each carries 127.0.0.1 or 10.0.0.1: IPv4-translated (RFC 6145), IPv4-compatible (RFC 4291), 6to4 (RFC 3056), NAT64 (RFC 6052).
    const embedded = ['::ffff:0:7f00:1', '::ffff:0:127.0.0.1', '::7f00:1', '::127.0.0.1', '2002:7f00:1::', '2002:a00:1:5::9', '64:ff9b::7f00:1'];
    expect(embedded.map((a) => [a, strict.addressRefusal(a)?.replace(/ address .*/, '')])).toEqual(
      embedded.map((a) => [a, a.includes('a00:1') ? `${a} (carrying 10.0.0.1) is a private (RFC 1918)` : `${a} (carrying 127.0.0.1) is a loopback`]),
    );
    // Whole ranges: local-use NAT64 (RFC 8215), site-local (RFC 3879), Teredo (RFC 4380).
    for (const address of ['64:ff9b:1::a00:1', '64:ff9b:1:ffff::8.8.8.8', 'fec0::1', 'feff::1', '2001::5efe:7f00:1', '2001:0:4136:e378:8000:63bf:3fff:fdd2']) {
      expect(strict.addressRefusal(address), address).toBeDefined();
    }
    // The IPv4 address it carries is what EGRESS_ALLOW_CIDRS opens, as for IPv4-mapped addresses.
    for (const address of ['::ffff:0:10.9.0.1', '::10.9.0.1', '2002:a09:1::', '64:ff9b::10.9.0.1']) expect(opened.addressRefusal(address), address).toBeUndefined();
    // Carrying a public IPv4 address, they reach the internet; :: and ::1 stay unspecified and loopback.
    for (const address of ['::ffff:0:5db8:d822', '::93.184.216.34', '2002:5db8:d822::1', '64:ff9b::93.184.216.34', '2001:db9::1', 'fe00::1']) {
      expect(strict.addressRefusal(address), address).toBeUndefined();
    }
    expect([strict.addressRefusal('::'), strict.addressRefusal('::1')].map((w) => w?.replace(/ inside .*/, ''))).toEqual([':: is a unspecified address (::/128)', '::1 is a loopback address (::1/128)']);
    expect(strict.urlRefusal(new URL('https://[2002:7f00:1::]/x'))?.code).toBe('internal_address');
  });

  it('should call https only unless EGRESS_ALLOW_HTTP, and judge a literal host of a URL at once', () => {
    const strict = egressRules(loadServiceConfig({}).topics);
    const http = egressRules(loadServiceConfig({}).topics, loadServiceConfig({ EGRESS_ALLOW_HTTP: 'true' }).egress);
    expect(strict.urlRefusal(new URL('http://hooks.example/x'))?.code).toBe('insecure_url');
    expect(http.urlRefusal(new URL('http://hooks.example/x'))).toBeUndefined();
    expect(http.urlRefusal(new URL('http://[::1]:8080/x'))?.code).toBe('internal_address');
    // A name is judged by its addresses (the kind's guard and the writer's lookup), not here.
    expect(strict.urlRefusal(new URL('https://localhost/x'))).toBeUndefined();
  });

  it("should give a normal account its topic prefix and folder, the operator none, and refuse file destinations when they are kept for the operator", () => {
    const account = accountContext('acct_01kw0000000000000000000003');
    const rules = egressRules(loadServiceConfig({}).topics, loadServiceConfig({ KAFKA_ACCOUNT_TOPIC_PREFIX: 'tenant.{account_id}-', FILE_DESTINATIONS_FOR_ACCOUNTS: 'false' }).egress);
    expect([rules.topicPrefix(account), rules.topicPrefix(OPERATOR)]).toEqual(['tenant.acct_01kw0000000000000000000003-', undefined]);
    expect([accountFolder(account), accountFolder(OPERATOR)]).toEqual(['acct_01kw0000000000000000000003', '']);
    expect([rules.fileRefusal(account) !== undefined, rules.fileRefusal(OPERATOR)]).toEqual([true, undefined]);
    expect(() => loadServiceConfig({ KAFKA_ACCOUNT_TOPIC_PREFIX: 'shared.' })).toThrow(/must contain \{account_id\}/);
    expect(() => loadServiceConfig({ EGRESS_ALLOW_CIDRS: '10.0.0.1/8' })).toThrow(/host bits set; write 10.0.0.0\/8/);
  });
});
