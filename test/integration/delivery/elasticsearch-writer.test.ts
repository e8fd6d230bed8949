// The elasticsearch writer and its create-time check against a real OpenSearch node (test/support/opensearch/),
// documents read back by search; credentials and index permissions through a contract receiver of
// Elasticsearch security in front of it (security-front.ts).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryItem } from '../../../src/delivery/contract.js';
import { DestinationRunner } from '../../../src/delivery/destination-runner.js';
import { parseElasticsearchTarget, type ElasticsearchConfig } from '../../../src/delivery/destinations/elasticsearch/config.js';
import { elasticsearchKind } from '../../../src/delivery/destinations/elasticsearch/elasticsearch-kind.js';
import { ElasticsearchWriter } from '../../../src/delivery/destinations/elasticsearch/elasticsearch-writer.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import type { Settlement } from '../../../src/delivery/runner-options.js';
import { OPERATOR } from '../../../src/accounts/account.js';
import { makeEnvelope } from '../../../src/events/envelope.js';
import { TEST_EGRESS, writerDeps } from '../../support/writer-deps.js';
import { OpenSearchFront } from '../../support/opensearch/security-front.js';
import { openSearchCall, searchAll, startOpenSearch, type OpenSearchNode } from '../../support/opensearch/opensearch-node.js';
import { RecordingDeadLetters, describeWriterContract, testItems } from './writer-contract.js';

let node: OpenSearchNode;
let front: OpenSearchFront;

beforeAll(async () => {
  node = await startOpenSearch();
  front = new OpenSearchFront(node.url);
  await front.start();
}, 150_000);

afterAll(async () => {
  await front?.stop();
  await node?.stop();
});

const uniqueIndex = (): string => `edge-test-${randomBytes(4).toString('hex')}`;

function config(target: Record<string, unknown>): ElasticsearchConfig {
  const r = parseElasticsearchTarget(target, 'target.elasticsearch', OPERATOR, TEST_EGRESS);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.config;
}

async function documents(index: string, atLeast: number): Promise<Awaited<ReturnType<typeof searchAll>>> {
  const deadline = Date.now() + 10_000;
  let docs = await searchAll(node.url, index);
  while (docs.length < atLeast && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    docs = await searchAll(node.url, index);
  }
  return docs;
}

describeWriterContract('elasticsearch', async () => {
  const index = uniqueIndex();
  front.rules = {};
  return {
    createWriter: async () => new ElasticsearchWriter(config({ url: front.url, index }), writerDeps()),
    readBack: async (atLeast) => (await documents(index, atLeast)).map((d) => d._source as never),
    disrupt: () => front.stop(),
    restore: () => front.start(),
    cleanup: async () => {
      await front.start();
      await openSearchCall(node.url, 'DELETE', `/${index}`);
    },
  };
});

function run(writer: ElasticsearchWriter) {
  const settled = new Map<DeliveryItem, Settlement>();
  const deadLetter = new RecordingDeadLetters();
  const runner = new DestinationRunner({
    destinationId: 'ed_es_test',
    writer,
    budget: new InFlightBudget(),
    deadLetter,
    onSettled: (item, s) => settled.set(item, s),
    batching: { lingerMs: 5 },
    retry: { baseDelayMs: 50, maxDelayMs: 200 },
  });
  runner.start();
  return { runner, settled, deadLetter };
}

function event(bytesIn: unknown): DeliveryItem {
  const envelope = makeEnvelope('tcp_connection_closed.v0', { conn: { bytes_in: bytesIn } });
  return { eventId: envelope.event_id, payload: Buffer.from(JSON.stringify(envelope)), envelope };
}

