// Config of the elasticsearch destination (Elasticsearch or OpenSearch): the cluster's URL, its auth
// (basic, or an Elasticsearch API key), the index name with its placeholders, an optional ingest pipeline,
// and data streams; its JSON schemas and its rules (README.md here).
import type { AccountContext } from '../../../accounts/account.js';
import { ConfigReader, isPlainObject, type ParseResult } from '../../destination-config.js';
import type { EgressRules } from '../../egress-rules.js';
import { exactlyOne, named, nullable, obj, patterned, secretRequest, secretResponse, str } from '../target-schema.js';
import { BASE_URL_RULES, CA_PEM_SCHEMA, baseUrlSchema, readBaseUrl } from '../vendor-http/target-url.js';

export const INDEX_PLACEHOLDERS = ['date', 'event_type'] as const;

export type ElasticsearchAuth = { readonly basic: { readonly username: string; readonly password: string } } | { readonly api_key: { readonly id: string; readonly api_key: string } };

export interface ElasticsearchConfig {
  readonly url: string;
  readonly caPem?: string;
  readonly auth?: ElasticsearchAuth;
  /** The index (or data stream) name as sent, placeholders unexpanded. */
  readonly index: string;
  readonly pipeline?: string;
  readonly dataStream: boolean;
}

// Elasticsearch's index name rules: lowercase, none of \ / * ? " < > | , # : or space, not starting with
// - _ +, not . or .., at most 255 bytes. The schema states the characters; the rest are rules.
const INDEX = `^(?:[a-z0-9._+-]|\\{(?:${INDEX_PLACEHOLDERS.join('|')})\\})+$`;
const INDEX_MAX = 200;
const PIPELINE = '^[A-Za-z0-9._-]{1,512}$';
const USERNAME_MAX = 1024;
const SECRET_MAX = 4096;

const about = {
  url: "The cluster's address, e.g. https://my-deployment.es.eu-west-1.aws.found.io or an OpenSearch domain's endpoint; the bulk API is called at <url>/_bulk.",
  index: `The index the events are written to, up to ${INDEX_MAX} characters of lowercase letters, digits and ._+- (not starting with - _ + or .), with the placeholders {date} (the event's day, YYYY.MM.DD, UTC) and {event_type}. With data_stream true, the data stream's name (an index template must make it one). Example: edge-events-{event_type}-{date}.`,
  pipeline: 'The ingest pipeline each document goes through; null: the index\'s default pipeline, if any.',
  data_stream: 'true: index is a data stream; each event is added with the create action and an @timestamp field (its event time), as data streams require. false or null: a plain index, each event written with the index action under its event id.',
  auth: 'How the service signs in to the cluster: a user name and password, or an Elasticsearch API key. null: no sign-in (a cluster open to the service).',
  username: 'The user the service signs in as; it needs to write (index, create_doc) to the index and to read the cluster\'s info.',
  password: "The user's password.",
  id: "The API key's id (the id field of Elasticsearch's create API key answer).",
  api_key: "The API key's secret (the api_key field of the same answer).",
};

function schema(use: 'request' | 'response') {
  const request = use === 'request';
  const view = request ? '' : 'View';
  const basic = request
    ? obj({ username: str(about.username, { minLength: 1, maxLength: USERNAME_MAX }), password: secretRequest(about.password, { min: 1, max: SECRET_MAX }) }, ['username', 'password'])
    : obj({ username: str(about.username), password: secretResponse(about.password) }, ['username', 'password']);
  const apiKey = request
    ? obj({ id: str(about.id, { minLength: 1, maxLength: USERNAME_MAX }), api_key: secretRequest(about.api_key, { min: 1, max: SECRET_MAX }) }, ['id', 'api_key'])
    : obj({ id: str(about.id), api_key: secretResponse(about.api_key) }, ['id', 'api_key']);
  const choices = { basic: named(`ElasticsearchBasicAuth${view}`, basic), api_key: named(`ElasticsearchApiKeyAuth${view}`, apiKey) };
  const auth = named(`ElasticsearchAuth${view}`, request ? exactlyOne(choices, about.auth) : obj(choices, [], `${about.auth} Exactly one is set.`));
  return named(request ? 'ElasticsearchTarget' : 'ElasticsearchTargetView', obj(
    {
      url: request ? baseUrlSchema(about.url) : str(about.url),
      auth: { ...auth, type: ['object', 'null'] },
      index: request ? patterned(INDEX, about.index, { maxLength: INDEX_MAX, examples: ['edge-events-{event_type}-{date}'] }) : str(about.index),
      pipeline: nullable(request ? patterned(PIPELINE, about.pipeline) : str(about.pipeline)),
      data_stream: { type: ['boolean', 'null'], description: about.data_stream },
      ca_pem: request ? CA_PEM_SCHEMA : { type: ['string', 'null'], description: CA_PEM_SCHEMA.description },
    },
    request ? ['url', 'index'] : ['url', 'auth', 'index', 'pipeline', 'data_stream', 'ca_pem'],
    'An Elasticsearch or OpenSearch cluster: events written through the bulk API, each document under its event id.',
  ));
}

