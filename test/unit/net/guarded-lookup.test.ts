import { describe, expect, it } from 'vitest';
import { AddressRefusedError, addressGuard, addressRefusalIn, type HostResolver } from '../../../src/net/guarded-lookup.js';
import { DEFAULT_EGRESS } from '../../support/writer-deps.js';

describe('the address guard', () => {
  const asked: string[] = [];
  const resolve: HostResolver = (host) => {
    asked.push(host);
    const answers: Record<string, string[]> = { 'public.test': ['93.184.216.34', '2606:4700:4700::1111'], 'mixed.test': ['93.184.216.34', '10.0.0.7'], 'nothing.test': [] };
    return Promise.resolve((answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
  const guard = addressGuard(resolve, DEFAULT_EGRESS.addressRefusal);

  it('should answer the address to connect to, a literal as written and a name as resolved', async () => {
    expect(await guard('93.184.216.34')).toEqual({ address: '93.184.216.34', family: 4 });
    expect(await guard('[2606:4700:4700::1111]')).toEqual({ address: '2606:4700:4700::1111', family: 6 });
    expect(await guard('public.test')).toEqual({ address: '93.184.216.34', family: 4 });
    expect(asked).toEqual(['public.test']);
  });

  it('should refuse a literal inside the network without resolving it, and a name with any address inside', async () => {
    asked.length = 0;
    await expect(guard('127.0.0.1')).rejects.toMatchObject({ code: 'EADDRESSREFUSED', message: expect.stringMatching(/^127\.0\.0\.1 is a loopback address/) });
    await expect(guard('[::ffff:0:7f00:1]')).rejects.toBeInstanceOf(AddressRefusedError);
    expect(asked).toEqual([]);
    await expect(guard('mixed.test')).rejects.toMatchObject({ host: 'mixed.test', message: expect.stringMatching(/^mixed\.test resolved to an address that is refused: 10\.0\.0\.7 is a private/) });
    await expect(guard('nothing.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  it('should find a refusal that a client wrapped, or whose code it kept in an error of its own', () => {
    const refused = new AddressRefusedError('k.test', '10.0.0.7 is a private address');
    expect(addressRefusalIn(new AggregateError([new Error('other'), { cause: refused }]))).toBe(refused.message);
    expect(addressRefusalIn({ originalError: { code: 'EADDRESSREFUSED', message: 'Connection error: k.test resolved to …' } })).toBe('Connection error: k.test resolved to …');
    expect(addressRefusalIn(new Error('connect ECONNREFUSED 1.2.3.4:9092'))).toBeUndefined();
  });
});
