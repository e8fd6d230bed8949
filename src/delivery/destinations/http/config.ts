// Config of the http destination: the receiver's URL (its secret parts sealed apart), an optional signing
// secret and a request timeout; its JSON schemas and its rules.
import type { AccountContext } from '../../../accounts/account.js';
import { httpUrlSchema } from '../../../net/http-url.js';
import { ConfigReader, problem, type ParseResult } from '../../destination-config.js';
import type { InlineSecrets } from '../../destination-kind.js';
import type { EgressRules } from '../../egress-rules.js';
import { URL_SECRETS_FIELD, URL_SECRET_MARK, concealUrl, keepRedactedParts, readSecrets, revealUrl, sealableSecrets } from './url-secrets.js';
import { choiceOrNull, named, nullable, obj, secretRequest, secretResponse, withError } from '../target-schema.js';
import { COMPRESSIONS, OUTPUT_TYPES, type Compression, type OutputType } from '../../output-format.js';

export interface HttpTargetConfig {
  readonly url: string;
  /** HMAC-SHA256 key for the x-edge-signature header. Held in memory only; never logged. */
  readonly secret?: string;
  readonly timeout_ms?: number;
  /** How a batch is written as a body (docs/subscription-controls.md "Output options"); absent: DEFAULT_HTTP_OUTPUT. */
  readonly outputType?: OutputType;
  readonly compression?: Compression;
}

/** Today's body, a JSON array, unless the target says otherwise. */
export const DEFAULT_HTTP_OUTPUT: { readonly outputType: OutputType; readonly compression: Compression } = { outputType: 'json_array', compression: 'none' };

export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;
const MIN_TIMEOUT_MS = 100;
const MAX_TIMEOUT_MS = 300_000;
const MIN_SECRET_LENGTH = 16;
const MAX_SECRET_LENGTH = 1024;

const url = withError(
  httpUrlSchema(
    `URL that receives batches of events (POST, application/json): https (http only where the operator allows it), a DNS name, IPv4 or [IPv6] host that is not an internal address, an optional port 1-65535, then printable ASCII. A password in the user info and the values of query parameters are secrets: stored sealed and answered as ${URL_SECRET_MARK}; an update that sends ${URL_SECRET_MARK} back keeps the stored value.`,
    { userInfo: true },
  ),
  'invalid_body',
  { reason: 'must be an http or https URL with optional user info, a DNS name, IPv4 or [IPv6] host, an optional port 1-65535, then printable ASCII' },
);
const timeout = 'Request timeout; null means the default (10 s).';
const outputType = 'How each batch is written as the body: json_array (the default: one JSON array of envelopes, application/json), ndjson (one envelope per line, application/x-ndjson) or csv (a header line, then one line per event, one column per selected field by its dotted name, a headers map one column of its JSON, formulas neutralised, RFC 4180; text/csv; a body is at most 1 MiB, so a batch may take two requests).';
const compression = 'none (the default), or gzip: the body is gzipped and sent with Content-Encoding: gzip; the signature covers the body as sent.';

export const HTTP_TARGET_SCHEMA = {
  request: named('HttpTarget', obj(
    {
      url,
      secret: secretRequest(
        `HMAC-SHA256 key for the x-edge-signature header, ${MIN_SECRET_LENGTH} to ${MAX_SECRET_LENGTH} characters.`,
        { min: MIN_SECRET_LENGTH, max: MAX_SECRET_LENGTH },
        { optional: true, removable: true },
        ' "" removes it.',
      ),
      timeout_ms: nullable({ type: 'integer', minimum: MIN_TIMEOUT_MS, maximum: MAX_TIMEOUT_MS, description: timeout }),
      output_type: choiceOrNull(OUTPUT_TYPES, outputType),
      compression: choiceOrNull(COMPRESSIONS, compression),
    },
    ['url'],
    'An HTTP endpoint.',
  )),
  response: named('HttpTargetView', obj(
    {
      url: { type: 'string', description: `${url.description as string} Answered with ${URL_SECRET_MARK} in place of every secret part.` },
      secret: secretResponse('HMAC-SHA256 signing secret.'),
      timeout_ms: nullable({ type: 'integer', description: timeout }),
      output_type: choiceOrNull(OUTPUT_TYPES, `${outputType} null means the default.`),
      compression: choiceOrNull(COMPRESSIONS, `${compression} null means the default.`),
    },
    ['url', 'secret', 'timeout_ms', 'output_type', 'compression'],
    'An HTTP endpoint.',
  )),
};

