// The http(s) URLs the service calls out to (http destinations, cloud endpoint overrides), as a pattern
// for JSON schemas and a check for config parsing: one rule, so the API document states what is taken.
//
// The rule is narrower than the WHATWG URL parser's: a DNS name, IPv4 or bracketed IPv6 host, an
// optional port 1-65535, then printable ASCII. User info only where the caller takes it (an http
// destination seals its password), and a name's last label starts with a letter, so the parser never reads
// the host as a malformed IPv4 address.
import { HOST, PORT } from './ip-patterns.js';

export const HTTP_URL_MAX_LENGTH = 2048;

/** RFC 3986 3.2.1: `userinfo = *( unreserved / pct-encoded / sub-delims / ":" )`, then "@". */
const USER_INFO = "(?:[A-Za-z0-9._~!$&'()*+,;=:-]|%[0-9A-Fa-f]{2})*@";

/** An http or https URL under the rule above (scheme in any letter case); with user info when `userInfo`. */
function httpUrlPattern(userInfo: boolean): string {
  return `^[hH][tT][tT][pP][sS]?://${userInfo ? `(?:${USER_INFO})?` : ''}${HOST}(?::${PORT})?(?:[/?#][!-~]*)?$`;
}

export const HTTP_URL = httpUrlPattern(false);

/** A URL whose host name is longer than 253 characters, which the URL pattern alone lets through (after any user info). */
export const HTTP_URL_LONG_HOST = '^[hH][tT][tT][pP][sS]?://(?:[^/?#@]*@)?[^:/?#\\[@]{254}';

const MATCHES = new RegExp(HTTP_URL, 'u');
const LONG_HOST = new RegExp(HTTP_URL_LONG_HOST, 'u');

export function isHttpUrl(text: string): boolean {
  return text.length <= HTTP_URL_MAX_LENGTH && MATCHES.test(text) && !LONG_HOST.test(text);
}

/** The JSON schema of such a URL, with `description`; `userInfo` takes `user:password@` before the host. */
export function httpUrlSchema(description: string, opts: { readonly userInfo?: boolean } = {}): Record<string, unknown> {
  return {
    type: 'string',
    maxLength: HTTP_URL_MAX_LENGTH,
    pattern: httpUrlPattern(opts.userInfo === true),
    not: { type: 'string', pattern: HTTP_URL_LONG_HOST },
    description,
    examples: ['https://hooks.example.com/edge-events'],
  };
}
