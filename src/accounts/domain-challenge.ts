// The DNS check of a reserved domain's challenge (SECURITY.md "Traffic ownership"): a reservation routes
// traffic once the TXT record `_edge-events-challenge.<domain>` holds its challenge value, looked up at the
// service's resolver (DNS_RESOLVER, else the system's).
import { Resolver } from 'node:dns/promises';
import { randomBytes } from 'node:crypto';
import { challengeRecordName } from './domain-names.js';

/** What a reservation's TXT record must hold: this prefix and the reservation's random token. */
const VALUE_PREFIX = 'edge-events-verification=';

/** A new reservation's challenge value: 128 random bits, so no one can publish it before being told. */
export function newChallengeValue(): string {
  return `${VALUE_PREFIX}${randomBytes(16).toString('base64url')}`;
}

/** The outcome of one look-up: found, or why not in words a customer can act on. */
export type ChallengeResult = { readonly found: true } | { readonly found: false; readonly reason: string };

/** One attempt waits this long for an answer, and tries twice. */
const TIMEOUT_MS = 2_000;

export class DomainChallenges {
  private readonly resolver = new Resolver({ timeout: TIMEOUT_MS, tries: 2 });

  /** `server`: the resolver's address (`ip` or `ip:port`); undefined for the system's resolvers. */
  constructor(server: string | undefined) {
    if (server !== undefined) this.resolver.setServers([server]);
  }

  /** Whether a TXT record at the domain's challenge name holds `value` (a record's strings joined, as RFC 7208 reads them). */
  async check(domain: string, value: string): Promise<ChallengeResult> {
    const name = challengeRecordName(domain);
    let records: string[][];
    try {
      records = await this.resolver.resolveTxt(name);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ENODATA' || code === 'ENOTFOUND') return { found: false, reason: `${name} has no TXT record` };
      return { found: false, reason: `the service's DNS resolver did not answer for ${name} (${code ?? 'error'}); try again later` };
    }
    if (records.some((chunks) => chunks.join('') === value)) return { found: true };
    return { found: false, reason: `none of the ${records.length} TXT record(s) of ${name} holds the challenge value` };
  }
}
