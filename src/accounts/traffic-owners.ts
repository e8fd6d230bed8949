// Who owns a traffic record (SECURITY.md "Traffic ownership"): the live table of reserved domains, reserved
// TCP addresses and TCP edge hostports, read by the subscription matcher once per record to pick the owner's
// subscriptions, and by the admin API for which hostports an account may list (mayList). It follows the
// config log, so a domain reserved or an edge changed applies to the next record.
import { formatIP, parseIP } from '../net/ip.js';
import { indexedField } from '../cel/indexed-fields.js';
import type { ConfigChange, ConfigLog } from '../configlog/config-log.js';
import { TRAFFIC_EVENT_TYPES, TRAFFIC_OWNERSHIP, type TrafficEventType } from '../events/catalog.js';
import { OPERATOR_ACCOUNT_ID, accountOf, type Owned } from './account.js';
import { isAddressHost, wildcardBase } from './domain-names.js';

/** The parts of a stored reserved domain and TCP edge the table reads. */
interface StoredDomain extends Owned {
  readonly id: string;
  readonly domain: string;
  /** Only a verified reservation owns traffic; absent (reserved before verification existed) is verified. */
  readonly status?: 'pending' | 'verified';
}
interface StoredEdge extends Owned {
  readonly id: string;
  readonly hostports: readonly string[];
}
/** A reserved TCP address (src/admin/tcp-addresses/): a canonical hostport of the operator's pool. */
interface StoredAddress extends Owned {
  readonly id: string;
  readonly addr: string;
}

/** One resource's claim on a name; when two claim it (replicas that raced), the older resource's holds. */
interface Claim {
  readonly id: string;
  readonly account: string;
}

/**
 * Claims by key, and the winning account of each key in a plain map for the hot path. The API keeps a
 * name to one account; two claims exist only when two replicas passed the same check at once.
 */
class Claims<K> {
  private readonly all = new Map<K, Claim[]>();

  constructor(private readonly onOwner: (key: K, account: string | undefined) => void) {}

  add(key: K, claim: Claim): void {
    const list = (this.all.get(key) ?? []).filter((c) => c.id !== claim.id);
    list.push(claim);
    list.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    this.all.set(key, list);
    this.onOwner(key, (list[0] as Claim).account);
  }

  /** The claims on `key`, the holding one first. */
  of(key: K): readonly Claim[] {
    return this.all.get(key) ?? [];
  }

  keys(): IterableIterator<K> {
    return this.all.keys();
  }

  remove(key: K, id: string): void {
    const list = (this.all.get(key) ?? []).filter((c) => c.id !== id);
    if (list.length === 0) this.all.delete(key);
    else this.all.set(key, list);
    this.onOwner(key, list[0]?.account);
  }
}

/** "host:port" of a stored (canonical) hostport, the brackets of an IPv6 host removed. */
function splitHostport(hostport: string): { host: string; port: number } {
  const colon = hostport.lastIndexOf(':');
  const host = hostport.slice(0, colon);
  return { host: host.startsWith('[') ? host.slice(1, -1) : host, port: Number(hostport.slice(colon + 1)) };
}

/** A host as edges store it: a lowercase name or a canonical IP (the hostport rules, src/admin/tcp-edges/hostport.ts). */
function canonicalHost(host: string): string {
  const ip = parseIP(host);
  return ip === undefined ? host.toLowerCase() : formatIP(ip);
}

const serverName = indexedField('conn.server_name')?.read as (ev: unknown) => unknown;
const serverPort = indexedField('conn.server_port')?.read as (ev: unknown) => unknown;

export class TrafficOwners {
  /** Exact reserved names -> account. */
  private readonly exact = new Map<string, string>();
  /** Bases of wildcards ("example.com" for "*.example.com") -> account. */
  private readonly wildcards = new Map<string, string>();
  /** The lengths of the wildcard bases, longest first (the longest wildcard wins), with their counts. */
  private baseLengths: number[] = [];
  private readonly lengthCounts = new Map<number, number>();
  /** TCP hosts -> port -> account. */
  private readonly tcp = new Map<string, Map<number, string>>();
  private readonly exactClaims = new Claims<string>((k, a) => (a === undefined ? this.exact.delete(k) : this.exact.set(k, a)));
  private readonly wildcardClaims = new Claims<string>((k, a) => this.setWildcard(k, a));
  private readonly hostportClaims = new Claims<string>((k) => this.refreshHostport(k));
  /** Reserved TCP addresses -> account; two only when two replicas allocated one at once (the older holds). */
  private readonly reservedAddrs = new Map<string, string>();
  private readonly addressClaims = new Claims<string>((k, a) => {
    if (a === undefined) this.reservedAddrs.delete(k);
    else this.reservedAddrs.set(k, a);
    this.hostportsStale = true;
  });
  private readonly addresses = new Map<string, string>();
  /** A reserved domain changed since the hostports' owners were worked out: they are again before the next lookup. */
  private hostportsStale = false;
  /** What each resource claims, so a change or a delete withdraws exactly that. */
  private readonly domains = new Map<string, string>();
  private readonly edges = new Map<string, readonly string[]>();
  /** Records of each traffic type that belonged to nobody, not yet taken by takeUnowned(). */
  private readonly unowned = new Float64Array(TRAFFIC_EVENT_TYPES.length);
  private unsubscribe: (() => void) | undefined;

