// Through the API of the real service, as a customer: an elasticsearch destination on a real OpenSearch
// node and a splunk_hec destination on the HEC contract receiver (test/support/splunk-hec-receiver.ts) are
// created, checked at create (a missing index permission and a wrong token refused with 422 and the reason),
// sent traffic by `produce`, and their events read back: OpenSearch by search, the receiver by its record.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.js';
import { testBrokers, uniqueName } from '../../support/kafka.js';
import { OpenSearchFront } from '../../support/opensearch/security-front.js';
import { openSearchCall, searchAll, startOpenSearch, type OpenSearchNode } from '../../support/opensearch/opensearch-node.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { SplunkHecReceiver } from '../../support/splunk-hec-receiver.js';
import { until } from '../parking/parking-harness.js';

const prefix = uniqueName('vendor-api');
const token = `eek_vendor${randomBytes(16).toString('hex')}`;
const HEC_TOKEN = '11111111-2222-3333-4444-555555555555';
let service: ServiceProcess;
let node: OpenSearchNode;
let front: OpenSearchFront;
let hec: SplunkHecReceiver;

type Json = Record<string, unknown>;
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${service.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Json };
}

beforeAll(async () => {
  [service, node] = await Promise.all([startService(serviceEnv(prefix, testBrokers(), { API_BOOTSTRAP_TOKEN: token })), startOpenSearch()]);
  front = new OpenSearchFront(node.url);
  await front.start();
  hec = new SplunkHecReceiver([{ token: HEC_TOKEN, indexes: ['edge_events'] }]);
  await hec.start();
}, 180_000);

afterAll(async () => {
  await hec?.stop();
  await front?.stop();
  await node?.stop();
  await service?.stop();
});

describe('splunk_hec and elasticsearch through the API', () => {
  it('should refuse at create a wrong token and an index the user may not write, then deliver traffic to both kinds', async () => {
    front.rules = { writable: (index) => index.startsWith('edge-allowed-') };
    const denied = await call('POST', '/event_destinations', { description: 'search', target: { elasticsearch: { url: front.url, index: 'edge-denied' } } });
    expect([denied.status, denied.json.error_code, (denied.json.details as Json).field]).toEqual([422, 'destination_check_failed', 'target.elasticsearch.index']);
    const wrong = await call('POST', '/event_destinations', { description: 'splunk', target: { splunk_hec: { url: hec.url, token: 'wrong-token' } } });
    expect([wrong.status, wrong.json.error_code, (wrong.json.details as Json).field]).toEqual([422, 'destination_check_failed', 'target.splunk_hec.token']);
    expect(JSON.stringify(wrong.json)).not.toContain('wrong-token');

    const index = `edge-allowed-${randomBytes(3).toString('hex')}`;
    const es = await call('POST', '/event_destinations', { description: 'search', target: { elasticsearch: { url: front.url, index } } });
    expect(es.status).toBe(201);
    const splunk = await call('POST', '/event_destinations', { description: 'splunk', target: { splunk_hec: { url: hec.url, token: HEC_TOKEN, index: 'edge_events' } } });
    expect(splunk.status).toBe(201);
    expect((splunk.json.target as { splunk_hec: Json }).splunk_hec.token).toBeNull();
    const sub = await call('POST', '/event_subscriptions', { description: 'all tcp', destination_ids: [es.json.id, splunk.json.id], sources: [{ type: 'tcp_connection_closed.v0', fields: ['conn.client_ip', 'conn.bytes_in'] }] });
    expect(sub.status).toBe(201);
    const out = { write: () => true };
    expect(await runCli(['produce', '--brokers', testBrokers(), '--tcp-topic', `${prefix}.tcp`, '--http-topic', `${prefix}.http`, '--rate', '200', '--count', '100', '--http-share', '0'], { stdout: out, stderr: out } as never)).toBe(0);
    const hecTraffic = () => hec.events.filter((e) => (e.event as { event_type: string }).event_type === 'tcp_connection_closed.v0');
    await until(async () => (await searchAll(node.url, index)).length >= 100 && hecTraffic().length >= 100, 30_000, 'the 100 events in OpenSearch and at the collector');
    const docs = await searchAll(node.url, index);
    expect(new Set(docs.map((d) => d._id)).size).toBe(100);
    expect(docs.every((d) => d._source.event_type === 'tcp_connection_closed.v0' && d._id === d._source.event_id)).toBe(true);
    // Each destination's events have ids of their own (ARCHITECTURE.md "Event ids"); the same records reached both.
    const objects = (list: readonly unknown[]) => list.map((o) => JSON.stringify(o)).sort();
    expect(hecTraffic()).toHaveLength(100);
    expect(objects(hecTraffic().map((e) => (e.event as { object: unknown }).object))).toEqual(objects(docs.map((d) => d._source.object)));
    const status = await call('GET', `/event_destinations/${String(es.json.id)}`);
    await openSearchCall(node.url, 'DELETE', `/${index}`);
    expect((status.json.status as Json).state).not.toBe('failing');
  });
});
