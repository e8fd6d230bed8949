// Name resolution that refuses addresses: the `lookup` a socket of a destination connects through, so the
// address checked is the address connected to, and a DNS answer that changed since the destination was
// created (DNS rebinding) is caught at the connect (SECURITY.md "Egress").
import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

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

/** The error code of an AddressRefusedError, which survives clients that wrap a socket's error in their own. */
export const ADDRESS_REFUSED = 'EADDRESSREFUSED';

/** Thrown (through the socket's 'error') when a host resolves to an address it may not reach. */
export class AddressRefusedError extends Error {
  override readonly name = 'AddressRefusedError';
  readonly code = ADDRESS_REFUSED;
  /** Retrying cannot help: clients that read this flag (the Kafka client) give up at once. */
  readonly canRetry = false;

  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    // The reason names the address; a name is said to have resolved to it.
    super(isIP(host.replace(/^\[|\]$/g, '')) === 0 ? `${host} resolved to an address that is refused: ${reason}` : reason);
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
        if (first === undefined) return callback(noAddress(hostname), '', 0);
        if (options.all === true) return callback(null, usable.map((a): LookupAddress => ({ address: a.address, family: a.family })));
        return callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

function noAddress(host: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
}

/**
 * The address a connection to `host` (a name, or an IP literal, IPv6 in brackets or not) opens, once
 * judged: rejects with an AddressRefusedError when it is refused. For clients that open their sockets
 * themselves (the Kafka clients, src/kafka/seam.ts): they connect to the address answered, so the address
 * checked is the address connected to.
 */
export type AddressGuard = (host: string) => Promise<ResolvedAddress>;

export function addressGuard(resolve: HostResolver, refusal: (address: string) => string | undefined): AddressGuard {
  return async (host) => {
    const bare = host.replace(/^\[|\]$/g, '');
    const family = isIP(bare);
    const answers = family === 0 ? await resolve(bare) : [{ address: bare, family: family === 6 ? 6 : 4 } as const];
    const why = refusalAmong(answers, refusal);
    if (why !== undefined) throw new AddressRefusedError(host, why);
    const first = answers[0];
    if (first === undefined) throw noAddress(host);
    return first;
  };
}

/**
 * The text of the address refusal behind an error a client wrapped (in `cause`, `errors` or
 * `originalError`), or of the error that kept its code when the client made a new one of it.
 */
export function addressRefusalIn(err: unknown): string | undefined {
  const seen: unknown[] = [err];
  for (let i = 0; i < seen.length && i < 20; i++) {
    const e = seen[i] as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown; originalError?: unknown } | null | undefined;
    if (e === null || typeof e !== 'object') continue;
    if (e instanceof AddressRefusedError) return e.message;
    if (e.code === ADDRESS_REFUSED && typeof e.message === 'string') return e.message;
    seen.push(e.cause, e.originalError, ...(Array.isArray(e.errors) ? (e.errors as unknown[]) : []));
  }
  return undefined;
}
