// Tests of the generated client networks: valid, distinct, both families, and addresses that fall inside their network.
import { describe, expect, it } from 'vitest';
import { cidrContainsIP, hasZeroHostBits, isCanonicalIP, parseCIDR, parseIP } from '../../../src/net/ip.js';
import { ClientAddresses, buildClientNetworks } from '../../../src/traffic/client-networks.js';
import { seededRandom } from '../../../src/traffic/random.js';

const options = { ipv4Networks: 300, ipv6Networks: 100, ipv6Share: 0.3, exponent: 0.8 };

describe('client networks', () => {
  it('should build the requested number of distinct, canonical networks of each family', () => {
    const nets = buildClientNetworks(seededRandom(1), options);
    expect(nets.filter((n) => n.family === 4)).toHaveLength(300);
    expect(nets.filter((n) => n.family === 6)).toHaveLength(100);
    expect(new Set(nets.map((n) => n.cidr)).size).toBe(400);
    for (const n of nets) {
      const cidr = parseCIDR(n.cidr);
      expect(cidr, n.cidr).toBeDefined();
      expect(hasZeroHostBits(cidr as NonNullable<typeof cidr>), n.cidr).toBe(true);
      expect(cidr?.ip.family).toBe(n.family);
    }
    const v6 = nets.filter((n) => n.family === 6).reduce((s, n) => s + n.share, 0);
    expect(v6).toBeCloseTo(0.3, 9);
    expect(nets.reduce((s, n) => s + n.share, 0)).toBeCloseTo(1, 9);
  });

  it('should keep client networks out of private, loopback and documentation space', () => {
    for (const n of buildClientNetworks(seededRandom(3), options)) {
      if (n.family === 4) {
        const first = Number(n.cidr.split('.')[0]);
        expect([0, 10, 127, 169, 172, 192, 198].includes(first) || first >= 224, n.cidr).toBe(false);
      } else {
        expect(n.cidr.startsWith('2001:db8'), n.cidr).toBe(false);
        expect(/^2[0-9a-c]/.test(n.cidr), n.cidr).toBe(true);
      }
    }
  });

  it('should draw canonical addresses inside the network they report, in both families', () => {
    const nets = buildClientNetworks(seededRandom(5), options);
    const clients = new ClientAddresses(nets);
    const r = seededRandom(9);
    let v6 = 0;
    const draws = 20_000;
    for (let i = 0; i < draws; i++) {
      const { ip, network } = clients.draw(r);
      const addr = parseIP(ip);
      expect(addr, ip).toBeDefined();
      expect(isCanonicalIP(ip), ip).toBe(true);
      expect(cidrContainsIP(parseCIDR(network.cidr) as NonNullable<ReturnType<typeof parseCIDR>>, addr as NonNullable<typeof addr>), `${ip} in ${network.cidr}`).toBe(true);
      if (addr?.family === 6) v6++;
    }
    expect(v6 / draws).toBeGreaterThan(0.27);
    expect(v6 / draws).toBeLessThan(0.33);
  });
});
