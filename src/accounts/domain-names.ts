// Reserved domain names: an exact host name ("shop.example.com") or a wildcard ("*.example.com") that covers
// every name below its base, at any depth, but not the base itself. A name belongs to one account, so two
// accounts' reservations may not overlap (src/admin/README.md "Reserved domains"), and none may stand for a
// public suffix, under which names belong to many owners (SECURITY.md "Traffic ownership").
import { getPublicSuffix } from 'tldts';
import { DOTTED_HOST_NAME } from '../net/ip-patterns.js';

/** The most characters of a DNS name (RFC 1035 2.3.4, in its text form). */
export const MAX_DOMAIN_LENGTH = 253;

/** A reserved domain as a request sends it: two labels or more, with an optional leading "*." (any letter case). */
export const DOMAIN_PATTERN = `^(?:\\*\\.)?${DOTTED_HOST_NAME}$`;

const DOMAIN = new RegExp(DOMAIN_PATTERN, 'u');

const WILDCARD = '*.';

/** The stored form (lowercase), or undefined when `text` is no reservable domain. */
export function normalizeDomain(text: string): string | undefined {
  return text.length <= MAX_DOMAIN_LENGTH && DOMAIN.test(text) ? text.toLowerCase() : undefined;
}

/** "example.com" for "*.example.com"; undefined for an exact name. */
export function wildcardBase(domain: string): string | undefined {
  return domain.startsWith(WILDCARD) ? domain.slice(WILDCARD.length) : undefined;
}

/** Whether every name `b` stands for is also one `a` stands for (both in stored form). */
export function covers(a: string, b: string): boolean {
  if (a === b) return true;
  const base = wildcardBase(a);
  if (base === undefined) return false;
  // A wildcard "*.t" stands for the names below t: all below base when t is below base (t equal to base
  // makes b equal to a). An exact name is covered when it is below base.
  return (wildcardBase(b) ?? b).endsWith(`.${base}`);
}

/** Whether some name belongs to both reservations. */
export function overlaps(a: string, b: string): boolean {
  return covers(a, b) || covers(b, a);
}

/**
 * The public suffix a reservation would take whole ("co.uk" for "co.uk" and "*.co.uk", "github.io" for
 * "*.github.io"), from the Public Suffix List's ICANN and private sections; undefined for a name below
 * one ("shop.co.uk", "*.me.github.io").
 */
export function publicSuffixTaken(domain: string): string | undefined {
  const name = wildcardBase(domain) ?? domain;
  return getPublicSuffix(name, { allowPrivateDomains: true }) === name ? name : undefined;
}

/** The TXT record that proves control of a reservation's name: the wildcard's base for a wildcard. */
export function challengeRecordName(domain: string): string {
  return `_edge-events-challenge.${wildcardBase(domain) ?? domain}`;
}

/**
 * Whether a host in canonical form (lowercase name, canonical IP address, IPv6 with or without its
 * brackets) is an IP address: a name's last label starts with a letter (the hostport rules), so an
 * address is one with a colon or a last label starting with a digit.
 */
export function isAddressHost(host: string): boolean {
  const first = host.charCodeAt(host.lastIndexOf('.') + 1);
  return host.includes(':') || (first >= 0x30 && first <= 0x39);
}
