// Config of the azure_logs_ingestion destination: the app registration that authenticates (tenant, client
// id and secret), and the data collection rule's ingestion endpoint, immutable id and input stream; its
// JSON schemas and its parse, with the egress rules of the endpoint (README.md here, SECURITY.md "Egress").
import type { AccountContext } from '../../../accounts/account.js';
import { ConfigReader, problem, type ParseResult } from '../../destination-config.js';
import type { EgressRules } from '../../egress-rules.js';
import { named, obj, patterned, secretRequest, secretResponse, str, withError } from '../target-schema.js';

export interface AzureLogsIngestionConfig {
  readonly tenantId: string;
  readonly clientId: string;
  /** Held in memory only; never logged. */
  readonly clientSecret: string;
  /** The endpoint's origin, no trailing slash: https://<name>.<region>-1.ingest.monitor.azure.com. */
  readonly endpoint: string;
  readonly ruleId: string;
  readonly stream: string;
}

const GUID = '[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}';
// A tenant's GUID, or one of its domain names (contoso.onmicrosoft.com), which Entra ID also takes.
const TENANT = `^(?:${GUID}|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)$`;
const CLIENT = `^${GUID}$`;
// An endpoint's origin: https, a DNS name or IPv4 host, an optional port, nothing after but a slash.
const ENDPOINT = '^https?://[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?::[0-9]{1,5})?/?$';
// A rule's immutable id: "dcr-" and 32 hex digits.
const RULE = '^dcr-[0-9A-Fa-f]{32}$';
// An input stream of the rule: Custom-<name> for a custom stream, Microsoft-<table> for a built-in one.
const STREAM = '^(?:Custom|Microsoft)-[A-Za-z0-9_.-]{1,200}$';
const MAX_SECRET = 1024;

const about = {
  tenant: 'The Directory (tenant) ID of the app registration that sends the logs, a GUID (or a domain name of the tenant).',
  client: "The app registration's Application (client) ID, a GUID. The app needs the Monitoring Metrics Publisher role on the data collection rule.",
  secret: "The Value of one of the app registration's client secrets (shown once when it is created), not its Secret ID.",
  endpoint:
    "The logs ingestion URI of the data collection rule (its logsIngestion endpoint in the rule's JSON view) or of its data collection endpoint, e.g. https://my-dce-a1b2.eastus-1.ingest.monitor.azure.com: https, a host under ingest.monitor.azure.com unless the operator allows others, no path.",
  rule: "The data collection rule's Immutable ID (dcr- and 32 hex digits), shown on the rule's Overview page; not its resource name or resource ID.",
  stream:
    'The input stream the rule declares (streamDeclarations), Custom-<name>, e.g. Custom-EdgeEvents; not the table it writes to (EdgeEvents_CL, or its outputStream Custom-EdgeEvents_CL). Its columns: TimeGenerated (datetime), event_id, event_type and event_timestamp (string), principal and object (dynamic).',
};

export const AZURE_LOGS_INGESTION_SCHEMA = {
  request: named('AzureLogsIngestionTarget', obj(
    {
      tenant_id: withError(patterned(TENANT, about.tenant), 'invalid_body', { reason: 'must be the Directory (tenant) ID, a GUID, or a domain name of the tenant' }),
      client_id: withError(patterned(CLIENT, about.client), 'invalid_body', { reason: 'must be the Application (client) ID, a GUID' }),
      client_secret: { ...secretRequest(about.secret, { min: 1, max: MAX_SECRET }), pattern: '^[!-~]+$' },
      logs_ingestion_uri: withError(patterned(ENDPOINT, about.endpoint, { examples: ['https://my-dce-a1b2.eastus-1.ingest.monitor.azure.com'] }), 'invalid_body', {
        reason: 'must be an https URL of a host, an optional port and no path, e.g. https://my-dce-a1b2.eastus-1.ingest.monitor.azure.com',
      }),
      data_collection_rule_id: withError(patterned(RULE, about.rule, { examples: ['dcr-00000000000000000000000000000000'] }), 'invalid_body', {
        reason: "must be the rule's Immutable ID, dcr- and 32 hex digits (the rule's Overview page), not its name or resource ID",
      }),
      data_collection_stream_name: withError(patterned(STREAM, about.stream, { examples: ['Custom-EdgeEvents'] }), 'invalid_body', {
        reason: 'must name an input stream of the rule, Custom-<name> (or Microsoft-<table>); a table name such as EdgeEvents_CL is not a stream name',
      }),
    },
    ['tenant_id', 'client_id', 'client_secret', 'logs_ingestion_uri', 'data_collection_rule_id', 'data_collection_stream_name'],
    'Azure Monitor Logs through the Logs Ingestion API: each event one row of a data collection rule\'s stream, authenticated as an app registration.',
  )),
  response: named('AzureLogsIngestionTargetView', obj(
    {
      tenant_id: str(about.tenant),
      client_id: str(about.client),
      client_secret: secretResponse('Client secret of the app registration.'),
      logs_ingestion_uri: str(about.endpoint),
      data_collection_rule_id: str(about.rule),
      data_collection_stream_name: str(about.stream),
    },
    ['tenant_id', 'client_id', 'client_secret', 'logs_ingestion_uri', 'data_collection_rule_id', 'data_collection_stream_name'],
    'Azure Monitor Logs through the Logs Ingestion API: each event one row of a data collection rule\'s stream, authenticated as an app registration.',
  )),
};

