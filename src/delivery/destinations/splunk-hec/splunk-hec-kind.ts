// The splunk_hec destination kind: events sent to a Splunk HTTP Event Collector (README.md here).
import { problem, type ConfigProblem } from '../../destination-config.js';
import type { DestinationKind, WriterDeps } from '../../destination-kind.js';
import { toDeliveryError } from '../../errors.js';
import { guardBaseUrl } from '../vendor-http/target-url.js';
import { jsonOf } from '../vendor-http/vendor-client.js';
import { SPLUNK_HEC_RULES, SPLUNK_HEC_SCHEMA, parseSplunkHecTarget, type SplunkHecConfig } from './config.js';
import { SPLUNK_HEC_LIMITS, SplunkHecWriter } from './splunk-hec-writer.js';

const PREFIX = 'target.splunk_hec';
const CHECK_EVENT = { event_id: 'edge-events-check', event_type: 'edge_events_check', principal: null, object: {} };

/**
 * The create-time check with the destination's own token: the health endpoint (the collector is up and
 * takes events), then one check event sent as events are, with the index, source, sourcetype and host
 * (so a token that may not write the index is refused now), acknowledged when ack is on.
 */
async function verifySplunkHec(config: SplunkHecConfig, deps: WriterDeps): Promise<readonly ConfigProblem[]> {
  const writer = new SplunkHecWriter(config, deps);
  const fieldOf = (code: string, hecCode: unknown): string =>
    code === 'DESTINATION_AUTH_FAILED' ? `${PREFIX}.token` : hecCode === 7 ? `${PREFIX}.index` : hecCode === 14 || hecCode === 10 || hecCode === 11 ? `${PREFIX}.ack` : `${PREFIX}.url`;
  try {
    const health = await writer.health();
    const hec = jsonOf(health) as { code?: unknown } | undefined;
    if (health.status !== 200) {
      const e = writer.answerError(health, hec as never);
      return [problem.checkFailed(fieldOf(e.code, hec?.code), e.code, e.message, e.code)];
    }
    const payload = Buffer.from(JSON.stringify({ ...CHECK_EVENT, event_timestamp: new Date().toISOString() }));
    await writer.write([{ eventId: CHECK_EVENT.event_id, payload }]);
    return [];
  } catch (err) {
    const e = toDeliveryError(err);
    if (e.code === 'DESTINATION_ADDRESS_REFUSED') return [problem.egress('internal_address', `${PREFIX}.url`, e.message.replace(/\.$/, ''))];
    const hecCode = /HEC code (\d+)/.exec(e.message)?.[1];
    return [problem.checkFailed(fieldOf(e.code, hecCode === undefined ? undefined : Number(hecCode)), e.code, e.message, e.code)];
  } finally {
    await writer.close();
  }
}

export const splunkHecKind: DestinationKind<SplunkHecConfig> = {
  name: 'splunk_hec',
  schema: SPLUNK_HEC_SCHEMA,
  rules: SPLUNK_HEC_RULES,
  secrets: [{ path: 'token', required: true, removable: false }],
  limits: SPLUNK_HEC_LIMITS,
  parse: parseSplunkHecTarget,
  view: (stored) => ({
    url: stored.url,
    token: null,
    index: stored.index ?? null,
    source: stored.source ?? null,
    sourcetype: stored.sourcetype ?? null,
    host: stored.host ?? null,
    ack: stored.ack ?? null,
    channel: stored.channel ?? null,
    ca_pem: stored.ca_pem ?? null,
  }),
  createWriter: (config, deps) => new SplunkHecWriter(config, deps),
  verify: verifySplunkHec,
  guard: (config, deps) => guardBaseUrl(config.url, `${PREFIX}.url`, deps),
};
