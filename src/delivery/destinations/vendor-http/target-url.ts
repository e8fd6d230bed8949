// The base URL and optional CA of a vendor API target (splunk_hec, elasticsearch): their schemas, their
// parse with the egress rules (SECURITY.md "Egress"), and the guard that judges the host's addresses.
import { X509Certificate } from 'node:crypto';
import { httpUrlSchema } from '../../../net/http-url.js';
import { problem, type ConfigProblem, type ConfigReader } from '../../destination-config.js';
import type { WriterDeps } from '../../destination-kind.js';
import { hostRefusal } from '../../egress-guard.js';
import type { EgressRules } from '../../egress-rules.js';
import { withError } from '../target-schema.js';

const CA_MAX = 64 * 1024;

/** The base URL's schema: https (http only where the service allows it), no user info. */
export function baseUrlSchema(description: string): Record<string, unknown> {
  return withError(httpUrlSchema(`${description} https (http only where the operator allows it); the host may not be an internal address.`), 'invalid_body', {
    reason: 'must be an http or https URL with a DNS name, IPv4 or [IPv6] host, an optional port 1-65535, then printable ASCII',
  });
}

export const CA_PEM_SCHEMA = {
  type: ['string', 'null'],
  maxLength: CA_MAX,
  pattern: '-----BEGIN CERTIFICATE-----',
  description:
    "Only for a server whose certificate a public authority did not sign (an on-premises install): your own certificate authority's certificate, PEM text, trusted besides the public ones. The server's certificate and name are always verified. null: the public authorities alone.",
} as const;

export const BASE_URL_RULES = [
  { code: 'insecure_url', rule: 'url uses https, unless the operator allows http' },
  {
    code: 'internal_address',
    rule: "url's host is not, and does not resolve to, a loopback, link-local, private, shared, multicast or unspecified address, unless the operator opens its range; checked when the target is set and again at every connect",
  },
  { code: 'invalid_body', rule: 'ca_pem holds PEM certificates that parse' },
] as const;

/** Reads `url` (and `ca_pem`) of a target; the URL is answered as sent, without a trailing slash problem. */
export function readBaseUrl(r: ConfigReader, egress: EgressRules | undefined): { url: string; caPem?: string } {
  const url = r.string('url', true);
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      r.invalid('url', 'is not a valid URL');
    }
    if (parsed !== undefined && parsed.protocol !== 'http:' && parsed.protocol !== 'https:') r.invalid('url', 'must use http or https');
    else if (parsed !== undefined && (parsed.username !== '' || parsed.password !== '')) r.invalid('url', 'must not carry user info (credentials have fields of their own)');
    else if (parsed !== undefined && (parsed.search !== '' || parsed.hash !== '')) r.invalid('url', 'must not carry a query or a fragment');
    else if (parsed !== undefined) {
      const refused = egress?.urlRefusal(parsed);
      if (refused !== undefined) r.add(problem.egress(refused.code, r.path('url'), refused.reason));
    }
  }
  const caPem = r.string('ca_pem', false);
  if (caPem !== undefined) {
    try {
      if (caPem.length > CA_MAX) throw new Error('too long');
      new X509Certificate(caPem);
    } catch {
      r.invalid('ca_pem', 'must be PEM text of one or more certificates');
    }
  }
  return { url: url ?? '', ...(caPem !== undefined && { caPem }) };
}

/** The egress rule that needs the network: a host name whose addresses are refused. */
export async function guardBaseUrl(url: string, field: string, deps: Pick<WriterDeps, 'egress' | 'resolveHost'>): Promise<readonly ConfigProblem[]> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const why = await hostRefusal(host, deps);
  return why === undefined ? [] : [problem.egress('internal_address', field, `its host ${host} resolves to an address destinations may not reach: ${why}`, { host })];
}