export const ELASTICSEARCH_SCHEMA = { request: schema('request'), response: schema('response') };

export const ELASTICSEARCH_RULES = [
  ...BASE_URL_RULES.map((r) => ({ ...r, rule: `target.elasticsearch.${r.rule}` })),
  { code: 'invalid_body', rule: 'target.elasticsearch.auth sets exactly one of basic and api_key' },
  { code: 'invalid_body', rule: 'target.elasticsearch.index does not start with -, _, + or . (Elasticsearch index naming)' },
  {
    code: 'destination_check_failed',
    rule: 'unless "verify" is false, the cluster is checked with the destination\'s own auth: its info (GET /), then one check document (_id edge-events-check) written to the index named for the event type edge_events_check and today (a plain index: deleted again); a failure is answered 422 with the cluster\'s error type',
  },
] as const;

const FIELDS = ['url', 'auth', 'index', 'pipeline', 'data_stream', 'ca_pem'];

function readAuth(r: ConfigReader): ElasticsearchAuth | undefined {
  const raw = r.obj.auth;
  if (raw === undefined || raw === null) return undefined;
  if (!isPlainObject(raw)) {
    r.invalid('auth', 'must be an object');
    return undefined;
  }
  const a = new ConfigReader(raw, r.path('auth'), ['basic', 'api_key']);
  const set = ['basic', 'api_key'].filter((k) => a.has(k));
  if (set.length !== 1) {
    r.invalid('auth', `must set exactly one of basic and api_key, not ${set.length === 0 ? 'neither' : 'both'}`);
    return undefined;
  }
  let auth: ElasticsearchAuth | undefined;
  if (set[0] === 'basic') {
    const b = new ConfigReader(raw.basic, a.path('basic'), ['username', 'password']);
    const username = b.string('username', true);
    const password = b.string('password', true);
    r.problems.push(...b.problems);
    if (username !== undefined && password !== undefined) auth = { basic: { username, password } };
  } else {
    const k = new ConfigReader(raw.api_key, a.path('api_key'), ['id', 'api_key']);
    const id = k.string('id', true);
    const key = k.string('api_key', true);
    r.problems.push(...k.problems);
    if (id !== undefined && key !== undefined) auth = { api_key: { id, api_key: key } };
  }
  r.problems.push(...a.problems);
  return auth;
}

/** Validates an elasticsearch target, every problem at once. */
export function parseElasticsearchTarget(raw: unknown, prefix: string, _account: AccountContext, egress?: EgressRules): ParseResult<ElasticsearchConfig> {
  const r = new ConfigReader(raw, prefix, FIELDS);
  if (!isPlainObject(raw)) return { ok: false, problems: r.problems };
  const { url, caPem } = readBaseUrl(r, egress);
  const index = r.string('index', true);
  if (index !== undefined && (index.length > INDEX_MAX || !new RegExp(INDEX).test(index))) {
    r.invalid('index', `must be at most ${INDEX_MAX} characters of lowercase letters, digits and ._+-, with the placeholders {date} and {event_type}`);
  } else if (index !== undefined && /^[-_+.]/.test(index)) r.invalid('index', 'must not start with -, _, + or .');
  const pipeline = r.string('pipeline', false);
  if (pipeline !== undefined && !new RegExp(PIPELINE).test(pipeline)) r.invalid('pipeline', 'must be 1 to 512 letters, digits and ._-');
  const dataStream = r.obj.data_stream;
  if (dataStream !== undefined && dataStream !== null && typeof dataStream !== 'boolean') r.invalid('data_stream', 'must be true, false or null');
  const auth = readAuth(r);
  return r.result({
    url,
    ...(caPem !== undefined && { caPem }),
    ...(auth !== undefined && { auth }),
    index: index ?? '',
    ...(pipeline !== undefined && { pipeline }),
    dataStream: dataStream === true,
  });
}

/** The index name for one event: {date} is the event's UTC day as YYYY.MM.DD. */
export function indexFor(template: string, eventType: string, eventMs: number): string {
  const d = new Date(Number.isFinite(eventMs) ? eventMs : Date.now());
  const date = `${d.getUTCFullYear()}.${String(d.getUTCMonth() + 1).padStart(2, '0')}.${String(d.getUTCDate()).padStart(2, '0')}`;
  // Event types are lowercase catalogue names; anything else an index refuses is lowered and replaced.
  const type = eventType.toLowerCase().replace(/[^a-z0-9._+-]/g, '_');
  return template.replace(/\{date\}/g, date).replace(/\{event_type\}/g, type);
}
