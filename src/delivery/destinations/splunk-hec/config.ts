// Config of the splunk_hec destination: the HTTP Event Collector's base URL, its token, the event metadata
// (index, source, sourcetype, host), indexer acknowledgement and an optional CA; schemas and rules (README.md here).
import type { AccountContext } from '../../../accounts/account.js';
import { ConfigReader, isPlainObject, type ParseResult } from '../../destination-config.js';
import type { EgressRules } from '../../egress-rules.js';
import { named, obj, secretRequest, secretResponse, str } from '../target-schema.js';
import { BASE_URL_RULES, CA_PEM_SCHEMA, baseUrlSchema, readBaseUrl } from '../vendor-http/target-url.js';

export interface SplunkHecConfig {
  readonly url: string;
  readonly caPem?: string;
  readonly token: string;
  readonly index?: string;
  readonly source?: string;
  readonly sourcetype?: string;
  readonly host?: string;
  readonly ack: boolean;
  /** The channel acknowledgements are asked on; absent with ack: one of the writer's own. */
  readonly channel?: string;
}

const TOKEN_MAX = 256;
// Splunk index names: lowercase letters, digits, _ and -, not starting with _ or -, at most 80 characters.
const INDEX = '^[a-z0-9][a-z0-9_-]{0,79}$';
const META_MAX = 256;
const GUID = '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$';

const about = {
  url: 'Your HTTP Event Collector: the address events are sent to, without the /services/collector path, e.g. https://http-inputs-mycompany.splunkcloud.com or https://splunk.example.com:8088.',
  token: 'The HEC token (Settings > Data inputs > HTTP Event Collector), sent as Authorization: Splunk <token>.',
  index: "The index every event goes to; null: the token's default index. The token must allow it.",
  source: 'The source field of every event; null: the token\'s default.',
  sourcetype: 'The sourcetype of every event; null: the token\'s default (set one, such as _json, for field extraction).',
  host: 'The host field of every event; null: Splunk fills in the sender.',
  ack: "true: a batch counts as delivered only once Splunk acknowledges it was indexed (the token must have indexer acknowledgement turned on). null or false: once the collector accepts it.",
  channel: 'The channel (a GUID) acknowledgements are asked on; null: one chosen by each worker.',
};

function schema(use: 'request' | 'response') {
  const request = use === 'request';
  const text = (description: string, extra: Record<string, unknown>) => ({ type: ['string', 'null'], description, ...(request && extra) });
  return named(request ? 'SplunkHecTarget' : 'SplunkHecTargetView', obj(
    {
      url: request ? baseUrlSchema(about.url) : str(about.url),
      token: request ? secretRequest(about.token, { min: 1, max: TOKEN_MAX }) : secretResponse(about.token),
      index: text(about.index, { pattern: INDEX }),
      source: text(about.source, { minLength: 1, maxLength: META_MAX }),
      sourcetype: text(about.sourcetype, { minLength: 1, maxLength: META_MAX }),
      host: text(about.host, { minLength: 1, maxLength: META_MAX }),
      ack: { type: ['boolean', 'null'], description: about.ack },
      channel: text(about.channel, { pattern: GUID }),
      ca_pem: request ? CA_PEM_SCHEMA : { type: ['string', 'null'], description: CA_PEM_SCHEMA.description },
    },
    request ? ['url', 'token'] : ['url', 'token', 'index', 'source', 'sourcetype', 'host', 'ack', 'channel', 'ca_pem'],
    'A Splunk HTTP Event Collector (Splunk Cloud Platform or Splunk Enterprise): batches of events, gzipped, each stamped with its event time.',
  ));
}

export const SPLUNK_HEC_SCHEMA = { request: schema('request'), response: schema('response') };

export const SPLUNK_HEC_RULES = [
  ...BASE_URL_RULES.map((r) => ({ ...r, rule: `target.splunk_hec.${r.rule}` })),
  {
    code: 'destination_check_failed',
    rule: 'unless "verify" is false, the collector is checked with the destination\'s own token: its health endpoint, then one check event (with the index, source, sourcetype and host set, acknowledged when ack is true); a failure is answered 422 with HEC\'s code',
  },
] as const;

const FIELDS = ['url', 'token', 'index', 'source', 'sourcetype', 'host', 'ack', 'channel', 'ca_pem'];

/** Validates a splunk_hec target, every problem at once. */
export function parseSplunkHecTarget(raw: unknown, prefix: string, _account: AccountContext, egress?: EgressRules): ParseResult<SplunkHecConfig> {
  const r = new ConfigReader(raw, prefix, FIELDS);
  if (!isPlainObject(raw)) return { ok: false, problems: r.problems };
  const { url, caPem } = readBaseUrl(r, egress);
  const token = r.string('token', true);
  // The problem must not echo the token.
  if (token !== undefined && (token.length > TOKEN_MAX || /\s/.test(token))) r.invalid('token', `must be 1 to ${TOKEN_MAX} characters without spaces`);
  const index = r.string('index', false);
  if (index !== undefined && !new RegExp(INDEX).test(index)) r.invalid('index', 'must be 1 to 80 lowercase letters, digits, _ and -, not starting with _ or -');
  const meta = (field: 'source' | 'sourcetype' | 'host') => {
    const v = r.string(field, false);
    if (v !== undefined && v.length > META_MAX) r.invalid(field, `must be at most ${META_MAX} characters`);
    return v;
  };
  const [source, sourcetype, host] = [meta('source'), meta('sourcetype'), meta('host')];
  const ack = r.obj.ack;
  if (ack !== undefined && ack !== null && typeof ack !== 'boolean') r.invalid('ack', 'must be true, false or null');
  const channel = r.string('channel', false);
  if (channel !== undefined && !new RegExp(GUID).test(channel)) r.invalid('channel', 'must be a GUID, e.g. 0aeeac95-ac74-4aa9-b30d-6c4c0ac581ba');
  return r.result({
    url,
    ...(caPem !== undefined && { caPem }),
    token: token ?? '',
    ...(index !== undefined && { index }),
    ...(source !== undefined && { source }),
    ...(sourcetype !== undefined && { sourcetype }),
    ...(host !== undefined && { host }),
    ack: ack === true,
    ...(channel !== undefined && { channel }),
  });
}
