// Config of the http destination: the receiver's URL, an optional signing secret and a request timeout.
import { ConfigReader, type ParseResult } from '../../destination-config.js';

export interface HttpTargetConfig {
  readonly url: string;
  /** HMAC-SHA256 key for the x-edge-signature header. Held in memory only; never logged. */
  readonly secret?: string;
  readonly timeout_ms?: number;
}

export const DEFAULT_HTTP_TIMEOUT_MS = 10_000;

export function parseHttpTarget(raw: unknown, prefix: string): ParseResult<HttpTargetConfig> {
  const r = new ConfigReader(raw, prefix, ['url', 'secret', 'timeout_ms']);
  const url = r.string('url', true);
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      r.problem('url', `${prefix}.url is not a valid URL.`);
    }
    if (parsed !== undefined && parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      r.problem('url', `${prefix}.url must use http or https.`);
    }
  }
  const secret = r.string('secret', false);
  if (secret !== undefined && (secret.length < 16 || secret.length > 1024)) {
    // The message must not echo the secret.
    r.problem('secret', `${prefix}.secret must be 16 to 1024 characters long.`);
  }
  const timeout = r.integer('timeout_ms', 100, 300_000);
  return r.result({
    url: url ?? '',
    ...(secret !== undefined && { secret }),
    ...(timeout !== undefined && { timeout_ms: timeout }),
  });
}
