// The http destination kind: each batch POSTed as a JSON array (or NDJSON or CSV, gzipped or not), optionally signed (README.md here).
import { problem } from '../../destination-config.js';
import { hostRefusal } from '../../egress-guard.js';
import type { DestinationKind } from '../../destination-kind.js';
import { HTTP_INLINE_SECRETS, HTTP_RULES, HTTP_TARGET_SCHEMA, parseHttpTarget, type HttpTargetConfig } from './config.js';
import { HTTP_LIMITS, HttpWriter } from './http-writer.js';

export const httpKind: DestinationKind<HttpTargetConfig> = {
  name: 'http',
  schema: HTTP_TARGET_SCHEMA,
  rules: HTTP_RULES,
  // "" removes the signing secret; omitted or null on an update keeps it.
  secrets: [{ path: 'secret', required: false, removable: true }],
  inlineSecrets: HTTP_INLINE_SECRETS,
  limits: HTTP_LIMITS,
  parse: parseHttpTarget,
  // The stored URL holds REDACTED in place of its secret parts (url-secrets.ts).
  view: (stored) => ({
    url: stored.url,
    secret: null,
    timeout_ms: stored.timeout_ms ?? null,
    output_type: stored.output_type ?? null,
    compression: stored.compression ?? null,
  }),
  createWriter: (config, deps) => new HttpWriter(config, { egress: deps.egress, resolveHost: deps.resolveHost }),
  // verify: none; a receiver may be down for a while. The health check (a TCP connect) runs when the destination is parked.
  // guard: a host name is refused when any of its addresses is (an IP literal was judged by parse()).
  async guard(config, deps) {
    const host = new URL(config.url).hostname.replace(/^\[|\]$/g, '');
    const why = await hostRefusal(host, deps);
    return why === undefined ? [] : [problem.egress('internal_address', 'target.http.url', `its host ${host} resolves to an address destinations may not reach: ${why}`, { host })];
  },
};