  /** Loads every reserved domain and TCP edge in the config log and follows their changes. */
  follow(configLog: ConfigLog): void {
    for (const v of configLog.list('reserved_domain')) this.putDomain(v.data as unknown as StoredDomain);
    for (const v of configLog.list('tcp_address')) this.putAddress(v.data as unknown as StoredAddress);
    for (const v of configLog.list('tcp_edge')) this.putEdge(v.data as unknown as StoredEdge);
    this.unsubscribe = configLog.onChange((c) => this.onChange(c));
  }

  stop(): void {
    this.unsubscribe?.();
  }

  putDomain(d: StoredDomain): void {
    this.removeDomain(d.id);
    this.hostportsStale = true;
    // A pending reservation has not proved control of its name: its traffic stays nobody's.
    if (d.status === 'pending') return;
    this.domains.set(d.id, d.domain);
    const claim = { id: d.id, account: accountOf(d) };
    const base = wildcardBase(d.domain);
    if (base === undefined) this.exactClaims.add(d.domain, claim);
    else this.wildcardClaims.add(base, claim);
  }

  removeDomain(id: string): void {
    const domain = this.domains.get(id);
    if (domain === undefined) return;
    this.domains.delete(id);
    this.hostportsStale = true;
    const base = wildcardBase(domain);
    if (base === undefined) this.exactClaims.remove(domain, id);
    else this.wildcardClaims.remove(base, id);
  }

  putEdge(e: StoredEdge): void {
    this.removeEdge(e.id);
    this.edges.set(e.id, e.hostports);
    for (const h of e.hostports) this.hostportClaims.add(h, { id: e.id, account: accountOf(e) });
  }

  removeEdge(id: string): void {
    const hostports = this.edges.get(id);
    if (hostports === undefined) return;
    this.edges.delete(id);
    for (const h of hostports) this.hostportClaims.remove(h, id);
  }

  putAddress(a: StoredAddress): void {
    this.removeAddress(a.id);
    this.addresses.set(a.id, a.addr);
    this.addressClaims.add(a.addr, { id: a.id, account: accountOf(a) });
  }

  removeAddress(id: string): void {
    const addr = this.addresses.get(id);
    if (addr === undefined) return;
    this.addresses.delete(id);
    this.addressClaims.remove(addr, id);
  }

  /** The account that reserved this (canonical) hostport as a TCP address, if one did. */
  reservedBy(hostport: string): string | undefined {
    return this.reservedAddrs.get(hostport);
  }

  /**
   * Whether an edge of `account` may list this canonical hostport, and own its traffic (SECURITY.md "Traffic
   * ownership"): a TCP address is its reserver's alone; a host name under a verified reservation its holder's
   * alone; any other hostport (an address nobody reserved, an IP literal, a name nobody holds) the operator
   * account's alone. So a normal account's edge lists only what it reserved, or names it proved it controls.
   */
  mayList(account: string, hostport: string): boolean {
    const reserved = this.reservedAddrs.get(hostport);
    if (reserved !== undefined) return reserved === account;
    const { host } = splitHostport(hostport);
    const holder = isAddressHost(host) ? undefined : this.ownerOfName(host);
    if (holder !== undefined) return holder === account;
    return account === OPERATOR_ACCOUNT_ID;
  }

  /** The account that reserved `name`: the exact name, else the longest wildcard covering it. */
  ownerOfName(name: string): string | undefined {
    const exact = this.exact.get(name);
    if (exact !== undefined) return exact;
    // Names are case-insensitive, and reservations are stored lowercase.
    const lower = name.toLowerCase();
    if (lower !== name) return this.ownerOfName(lower);
    const lengths = this.baseLengths;
    for (let i = 0; i < lengths.length; i++) {
      // A base of this length covers the name when the name ends with "." and the base.
      const dot = name.length - (lengths[i] as number) - 1;
      if (dot > 0 && name.charCodeAt(dot) === 46) {
        const owner = this.wildcards.get(name.slice(dot + 1));
        if (owner !== undefined) return owner;
      }
    }
    return undefined;
  }