describe('elasticsearch writer against OpenSearch', () => {
  it('should dead-letter exactly the documents the node refuses for a mapping conflict, with its reason, and deliver the rest once', async () => {
    const index = uniqueIndex();
    const created = await openSearchCall(node.url, 'PUT', `/${index}`, { mappings: { properties: { object: { properties: { conn: { properties: { bytes_in: { type: 'integer' } } } } } } } });
    expect(created.status).toBe(200);
    const items = Array.from({ length: 40 }, (_, i) => event(i % 10 === 3 ? `not-a-number-${i}` : i));
    const refused = items.filter((_, i) => i % 10 === 3);
    const { runner, settled, deadLetter } = run(new ElasticsearchWriter(config({ url: node.url, index }), writerDeps()));
    for (const i of items) runner.enqueue(i);
    await runner.flush();
    expect(deadLetter.letters.map((l) => l.key).sort()).toEqual(refused.map((i) => i.eventId).sort());
    for (const l of deadLetter.letters) {
      expect(l.errorCode).toBe('DESTINATION_REJECTED');
      expect(l.errorMessage).toContain('400 mapper_parsing_exception');
    }
    const docs = await documents(index, items.length - refused.length);
    expect(docs.map((d) => d._id).sort()).toEqual(items.filter((i) => !refused.includes(i)).map((i) => i.eventId).sort());
    expect(items.every((i) => settled.get(i) === (refused.includes(i) ? 'dead_lettered' : 'acked'))).toBe(true);
    await runner.close();
  });

  it('should write each event under its event id, so the same batch written again duplicates nothing', async () => {
    const index = uniqueIndex();
    const writer = new ElasticsearchWriter(config({ url: node.url, index }), writerDeps());
    const batch = testItems(25);
    expect((await writer.write(batch)).failed).toEqual([]);
    expect((await writer.write(batch)).failed).toEqual([]);
    const docs = await documents(index, 25);
    expect(docs.map((d) => d._id).sort()).toEqual(batch.map((i) => i.eventId).sort());
    await writer.close();
  });

  it('should name the index from {event_type} and the event day in {date}', async () => {
    const base = uniqueIndex();
    const writer = new ElasticsearchWriter(config({ url: node.url, index: `${base}-{event_type}-{date}` }), writerDeps());
    const envelope = makeEnvelope('http_request_complete.v0', { http: { status: 200 } }, { timestamp: new Date('2026-03-04T05:06:07.089Z') });
    await writer.write([{ eventId: envelope.event_id, payload: Buffer.from(JSON.stringify(envelope)), envelope }]);
    const docs = await documents(`${base}-*`, 1);
    expect(docs.map((d) => [d._index, d._id])).toEqual([[`${base}-http_request_complete.v0-2026.03.04`, envelope.event_id]]);
    await writer.close();
  });

  it('should add events to a data stream with create and @timestamp, an event it already holds counting as delivered', async () => {
    const stream = `logs-edge-${randomBytes(4).toString('hex')}`;
    const template = await openSearchCall(node.url, 'PUT', `/_index_template/${stream}`, { index_patterns: [`${stream}*`], data_stream: {}, priority: 500 });
    expect(template.status).toBe(200);
    const writer = new ElasticsearchWriter(config({ url: node.url, index: stream, data_stream: true }), writerDeps());
    const batch = testItems(5);
    expect((await writer.write(batch)).failed).toEqual([]);
    expect((await writer.write(batch)).failed).toEqual([]);
    const docs = await documents(stream, 5);
    expect(docs.map((d) => d._id).sort()).toEqual(batch.map((i) => i.eventId).sort());
    for (const d of docs) {
      const { '@timestamp': at, ...envelope } = d._source;
      expect(at).toBe(new Date(String(envelope.event_timestamp)).toISOString());
      expect(batch.map((i) => i.envelope)).toContainEqual(envelope);
    }
    await writer.close();
    await openSearchCall(node.url, 'DELETE', `/_data_stream/${stream}`);
  });
});

describe('elasticsearch create-time check', () => {
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  it('should pass against the node, leaving no check document in a plain index', async () => {
    front.rules = {};
    const index = uniqueIndex();
    expect(await elasticsearchKind.verify!(config({ url: node.url, index }), writerDeps(), OPERATOR)).toEqual([]);
    expect(await searchAll(node.url, index)).toEqual([]);
  });

  it('should refuse a wrong password at the auth field with the cluster\'s 401', async () => {
    front.rules = { credentials: [basic('edge', 'right-password')] };
    const ok = await elasticsearchKind.verify!(config({ url: front.url, index: uniqueIndex(), auth: { basic: { username: 'edge', password: 'right-password' } } }), writerDeps(), OPERATOR);
    expect(ok).toEqual([]);
    const problems = await elasticsearchKind.verify!(config({ url: front.url, index: uniqueIndex(), auth: { basic: { username: 'edge', password: 'wrong-password' } } }), writerDeps(), OPERATOR);
    expect(problems.map((p) => [p.code, p.field, p.details.error])).toEqual([['destination_check_failed', 'target.elasticsearch.auth.basic.username', 'DESTINATION_AUTH_FAILED']]);
    expect(JSON.stringify(problems)).not.toContain('wrong-password');
  });

  it('should refuse an index the user may not write, naming the index field', async () => {
    front.rules = { writable: (index) => index.startsWith('edge-allowed-') };
    const problems = await elasticsearchKind.verify!(config({ url: front.url, index: uniqueIndex() }), writerDeps(), OPERATOR);
    expect(problems.map((p) => [p.code, p.field, p.details.error])).toEqual([['destination_check_failed', 'target.elasticsearch.index', 'DESTINATION_AUTH_FAILED']]);
    expect(problems[0]?.message).toContain('security_exception');
    front.rules = {};
  });

  it('should refuse a URL where no cluster answers', async () => {
    const stopped = new OpenSearchFront(node.url);
    await stopped.start();
    const url = stopped.url;
    await stopped.stop();
    const problems = await elasticsearchKind.verify!(config({ url, index: uniqueIndex() }), writerDeps(), OPERATOR);
    expect(problems.map((p) => [p.code, p.field, p.details.error])).toEqual([['destination_check_failed', 'target.elasticsearch.url', 'DESTINATION_UNREACHABLE']]);
  });
});
