// Name resolution that refuses addresses: the `lookup` a socket of a destination connects through, so the
// address checked is the address connected to, and a DNS answer that changed since the destination was
// created (DNS rebinding) is caught at the connect (SECURITY.md "Egress").
import { promises as dns, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** Every address of a host name, as the system resolver (getaddrinfo, /etc/hosts included) answers it. */
export type HostResolver = (host: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: HostResolver = async (host) => {
  const answers = await dns.lookup(host, { all: true, order: 'verbatim' });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Thrown (through the socket's 'error') when a host resolves to an address it may not reach. */
export class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
  readonly code = 'EADDRESSREFUSED';

  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(`${host} resolved to an address that is refused: ${reason}`);
  }
}

/** The first refusal among a host's addresses: one refused address refuses the host, so a mixed answer cannot be raced. */
export function refusalAmong(addresses: readonly ResolvedAddress[], refusal: (address: string) => string | undefined): string | undefined {
  for (const a of addresses) {
    const why = refusal(a.address);
    if (why !== undefined) return why;
  }
  return undefined;
}

/**
 * A `lookup` for net.connect, tls.connect and the http agents: resolves with `resolve`, then fails with an
 * AddressRefusedError when `refusal` refuses any of the addresses. Sockets to an IP literal skip lookup;
 * their callers check the literal themselves.
 */
export function guardedLookup(resolve: HostResolver, refusal: (address: string) => string | undefined): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (answers) => {
        const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : undefined;
        const usable = family === undefined ? answers : answers.filter((a) => a.family === family);
        const why = refusalAmong(answers, refusal);
        if (why !== undefined) return callback(new AddressRefusedError(hostname, why) as NodeJS.ErrnoException, '', 0);
        const first = usable[0];
        if (first === undefined) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
        if (options.all === true) return callback(null, usable.map((a): LookupAddress => ({ address: a.address, family: a.family })));
        return callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
