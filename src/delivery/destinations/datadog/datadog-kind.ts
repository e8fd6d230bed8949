// The datadog destination kind: each event one log in Datadog Logs, through the logs intake of the
// target's site (README.md here). The key is checked with the site's key-validation endpoint at create.
import { problem } from '../../destination-config.js';
import type { DestinationKind } from '../../destination-kind.js';
import { toDeliveryError } from '../../errors.js';
import { DATADOG_SITES, DATADOG_TARGET_SCHEMA, parseDatadogTarget, type DatadogTargetConfig } from './config.js';
import { DATADOG_LIMITS, DatadogWriter } from './datadog-writer.js';

export const datadogKind: DestinationKind<DatadogTargetConfig> = {
  name: 'datadog',
  schema: DATADOG_TARGET_SCHEMA,
  rules: [
    {
      code: 'destination_check_failed',
      rule: 'unless "verify" is false, the API key is checked with the key-validation endpoint of the ddsite (GET api.<site>/api/v1/validate) before the target is stored; a key Datadog refuses is answered 422 with details.error invalid_api_key, a site that cannot be reached with the delivery error code',
    },
  ],
  // A new key replaces the stored one; an update that leaves it out keeps it.
  secrets: [{ path: 'api_key', required: true, removable: false }],
  limits: DATADOG_LIMITS,
  parse: parseDatadogTarget,
  view: (stored) => ({ api_key: null, ddsite: stored.ddsite ?? null, service: stored.service ?? null, ddtags: stored.ddtags ?? null }),
  createWriter: (config, deps) => new DatadogWriter(config, { baseUrl: deps.datadog?.baseUrl }),
  async verify(config, deps) {
    const writer = new DatadogWriter(config, { baseUrl: deps.datadog?.baseUrl });
    try {
      await writer.healthcheck();
      return [];
    } catch (err) {
      const e = toDeliveryError(err);
      const site = `${config.site} (${DATADOG_SITES[config.site]})`;
      if (e.code === 'DESTINATION_AUTH_FAILED') {
        return [problem.checkFailed('target.datadog.api_key', 'invalid_api_key', `Datadog's site ${site} refused the API key (${e.status ?? 403}): use an API key (not an application key) of that site, or set ddsite to the site the key belongs to`, e.code)];
      }
      return [problem.checkFailed('target.datadog.ddsite', e.code, e.message, e.code)];
    } finally {
      await writer.close();
    }
  },
  // guard: none; the intake and API hosts are fixed per site (or the operator's DATADOG_BASE_URL), nothing a customer names.
};
