// The http destination kind: each batch POSTed as a JSON array, optionally signed (README.md here).
import type { DestinationKind } from '../../destination-kind.js';
import { HTTP_TARGET_SCHEMA, parseHttpTarget, type HttpTargetConfig } from './config.js';
import { HTTP_LIMITS, HttpWriter } from './http-writer.js';

export const httpKind: DestinationKind<HttpTargetConfig> = {
  name: 'http',
  schema: HTTP_TARGET_SCHEMA,
  // "" removes the signing secret; omitted or null on an update keeps it.
  secrets: [{ path: 'secret', required: false, removable: true }],
  limits: HTTP_LIMITS,
  parse: parseHttpTarget,
  view: (stored) => ({ url: stored.url, secret: null, timeout_ms: stored.timeout_ms ?? null }),
  createWriter: (config) => new HttpWriter(config),
  // verify: none yet; the health check (a TCP connect) runs when the destination is parked.
};