  /**
   * The account whose TCP edge has host:port among its hostports and may list it (mayList): an edge that
   * listed it before reservations were required, or before another account verified its name, owns nothing
   * of it (SECURITY.md "Traffic ownership"). Worked out when an edge or a reservation changes
   * (refreshHostport), not per record.
   */
  ownerOfHostport(host: string, port: number): string | undefined {
    if (this.hostportsStale) this.refreshHostports();
    const owner = this.tcp.get(host)?.get(port);
    if (owner !== undefined) return owner;
    const canonical = canonicalHost(host);
    return canonical === host ? undefined : this.tcp.get(canonical)?.get(port);
  }

  /** The owner of a record (its filterable fields), uncounted: for readers beside the matcher, such as a live tap. */
  ownerOfRecord(eventType: TrafficEventType, ev: unknown): string | undefined {
    const name = serverName(ev);
    if (typeof name !== 'string') return undefined;
    if (TRAFFIC_OWNERSHIP[eventType] === 'domain') return this.ownerOfName(name);
    const port = serverPort(ev);
    return typeof port === 'number' ? this.ownerOfHostport(name, port) : undefined;
  }

  /**
   * How the matcher of `eventType` finds a record's owner (`ev` is the record's filterable fields): the
   * owning account's id, or undefined for a record that belongs to nobody, which is counted.
   */
  reader(eventType: TrafficEventType): (ev: unknown) => string | undefined {
    const counts = this.unowned;
    const at = TRAFFIC_EVENT_TYPES.indexOf(eventType);
    // With nothing reserved every record is nobody's: counted with no lookup at all.
    if (TRAFFIC_OWNERSHIP[eventType] === 'domain') {
      return (ev) => {
        if (this.exact.size === 0 && this.wildcards.size === 0) {
          counts[at] = (counts[at] as number) + 1;
          return undefined;
        }
        const name = serverName(ev);
        const owner = typeof name === 'string' ? this.ownerOfName(name) : undefined;
        if (owner === undefined) counts[at] = (counts[at] as number) + 1;
        return owner;
      };
    }
    return (ev) => {
      if (this.hostportsStale) this.refreshHostports();
      if (this.tcp.size === 0) {
        counts[at] = (counts[at] as number) + 1;
        return undefined;
      }
      const name = serverName(ev);
      const port = serverPort(ev);
      const owner = typeof name === 'string' && typeof port === 'number' ? this.ownerOfHostport(name, port) : undefined;
      if (owner === undefined) counts[at] = (counts[at] as number) + 1;
      return owner;
    };
  }

  /** The records of each type that belonged to nobody since the last call. */
  takeUnowned(): [TrafficEventType, number][] {
    const out: [TrafficEventType, number][] = [];
    TRAFFIC_EVENT_TYPES.forEach((t, i) => {
      const n = this.unowned[i] as number;
      if (n > 0) out.push([t, n]);
      this.unowned[i] = 0;
    });
    return out;
  }

  private onChange(c: ConfigChange): void {
    const after = c.after?.data;
    if (c.kind === 'reserved_domain') {
      if (after === undefined) this.removeDomain(c.id);
      else this.putDomain(after as unknown as StoredDomain);
    } else if (c.kind === 'tcp_edge') {
      if (after === undefined) this.removeEdge(c.id);
      else this.putEdge(after as unknown as StoredEdge);
    } else if (c.kind === 'tcp_address') {
      if (after === undefined) this.removeAddress(c.id);
      else this.putAddress(after as unknown as StoredAddress);
    }
  }

  private setWildcard(base: string, account: string | undefined): void {
    const had = this.wildcards.has(base);
    if (account === undefined) this.wildcards.delete(base);
    else this.wildcards.set(base, account);
    const delta = (account === undefined ? 0 : 1) - (had ? 1 : 0);
    if (delta === 0) return;
    const n = (this.lengthCounts.get(base.length) ?? 0) + delta;
    if (n === 0) this.lengthCounts.delete(base.length);
    else this.lengthCounts.set(base.length, n);
    this.baseLengths = [...this.lengthCounts.keys()].sort((a, b) => b - a);
  }

  /** Works out who owns a hostport: the account of its oldest edge that may list it (mayList), else nobody. */
  private refreshHostport(hostport: string): void {
    const owner = this.hostportClaims.of(hostport).find((c) => this.mayList(c.account, hostport))?.account;
    this.setHostport(hostport, owner);
  }

  private refreshHostports(): void {
    this.hostportsStale = false;
    for (const hostport of this.hostportClaims.keys()) this.refreshHostport(hostport);
  }

  private setHostport(hostport: string, account: string | undefined): void {
    const { host, port } = splitHostport(hostport);
    let ports = this.tcp.get(host);
    if (account !== undefined) {
      if (ports === undefined) this.tcp.set(host, (ports = new Map()));
      ports.set(port, account);
    } else if (ports !== undefined) {
      ports.delete(port);
      if (ports.size === 0) this.tcp.delete(host);
    }
  }
}