const FIELDS = ['tenant_id', 'client_id', 'client_secret', 'logs_ingestion_uri', 'data_collection_rule_id', 'data_collection_stream_name'] as const;

export function parseAzureLogsIngestion(raw: unknown, prefix: string, _account: AccountContext, egress?: EgressRules): ParseResult<AzureLogsIngestionConfig> {
  const r = new ConfigReader(raw, prefix, FIELDS);
  const read = (field: (typeof FIELDS)[number], pattern: string, reason: string): string => {
    const v = r.string(field, true);
    if (v !== undefined && !new RegExp(pattern).test(v)) r.invalid(field, reason);
    return v ?? '';
  };
  const tenantId = read('tenant_id', TENANT, 'must be the Directory (tenant) ID, a GUID, or a domain name of the tenant');
  const clientId = read('client_id', CLIENT, 'must be the Application (client) ID, a GUID');
  // The problem must not echo the secret.
  const clientSecret = read('client_secret', `^[!-~]{1,${MAX_SECRET}}$`, `must be 1 to ${MAX_SECRET} visible ASCII characters`);
  const uri = read('logs_ingestion_uri', ENDPOINT, 'must be an https URL of a host, an optional port and no path, e.g. https://my-dce-a1b2.eastus-1.ingest.monitor.azure.com');
  const ruleId = read('data_collection_rule_id', RULE, "must be the rule's Immutable ID, dcr- and 32 hex digits (the rule's Overview page), not its name or resource ID");
  const stream = read('data_collection_stream_name', STREAM, 'must name an input stream of the rule, Custom-<name> (or Microsoft-<table>); a table name such as EdgeEvents_CL is not a stream name');
  let endpoint = '';
  if (uri !== '' && new RegExp(ENDPOINT).test(uri)) {
    const url = new URL(uri);
    endpoint = url.origin;
    const field = r.path('logs_ingestion_uri');
    const refused = egress?.urlRefusal(url);
    const host = url.hostname;
    if (refused !== undefined) r.add(problem.egress(refused.code, field, refused.reason));
    else {
      const outside = egress?.azureIngestionHostRefusal(host);
      if (outside !== undefined) r.add(problem.egress('host_not_allowed', field, outside, { host }));
    }
  }
  return r.result({ tenantId, clientId, clientSecret, endpoint, ruleId, stream });
}

/** The rules of an azure_logs_ingestion target beyond its schema, each with its code. */
export const AZURE_LOGS_INGESTION_RULES = [
  { code: 'secret_required', rule: 'target.azure_logs_ingestion.client_secret is sent unless the stored target has the same client_id', updateOnly: true },
  { code: 'insecure_url', rule: 'target.azure_logs_ingestion.logs_ingestion_uri uses https, unless the operator allows http' },
  { code: 'host_not_allowed', rule: "target.azure_logs_ingestion.logs_ingestion_uri's host is ingest.monitor.azure.com or under it, unless the operator allows other domains" },
  {
    code: 'internal_address',
    rule: "target.azure_logs_ingestion.logs_ingestion_uri's host is not, and does not resolve to, an internal address (loopback, link-local, private, ...; as for http URLs), unless the operator opens its range; checked when the target is set, \"verify\": false or not, and again at every connect",
  },
  {
    code: 'destination_check_failed',
    rule: 'unless "verify" is false, a token is fetched from Microsoft Entra ID with the client credentials, then an empty array is posted to the stream, which Azure answers with a missing rule (404), an app without access (403) or a stream the rule does not declare (400 InvalidStream) before it reads any row; a failure is answered 422 with the error code',
  },
] as const;
