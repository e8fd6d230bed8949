// The elasticsearch destination kind: events written to an Elasticsearch or OpenSearch cluster through the
// bulk API, each document under its event id (README.md here).
import { problem, type ConfigProblem } from '../../destination-config.js';
import type { DestinationKind, WriterDeps } from '../../destination-kind.js';
import { toDeliveryError } from '../../errors.js';
import { jsonOf } from '../vendor-http/vendor-client.js';
import { guardBaseUrl } from '../vendor-http/target-url.js';
import { ELASTICSEARCH_RULES, ELASTICSEARCH_SCHEMA, indexFor, parseElasticsearchTarget, type ElasticsearchConfig } from './config.js';
import { ELASTICSEARCH_LIMITS, ElasticsearchWriter } from './elasticsearch-writer.js';

/** The check document's id and the event type its index is named for. */
export const CHECK_DOCUMENT_ID = 'edge-events-check';
export const CHECK_EVENT_TYPE = 'edge_events_check';

const PREFIX = 'target.elasticsearch';

/**
 * The create-time check with the destination's own auth: the cluster's info (GET /: reachable, the
 * credentials taken), then one check document written as events are (the index or data stream named for
 * the check event type and today), which proves the permission to write it; a plain index's check
 * document is deleted again (a data stream takes no deletes by id).
 */
async function verifyElasticsearch(config: ElasticsearchConfig, deps: WriterDeps): Promise<readonly ConfigProblem[]> {
  const writer = new ElasticsearchWriter(config, deps);
  const authField = config.auth === undefined ? `${PREFIX}.url` : 'basic' in config.auth ? `${PREFIX}.auth.basic.username` : `${PREFIX}.auth.api_key.id`;
  try {
    const info = await writer.info();
    const version = (jsonOf(info) as { version?: { number?: unknown } } | undefined)?.version?.number;
    if (info.status !== 200 || typeof version !== 'string') {
      const e = writer.statusError(info);
      return [problem.checkFailed(e.code === 'DESTINATION_AUTH_FAILED' ? authField : `${PREFIX}.url`, e.code, info.status === 200 ? `${new URL(config.url).host} answered, but not as an Elasticsearch or OpenSearch cluster` : e.message, e.code)];
    }
    const now = Date.now();
    const index = indexFor(config.index, CHECK_EVENT_TYPE, now);
    const document = {
      eventId: CHECK_DOCUMENT_ID,
      payload: Buffer.from(JSON.stringify({ event_id: CHECK_DOCUMENT_ID, event_type: CHECK_EVENT_TYPE, event_timestamp: new Date(now).toISOString(), principal: null, object: {} })),
    };
    const outcome = writer.outcome([document], await writer.bulk([document], () => index));
    const failure = outcome.failed[0]?.error;
    // A refused document is the index's problem (its permission, its mapping), whoever signed in. The
    // answer names the cluster's error type, not its text (SECURITY.md "Egress").
    if (failure !== undefined) {
      const type = /with \d+ ([\w.]+):/.exec(failure.message)?.[1] ?? 'an error';
      const reason = `${new URL(config.url).host} refused the check document for ${index} with ${failure.status ?? 'no status'} ${type}`;
      return [problem.checkFailed(`${PREFIX}.index`, failure.code, reason, failure.code)];
    }
    if (!config.dataStream) await writer.deleteDocument(index, CHECK_DOCUMENT_ID).catch(() => undefined);
    return [];
  } catch (err) {
    const e = toDeliveryError(err);
    if (e.code === 'DESTINATION_ADDRESS_REFUSED') return [problem.egress('internal_address', `${PREFIX}.url`, e.message.replace(/\.$/, ''))];
    return [problem.checkFailed(e.code === 'DESTINATION_AUTH_FAILED' ? authField : `${PREFIX}.url`, e.code, e.message, e.code)];
  } finally {
    await writer.close();
  }
}

export const elasticsearchKind: DestinationKind<ElasticsearchConfig> = {
  name: 'elasticsearch',
  schema: ELASTICSEARCH_SCHEMA,
  rules: ELASTICSEARCH_RULES,
  secrets: [
    { path: 'auth.basic.password', required: true, removable: false, keptWhileSame: 'username' },
    { path: 'auth.api_key.api_key', required: true, removable: false, keptWhileSame: 'id' },
  ],
  limits: ELASTICSEARCH_LIMITS,
  parse: parseElasticsearchTarget,
  view: (stored) => ({
    url: stored.url,
    auth: authView(stored.auth),
    index: stored.index,
    pipeline: stored.pipeline ?? null,
    data_stream: stored.data_stream ?? null,
    ca_pem: stored.ca_pem ?? null,
  }),
  createWriter: (config, deps) => new ElasticsearchWriter(config, deps),
  verify: verifyElasticsearch,
  guard: (config, deps) => guardBaseUrl(config.url, `${PREFIX}.url`, deps),
};

function authView(stored: unknown): Record<string, unknown> | null {
  const auth = stored as { basic?: { username?: unknown }; api_key?: { id?: unknown } } | null | undefined;
  if (auth?.basic !== undefined) return { basic: { username: auth.basic.username, password: null } };
  if (auth?.api_key !== undefined) return { api_key: { id: auth.api_key.id, api_key: null } };
  return null;
}
