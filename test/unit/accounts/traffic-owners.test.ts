// The traffic owners table: whose a record is, from reserved domains (exact, else the longest wildcard)
// and TCP edge hostports, as resources come, change and go; records of nobody's are counted.
import { describe, expect, it } from 'vitest';
import { OPERATOR_ACCOUNT_ID } from '../../../src/accounts/account.js';
import { TrafficOwners } from '../../../src/accounts/traffic-owners.js';

const A = 'acct_A0000000000000000000000000';
const B = 'acct_B0000000000000000000000000';
const http = (serverName: unknown): unknown => ({ conn: { server_name: serverName, server_port: 443 } });
const tcp = (serverName: unknown, port: unknown): unknown => ({ conn: { server_name: serverName, server_port: port } });

describe('TrafficOwners', () => {
  it('should give an http record to the exact reserved name, else to the longest wildcard covering it', () => {
    const owners = new TrafficOwners();
    owners.putDomain({ id: 'rd_1', domain: '*.example.com', account_id: A });
    owners.putDomain({ id: 'rd_2', domain: '*.shop.example.com', account_id: B });
    owners.putDomain({ id: 'rd_3', domain: 'api.shop.example.com', account_id: A });
    const ownerOf = owners.reader('http_request_complete.v0');
    expect(ownerOf(http('www.example.com'))).toBe(A);
    expect(ownerOf(http('x.y.example.com'))).toBe(A);
    expect(ownerOf(http('cart.shop.example.com'))).toBe(B);
    expect(ownerOf(http('api.shop.example.com'))).toBe(A);
    expect(ownerOf(http('Cart.SHOP.example.com'))).toBe(B);
    expect(ownerOf(http('example.com'))).toBeUndefined();
    expect(ownerOf(http('otherexample.com'))).toBeUndefined();
    expect(ownerOf(http(42))).toBeUndefined();
    expect(ownerOf({})).toBeUndefined();
  });

  it('should follow domains as they are removed, and treat a domain written before accounts as the operator\'s', () => {
    const owners = new TrafficOwners();
    owners.putDomain({ id: 'rd_1', domain: '*.example.com', account_id: A });
    owners.putDomain({ id: 'rd_2', domain: '*.shop.example.com', account_id: B });
    owners.removeDomain('rd_2');
    expect(owners.ownerOfName('cart.shop.example.com')).toBe(A);
    owners.removeDomain('rd_1');
    expect(owners.ownerOfName('cart.shop.example.com')).toBeUndefined();
    owners.putDomain({ id: 'rd_3', domain: 'old.example.com' });
    expect(owners.ownerOfName('old.example.com')).toBe(OPERATOR_ACCOUNT_ID);
  });

  it('should leave the traffic of a pending reservation nobody\'s until it is verified', () => {
    const owners = new TrafficOwners();
    owners.putDomain({ id: 'rd_1', domain: '*.example.com', account_id: A, status: 'pending' });
    owners.putDomain({ id: 'rd_2', domain: 'shop.example.com', account_id: B, status: 'verified' });
    expect(owners.ownerOfName('www.example.com')).toBeUndefined();
    expect(owners.ownerOfName('shop.example.com')).toBe(B);
    owners.putDomain({ id: 'rd_1', domain: '*.example.com', account_id: A, status: 'verified' });
    expect(owners.ownerOfName('www.example.com')).toBe(A);
  });

  it('should let the older of two claims on one name hold it, and the other take over when it goes', () => {
    const owners = new TrafficOwners();
    owners.putDomain({ id: 'rd_2', domain: 'shop.example.com', account_id: B });
    owners.putDomain({ id: 'rd_1', domain: 'shop.example.com', account_id: A });
    expect(owners.ownerOfName('shop.example.com')).toBe(A);
    owners.removeDomain('rd_1');
    expect(owners.ownerOfName('shop.example.com')).toBe(B);
  });

  it('should give a tcp record to the edge with its name and port among its hostports, following the edge\'s changes', () => {
    const owners = new TrafficOwners();
    for (const [i, addr] of ['1.tcp.example.net:20000', '192.0.2.1:22', '[2001:db8::1]:443', '1.tcp.example.net:20001'].entries()) owners.putAddress({ id: `ra_${i}`, addr, account_id: B });
    owners.putEdge({ id: 'edgtcp_1', hostports: ['1.tcp.example.net:20000', '192.0.2.1:22', '[2001:db8::1]:443'], account_id: B });
    const ownerOf = owners.reader('tcp_connection_closed.v0');
    expect(ownerOf(tcp('1.tcp.example.net', 20000))).toBe(B);
    expect(ownerOf(tcp('1.TCP.example.net', 20000))).toBe(B);
    expect(ownerOf(tcp('192.0.2.1', 22))).toBe(B);
    expect(ownerOf(tcp('2001:DB8:0::1', 443))).toBe(B);
    expect(ownerOf(tcp('1.tcp.example.net', 20001))).toBeUndefined();
    expect(ownerOf(tcp('1.tcp.example.net', '20000'))).toBeUndefined();
    owners.putEdge({ id: 'edgtcp_1', hostports: ['1.tcp.example.net:20001'], account_id: B });
    expect(owners.ownerOfHostport('1.tcp.example.net', 20000)).toBeUndefined();
    expect(owners.ownerOfHostport('1.tcp.example.net', 20001)).toBe(B);
    owners.removeEdge('edgtcp_1');
    expect(owners.ownerOfHostport('1.tcp.example.net', 20001)).toBeUndefined();
  });

  it("should give a hostport to an edge of the account that reserved it as a TCP address, or holds its name verified; any other only to the operator's", () => {
    const owners = new TrafficOwners();
    const ownerOf = owners.reader('tcp_connection_closed.v0');
    // B's edge lists A's address, an address nobody reserved, and a name under A's pending reservation: none is B's.
    owners.putAddress({ id: 'ra_1', addr: '1.tcp.example.net:20000', account_id: A });
    owners.putDomain({ id: 'rd_1', domain: '*.shop.example.com', account_id: A, status: 'pending' });
    owners.putEdge({ id: 'edgtcp_1', hostports: ['1.tcp.example.net:20000', '198.51.100.7:5432', 'www.shop.example.com:443'], account_id: B });
    expect([tcp('1.tcp.example.net', 20000), tcp('198.51.100.7', 5432), tcp('www.shop.example.com', 443)].map(ownerOf)).toEqual([undefined, undefined, undefined]);
    // A's own edge takes its address and, once verified, its name, though B's edge is older.
    owners.putEdge({ id: 'edgtcp_2', hostports: ['1.tcp.example.net:20000', 'www.shop.example.com:443'], account_id: A });
    expect(ownerOf(tcp('1.tcp.example.net', 20000))).toBe(A);
    expect(ownerOf(tcp('www.shop.example.com', 443))).toBeUndefined();
    owners.putDomain({ id: 'rd_1', domain: '*.shop.example.com', account_id: A, status: 'verified' });
    expect(ownerOf(tcp('WWW.shop.example.com', 443))).toBe(A);
    expect(owners.ownerOfRecord('tcp_connection_closed.v0', tcp('Www.Shop.example.com', 443))).toBe(A);
    // The operator's edge owns an address nobody reserved; B's older claim on it still counts for nothing.
    owners.putEdge({ id: 'edgtcp_3', hostports: ['198.51.100.7:5432'], account_id: OPERATOR_ACCOUNT_ID });
    expect(ownerOf(tcp('198.51.100.7', 5432))).toBe(OPERATOR_ACCOUNT_ID);
    // B reserves that address: its edge holds it now, the operator's no more.
    owners.putAddress({ id: 'ra_2', addr: '198.51.100.7:5432', account_id: B });
    expect(ownerOf(tcp('198.51.100.7', 5432))).toBe(B);
    // A's reservations gone, their hostports are nobody's, never B's.
    owners.removeAddress('ra_1');
    owners.removeDomain('rd_1');
    expect(ownerOf(tcp('1.tcp.example.net', 20000))).toBeUndefined();
    expect(ownerOf(tcp('www.shop.example.com', 443))).toBeUndefined();
    expect(owners.mayList(B, '198.51.100.7:5432')).toBe(true);
    expect(owners.mayList(A, '198.51.100.7:5432')).toBe(false);
    expect(owners.mayList(OPERATOR_ACCOUNT_ID, '203.0.113.9:22')).toBe(true);
    expect(owners.mayList(A, '203.0.113.9:22')).toBe(false);
  });

  it('should count every record as nobody\'s without reading it while nothing is reserved, and see a reservation made later', () => {
    const owners = new TrafficOwners();
    const ofHttp = owners.reader('http_request_complete.v0');
    const ofTcp = owners.reader('tcp_connection_closed.v0');
    const reads = { n: 0 };
    const watched = (name: string, port: number): unknown => ({
      get conn(): unknown {
        reads.n++;
        return { server_name: name, server_port: port };
      },
    });
    expect(ofHttp(watched('a.example.com', 443))).toBeUndefined();
    expect(ofTcp(watched('1.tcp.example.net', 20000))).toBeUndefined();
    expect(reads.n).toBe(0);
    expect(owners.takeUnowned()).toEqual([
      ['http_request_complete.v0', 1],
      ['tcp_connection_closed.v0', 1],
    ]);
    owners.putDomain({ id: 'rd_1', domain: '*.example.com', account_id: A });
    owners.putAddress({ id: 'ra_1', addr: '1.tcp.example.net:20000', account_id: B });
    owners.putEdge({ id: 'edgtcp_1', hostports: ['1.tcp.example.net:20000'], account_id: B });
    expect(ofHttp(watched('a.example.com', 443))).toBe(A);
    expect(ofTcp(watched('1.tcp.example.net', 20000))).toBe(B);
    owners.removeDomain('rd_1');
    owners.removeEdge('edgtcp_1');
    const before = reads.n;
    expect(ofHttp(watched('a.example.com', 443))).toBeUndefined();
    expect(ofTcp(watched('1.tcp.example.net', 20000))).toBeUndefined();
    expect(reads.n).toBe(before);
    expect(owners.takeUnowned()).toEqual([
      ['http_request_complete.v0', 1],
      ['tcp_connection_closed.v0', 1],
    ]);
  });

  it('should count the records of each type that belong to nobody, once taken', () => {
    const owners = new TrafficOwners();
    owners.putDomain({ id: 'rd_1', domain: 'a.example.com', account_id: A });
    const ofHttp = owners.reader('http_request_complete.v0');
    const ofTcp = owners.reader('tcp_connection_closed.v0');
    ofHttp(http('a.example.com'));
    ofHttp(http('b.example.com'));
    ofHttp(http('c.example.com'));
    ofTcp(tcp('a.example.com', 1));
    expect(owners.takeUnowned()).toEqual([
      ['http_request_complete.v0', 2],
      ['tcp_connection_closed.v0', 1],
    ]);
    expect(owners.takeUnowned()).toEqual([]);
  });
});
