// Config of the datadog destination: an API key, the Datadog site (which fixes the intake and API hosts),
// and the service name and tags every log entry carries; its JSON schemas and its parse (README.md here).
import type { AccountContext } from '../../../accounts/account.js';
import { ConfigReader, type ParseResult } from '../../destination-config.js';
import type { EgressRules } from '../../egress-rules.js';
import { choiceOrNull, named, nullable, obj, patterned, secretRequest, secretResponse } from '../target-schema.js';

/**
 * Datadog's sites, as its documentation names them with their site parameter (its "Getting started with
 * Datadog sites"): the logs intake is http-intake.logs.<site>, the API api.<site>.
 */
export const DATADOG_SITES = {
  'datadoghq.com': 'US1',
  'us3.datadoghq.com': 'US3',
  'us5.datadoghq.com': 'US5',
  'datadoghq.eu': 'EU',
  'ap1.datadoghq.com': 'AP1',
  'ap2.datadoghq.com': 'AP2',
  'uk1.datadoghq.com': 'UK1',
  'ddog-gov.com': 'US1-FED',
  'us2.ddog-gov.com': 'US2-FED',
} as const;
export type DatadogSite = keyof typeof DATADOG_SITES;
export const SITE_NAMES = Object.keys(DATADOG_SITES) as DatadogSite[];
export const DEFAULT_SITE: DatadogSite = 'datadoghq.com';

/** ddsource of every entry: Datadog's integration name for logs from this service. */
export const DDSOURCE = 'edge-events';
/** service when the target sets none. */
export const DEFAULT_SERVICE = 'edge-events';

export interface DatadogTargetConfig {
  /** Held in memory only; never logged. */
  readonly apiKey: string;
  readonly site: DatadogSite;
  readonly service: string;
  /** Comma-separated key:value tags, or none. */
  readonly ddtags?: string;
}

// A key goes in a header: visible ASCII only. Datadog's keys are 32 hex digits; a compatible intake's may differ.
const API_KEY = '^[!-~]+$';
const MAX_API_KEY = 256;
// Printable ASCII, as Datadog's reserved attributes are searched by.
const SERVICE = '^[ -~]{1,100}$';
const DDTAGS = '^[ -~]{1,1000}$';

const apiKeyAbout = 'A Datadog API key of the site (Organization Settings, API Keys), not an application key.';
const siteAbout = `The Datadog site the account is on, as its site parameter: ${SITE_NAMES.map((s) => `${s} (${DATADOG_SITES[s]})`).join(', ')}. It fixes where logs go (http-intake.logs.<site>) and where the key is checked (api.<site>).`;
const serviceAbout = `The service attribute of every log, what Datadog groups logs by in Log Explorer (service:<name>), up to 100 printable characters; null means ${DEFAULT_SERVICE}.`;
const tagsAbout = 'Tags every log carries, comma-separated key:value pairs as Datadog writes them (env:prod,team:edge), up to 1,000 printable characters; null means none.';

export const DATADOG_TARGET_SCHEMA = {
  request: named('DatadogTarget', obj(
    {
      api_key: { ...secretRequest(apiKeyAbout, { min: 1, max: MAX_API_KEY }), pattern: API_KEY },
      ddsite: choiceOrNull(SITE_NAMES, `${siteAbout} null means ${DEFAULT_SITE} (US1).`),
      service: nullable(patterned(SERVICE, serviceAbout)),
      ddtags: nullable(patterned(DDTAGS, tagsAbout)),
    },
    ['api_key'],
    'Datadog Logs: each event one log, sent to the logs intake of a Datadog site.',
  )),
  response: named('DatadogTargetView', obj(
    {
      api_key: secretResponse('Datadog API key.'),
      ddsite: choiceOrNull(SITE_NAMES, `${siteAbout} null means the default, ${DEFAULT_SITE} (US1).`),
      service: { type: ['string', 'null'], description: serviceAbout },
      ddtags: { type: ['string', 'null'], description: tagsAbout },
    },
    ['api_key', 'ddsite', 'service', 'ddtags'],
    'Datadog Logs: each event one log, sent to the logs intake of a Datadog site.',
  )),
};

export function parseDatadogTarget(raw: unknown, prefix: string, _account: AccountContext, _egress?: EgressRules): ParseResult<DatadogTargetConfig> {
  const r = new ConfigReader(raw, prefix, ['api_key', 'ddsite', 'service', 'ddtags']);
  const apiKey = r.string('api_key', true);
  // The problem must not echo the key.
  if (apiKey !== undefined && (apiKey.length > MAX_API_KEY || !new RegExp(API_KEY).test(apiKey))) r.invalid('api_key', `must be 1 to ${MAX_API_KEY} visible ASCII characters`);
  const site = r.oneOf('ddsite', SITE_NAMES, DEFAULT_SITE);
  const service = r.string('service', false);
  if (service !== undefined && !new RegExp(SERVICE).test(service)) r.invalid('service', 'must be 1 to 100 printable ASCII characters');
  const ddtags = r.string('ddtags', false);
  if (ddtags !== undefined && !new RegExp(DDTAGS).test(ddtags)) r.invalid('ddtags', 'must be 1 to 1,000 printable ASCII characters');
  return r.result({ apiKey: apiKey ?? '', site, service: service ?? DEFAULT_SERVICE, ...(ddtags !== undefined && { ddtags }) });
}
