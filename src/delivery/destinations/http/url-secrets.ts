// Secrets inside an http destination's URL: the password of its user info and the values of its query
// parameters (a receiver's token often travels there). They are taken out of the URL that is stored and
// answered, which keeps REDACTED in their place, and sealed apart (README.md here, "Secrets in the URL").

/** What stands for a secret part in a URL as the API answers it: `https://user:REDACTED@host/p?token=REDACTED`. */
export const URL_SECRET_MARK = 'REDACTED';

/** The stored field holding a URL's secret parts, sealed (sealableSecrets). */
export const URL_SECRETS_FIELD = 'url_secrets_enc';

/** The secret parts of a URL, as written in it (percent-encoded): its password, and its query values in order. */
export interface UrlSecrets {
  readonly password?: string;
  readonly query: readonly string[];
}

interface QueryPart {
  readonly name: string;
  /** Undefined for a parameter without "=". */
  readonly value: string | undefined;
}

function queryParts(url: URL): QueryPart[] {
  const raw = url.search.slice(1);
  if (raw === '') return [];
  return raw.split('&').map((part) => {
    const eq = part.indexOf('=');
    return eq < 0 ? { name: part, value: undefined } : { name: part.slice(0, eq), value: part.slice(eq + 1) };
  });
}

function setQuery(url: URL, parts: readonly QueryPart[]): void {
  url.search = parts.length === 0 ? '' : `?${parts.map((p) => (p.value === undefined ? p.name : `${p.name}=${p.value}`)).join('&')}`;
}

/** The URL with its secret parts replaced by REDACTED, and those parts. An empty value is no secret and stays. */
export function concealUrl(text: string): { readonly url: string; readonly secrets: UrlSecrets | undefined } {
  const url = new URL(text);
  const password = url.password === '' ? undefined : url.password;
  if (password !== undefined) url.password = URL_SECRET_MARK;
  const query: string[] = [];
  const parts = queryParts(url).map((p) => {
    if (p.value === undefined || p.value === '') return p;
    query.push(p.value);
    return { name: p.name, value: URL_SECRET_MARK };
  });
  setQuery(url, parts);
  // A URL without secrets is stored as it was sent.
  if (password === undefined && query.length === 0) return { url: text, secrets: undefined };
  return { url: url.href, secrets: { ...(password !== undefined && { password }), query } };
}

/** The URL with its REDACTED parts given back, in order; undefined when the secrets do not fit it. */
export function revealUrl(text: string, secrets: UrlSecrets): string | undefined {
  const url = new URL(text);
  if (secrets.password !== undefined) {
    if (url.password !== URL_SECRET_MARK) return undefined;
    url.password = secrets.password;
  }
  let next = 0;
  const parts = queryParts(url).map((p) => (p.value === URL_SECRET_MARK ? { name: p.name, value: secrets.query[next++] } : p));
  if (next !== secrets.query.length) return undefined;
  setQuery(url, parts);
  return url.href;
}

/**
 * A URL an update sent, with each REDACTED part taken from the stored URL (in clear): the password from
 * its password, a query value from the first parameter of the same name not taken yet. The answer names
 * the part that has nothing to keep, when one has not.
 */
export function keepRedactedParts(sent: string, stored: string | undefined): { readonly url: string } | { readonly missing: string } {
  const url = new URL(sent);
  const before = stored === undefined ? undefined : new URL(stored);
  if (url.password === URL_SECRET_MARK) {
    if (before === undefined || before.password === '') return { missing: 'the password' };
    url.password = before.password;
  }
  const previous = before === undefined ? [] : queryParts(before);
  const parts: QueryPart[] = [];
  for (const p of queryParts(url)) {
    if (p.value !== URL_SECRET_MARK) {
      parts.push(p);
      continue;
    }
    const at = previous.findIndex((q) => q.name === p.name && q.value !== undefined && q.value !== '');
    if (at < 0) return { missing: `the query parameter ${p.name}` };
    parts.push({ name: p.name, value: (previous.splice(at, 1)[0] as QueryPart).value });
  }
  setQuery(url, parts);
  return { url: url.href };
}

export function sealableSecrets(secrets: UrlSecrets): string {
  return JSON.stringify(secrets);
}

/** The secrets stored (opened), or undefined when the text is not what sealableSecrets wrote. */
export function readSecrets(text: string): UrlSecrets | undefined {
  try {
    const v = JSON.parse(text) as Partial<UrlSecrets>;
    const okPassword = v.password === undefined || typeof v.password === 'string';
    const okQuery = Array.isArray(v.query) && v.query.every((q) => typeof q === 'string');
    return okPassword && okQuery ? { ...(v.password !== undefined && { password: v.password }), query: v.query as string[] } : undefined;
  } catch {
    return undefined;
  }
}
