// Azure Storage request authorization, as "Authorize with Shared Key" (Azure Storage REST API) defines it
// for the Blob service, version 2009-09-19 and later: an HMAC-SHA256 of the request's canonical form with
// the account key, or a shared access signature (SAS) carried in the query string.
import { createHmac } from 'node:crypto';

/** The REST API version every request names (x-ms-version). */
export const STORAGE_API_VERSION = '2024-08-04';

export type StorageAuth = { readonly kind: 'shared_key'; readonly accountKey: string } | { readonly kind: 'sas'; readonly sasToken: string };

/** The standard headers signed, in the order the string to sign lists them. */
const SIGNED_HEADERS = ['content-encoding', 'content-language', 'content-length', 'content-md5', 'content-type', 'date', 'if-modified-since', 'if-match', 'if-none-match', 'if-unmodified-since', 'range'];

/**
 * The string to sign: the verb, the standard headers (Content-Length empty when 0), the x-ms- headers
 * lowercased and sorted as name:value, then the canonicalized resource: /<account><path> and each query
 * parameter lowercased and sorted, as \n<name>:<values sorted and joined by commas>.
 */
export function stringToSign(method: string, url: URL, headers: Readonly<Record<string, string | number>>, account: string): string {
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v).trim()]));
  const standard = SIGNED_HEADERS.map((h) => {
    const v = lower.get(h) ?? '';
    return h === 'content-length' && v === '0' ? '' : v;
  });
  const msHeaders = [...lower.entries()]
    .filter(([k]) => k.startsWith('x-ms-'))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}:${v.replace(/\s+/g, ' ')}\n`)
    .join('');
  const params = new Map<string, string[]>();
  for (const [k, v] of url.searchParams) {
    const name = k.toLowerCase();
    params.set(name, [...(params.get(name) ?? []), v]);
  }
  const query = [...params.keys()]
    .sort()
    .map((k) => `\n${k}:${(params.get(k) ?? []).sort().join(',')}`)
    .join('');
  return `${method.toUpperCase()}\n${standard.join('\n')}\n${msHeaders}/${account}${url.pathname}${query}`;
}

/** The Authorization header of a request signed with the account key: SharedKey <account>:<signature>. */
export function sharedKeyAuthorization(method: string, url: URL, headers: Readonly<Record<string, string | number>>, account: string, accountKey: string): string {
  const signature = createHmac('sha256', Buffer.from(accountKey, 'base64')).update(stringToSign(method, url, headers, account), 'utf8').digest('base64');
  return `SharedKey ${account}:${signature}`;
}

/**
 * Authorizes one request: a SAS token's parameters added to the URL, or the x-ms-date header and the
 * shared key signature. Returns the URL and headers to send; the inputs are left as they were.
 */
export function authorize(auth: StorageAuth, method: string, url: URL, headers: Readonly<Record<string, string | number>>, account: string, now = new Date()): { url: URL; headers: Record<string, string | number> } {
  const sent: Record<string, string | number> = { ...headers, 'x-ms-date': now.toUTCString(), 'x-ms-version': STORAGE_API_VERSION };
  if (auth.kind === 'sas') {
    const withSas = new URL(url);
    for (const [k, v] of new URLSearchParams(auth.sasToken)) withSas.searchParams.append(k, v);
    return { url: withSas, headers: sent };
  }
  return { url, headers: { ...sent, authorization: sharedKeyAuthorization(method, url, sent, account, auth.accountKey) } };
}

/** A SAS token as a customer pastes it: with or without its leading "?". */
export function normalSasToken(token: string): string {
  return token.startsWith('?') ? token.slice(1) : token;
}