/** Rules of an http target beyond its schema, each with its code (the kind lists them; the API states them). */
export const HTTP_RULES = [
  { code: 'insecure_url', rule: 'target.http.url uses https, unless the operator allows http' },
  {
    code: 'internal_address',
    rule: "target.http.url's host is not, and does not resolve to, a loopback, link-local, private, shared, multicast or unspecified address (IPv6 that carries an IPv4 address judged by it), unless the operator opens its range; checked when the target is set, \"verify\": false or not, and again at every connect",
  },
  { code: 'secret_required', rule: `a ${URL_SECRET_MARK} part of target.http.url keeps the stored value of that part (the password, or the query parameter of that name); with nothing stored to keep it is refused` },
] as const;

/**
 * The http target of a destination of `account`. A stored target carries its URL's secrets apart
 * (`url_secrets`, opened), which are put back in the URL.
 */
export function parseHttpTarget(raw: unknown, prefix: string, _account: AccountContext, egress?: EgressRules): ParseResult<HttpTargetConfig> {
  const r = new ConfigReader(raw, prefix, ['url', 'secret', 'timeout_ms', 'output_type', 'compression', 'url_secrets']);
  let url: string | undefined = r.string('url', true);
  const inline = r.string('url_secrets', false);
  if (url !== undefined && inline !== undefined) {
    const secrets = readSecrets(inline);
    url = secrets === undefined ? undefined : revealUrl(url, secrets);
    if (url === undefined) r.invalid('url', 'does not fit the secrets stored with it; set it again');
  }
  // Laxer than the schema, which the API applies on top: targets stored before the schema was narrowed still load.
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      r.invalid('url', 'is not a valid URL');
    }
    if (parsed !== undefined && parsed.protocol !== 'http:' && parsed.protocol !== 'https:') r.invalid('url', 'must use http or https');
    else if (parsed !== undefined && !(decodes(parsed.username) && decodes(parsed.password))) {
      // Sent decoded, as Basic auth (http-writer.ts): it could never be sent. The problem does not quote it.
      r.invalid('url', 'has a user name or password with a % not followed by two hexadecimal digits of UTF-8; write a % itself as %25');
    } else if (parsed !== undefined) {
      const refused = egress?.urlRefusal(parsed);
      if (refused !== undefined) r.add(problem.egress(refused.code, r.path('url'), refused.reason));
    }
  }
  const secret = r.string('secret', false);
  // The problem must not echo the secret. Characters are code points, as the schema's lengths count them.
  const length = secret === undefined ? 0 : [...secret].length;
  if (secret !== undefined && (length < MIN_SECRET_LENGTH || length > MAX_SECRET_LENGTH)) {
    r.invalid('secret', `must be ${MIN_SECRET_LENGTH} to ${MAX_SECRET_LENGTH} characters long`);
  }
  const timeout = r.integer('timeout_ms', MIN_TIMEOUT_MS, MAX_TIMEOUT_MS);
  const output = {
    ...(r.has('output_type') && { outputType: r.oneOf('output_type', OUTPUT_TYPES, DEFAULT_HTTP_OUTPUT.outputType) }),
    ...(r.has('compression') && { compression: r.oneOf('compression', COMPRESSIONS, DEFAULT_HTTP_OUTPUT.compression) }),
  };
  return r.result({ url: url ?? '', ...(secret !== undefined && { secret }), ...(timeout !== undefined && { timeout_ms: timeout }), ...output });
}

/** Whether a URL's user info part percent-decodes. */
function decodes(part: string): boolean {
  try {
    decodeURIComponent(part);
    return true;
  } catch {
    return false;
  }
}

/** The URL's secrets (SECURITY.md "Secrets"): kept on an update from the stored URL, taken out to be sealed apart. */
export const HTTP_INLINE_SECRETS: InlineSecrets = {
  keep(sent, stored) {
    if (typeof sent.url !== 'string' || !sent.url.includes(URL_SECRET_MARK)) return undefined;
    let text: string | undefined;
    try {
      const storedSecrets = typeof stored?.url_secrets === 'string' ? readSecrets(stored.url_secrets) : undefined;
      const storedUrl = typeof stored?.url === 'string' ? stored.url : undefined;
      text = storedUrl === undefined ? undefined : storedSecrets === undefined ? storedUrl : revealUrl(storedUrl, storedSecrets);
      const kept = keepRedactedParts(sent.url, text);
      if ('missing' in kept) {
        const reason = `to carry ${kept.missing} itself: ${URL_SECRET_MARK} keeps a stored value, and there is none`;
        return problem.secretRequired('target.http.url', reason);
      }
      sent.url = kept.url;
    } catch {
      // Not a URL: parse() says so.
    }
    return undefined;
  },
  conceal(sent, seal) {
    if (typeof sent.url !== 'string') return;
    const { url, secrets } = concealUrl(sent.url);
    sent.url = url;
    if (secrets !== undefined) sent[URL_SECRETS_FIELD] = seal(sealableSecrets(secrets));
  },
};
