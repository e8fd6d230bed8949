// Config of the http destination: the receiver's URL, an optional signing secret and a request timeout;
// its JSON schemas and its rules.
import { httpUrlSchema } from '../../../net/http-url.js';
import { ConfigReader, type ParseResult } from '../../destination-config.js';
import { nullable, obj, secretRequest, secretResponse, withError } from '../target-schema.js';

export interface HttpTargetConfig {
  readonly url: string;
  /** HMAC-SHA256 key for the x-edge-signature header. Held in memory only; never logged. */
  readonly secret?: string;
  readonly timeout_ms?: number;
}

export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;
const MIN_TIMEOUT_MS = 100;
const MAX_TIMEOUT_MS = 300_000;
const MIN_SECRET_LENGTH = 16;
const MAX_SECRET_LENGTH = 1024;

const url = withError(
  httpUrlSchema(
    'http or https URL that receives batches of events (POST, application/x-ndjson): a DNS name, IPv4 or [IPv6] host, an optional port 1-65535, then printable ASCII; no user info.',
  ),
  'invalid_body',
  { reason: 'must be an http or https URL with a DNS name, IPv4 or [IPv6] host, an optional port 1-65535, then printable ASCII, and no user info' },
);
const timeout = 'Request timeout; null means the default (10 s).';

export const HTTP_TARGET_SCHEMA = {
  request: obj(
    {
      url,
      secret: secretRequest(
        `HMAC-SHA256 key for the x-edge-signature header, ${MIN_SECRET_LENGTH} to ${MAX_SECRET_LENGTH} characters.`,
        { min: MIN_SECRET_LENGTH, max: MAX_SECRET_LENGTH },
        { optional: true, removable: true },
        ' "" removes it.',
      ),
      timeout_ms: nullable({ type: 'integer', minimum: MIN_TIMEOUT_MS, maximum: MAX_TIMEOUT_MS, description: timeout }),
    },
    ['url'],
    'An HTTP endpoint.',
  ),
  response: obj(
    { url: { type: 'string', description: url.description }, secret: secretResponse('HMAC-SHA256 signing secret.'), timeout_ms: nullable({ type: 'integer', description: timeout }) },
    ['url', 'secret', 'timeout_ms'],
    'An HTTP endpoint.',
  ),
};

export function parseHttpTarget(raw: unknown, prefix: string): ParseResult<HttpTargetConfig> {
  const r = new ConfigReader(raw, prefix, ['url', 'secret', 'timeout_ms']);
  const url = r.string('url', true);
  // Laxer than the schema, which the API applies on top: targets stored before the schema was narrowed still load.
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      r.invalid('url', 'is not a valid URL');
    }
    if (parsed !== undefined && parsed.protocol !== 'http:' && parsed.protocol !== 'https:') r.invalid('url', 'must use http or https');
  }
  const secret = r.string('secret', false);
  // The problem must not echo the secret. Characters are code points, as the schema's lengths count them.
  const length = secret === undefined ? 0 : [...secret].length;
  if (secret !== undefined && (length < MIN_SECRET_LENGTH || length > MAX_SECRET_LENGTH)) {
    r.invalid('secret', `must be ${MIN_SECRET_LENGTH} to ${MAX_SECRET_LENGTH} characters long`);
  }
  const timeout = r.integer('timeout_ms', MIN_TIMEOUT_MS, MAX_TIMEOUT_MS);
  return r.result({ url: url ?? '', ...(secret !== undefined && { secret }), ...(timeout !== undefined && { timeout_ms: timeout }) });
}
