// What destinations may point at, per account, on the real service and the real broker (SECURITY.md
// "Egress"): kafka topics under the account's prefix and never the service's own, file paths under the
// account's own folder (or refused when the service keeps file destinations for the operator), test
// events that report the outcome and never the receiver's body, and redirects that are not followed.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeNow, listenOnLoopback } from '../../support/loopback-server.js';
import { startAdmin, type AdminHarness, type Body } from './admin-harness.js';

const fileRoot = mkdtempSync(join(tmpdir(), 'egress-files-'));
let h: AdminHarness;

beforeAll(async () => {
  h = await startAdmin({ env: { FILE_DESTINATION_ROOT: fileRoot } });
});
afterAll(async () => {
  await h?.stop();
});

/** A new account and a key of it, made by the operator. */
async function account(h: AdminHarness, description: string): Promise<{ id: string; token: string }> {
  const a = await h.call('POST', '/accounts', { body: { description } });
  const key = await h.call('POST', '/api_keys', { body: { account_id: a.json.id } });
  expect(key.status, key.text).toBe(201);
  return { id: a.json.id, token: key.json.token };
}

async function create(h: AdminHarness, token: string | undefined, target: unknown): Promise<{ status: number; json: Body }> {
  const r = await h.call('POST', '/event_destinations', { body: { target }, ...(token !== undefined && { token }) });
  return { status: r.status, json: r.json };
}

describe('kafka destinations per account', () => {
  it("should take a normal account's topics only under its prefix, the operator's anywhere but the service's own", async () => {
    const shop = await account(h, 'kafka shop');
    const other = await account(h, 'kafka other');
    const outside = await create(h, shop.token, { kafka: { topic: 'orders' } });
    expect([outside.status, outside.json.error_code, outside.json.details]).toEqual([
      400,
      'topic_prefix_required',
      { field: 'target.kafka.topic', topic: 'orders', prefix: `${shop.id}.`, problems: [{ path: 'target.kafka.topic', code: 'topic_prefix_required', message: expect.stringContaining(`topics beginning with "${shop.id}."`) }] },
    ]);
    const theirs = await create(h, shop.token, { kafka: { topic: `${other.id}.orders` } });
    expect([theirs.status, theirs.json.error_code]).toEqual([400, 'topic_prefix_required']);
    // The service's own topics are refused to every account, the operator's included, on any cluster.
    for (const topic of [`${h.prefix}.audit`, `${h.prefix}.retry.ed_x`, '__consumer_offsets']) {
      const own = await create(h, undefined, { kafka: { topic } });
      expect([topic, own.status, own.json.error_code]).toEqual([topic, 400, 'internal_topic']);
    }
    // Created on the real broker by the check, then the operator may name any other topic.
    const ownTopic = await create(h, shop.token, { kafka: { topic: `${shop.id}.orders` } });
    expect(ownTopic.status, JSON.stringify(ownTopic.json)).toBe(201);
    expect((await create(h, undefined, { kafka: { topic: `egress-operator-${shop.id}` } })).status).toBe(201);
    const sent = await h.call('POST', `/event_destinations/${ownTopic.json.id}/test_event`, { token: shop.token });
    expect(sent.json).toMatchObject({ delivered: true, status_code: null });
  });

  it("should cap the partitions of a normal account's topics on the service's own cluster, on create and on update", async () => {
    const shop = await account(h, 'kafka partitions');
    const wide = await create(h, shop.token, { kafka: { topic: `${shop.id}.wide`, partitions: 33 } });
    expect([wide.status, wide.json.error_code, wide.json.details?.field]).toEqual([400, 'invalid_body', 'target.kafka.partitions']);
    expect(wide.json.msg).toContain('may have at most 32 (a limit the operator sets)');
    const narrow = await create(h, shop.token, { kafka: { topic: `${shop.id}.narrow`, partitions: 2 } });
    expect(narrow.status, JSON.stringify(narrow.json)).toBe(201);
    const widened = await h.call('PATCH', `/event_destinations/${narrow.json.id}`, { token: shop.token, body: { target: { kafka: { topic: `${shop.id}.narrow`, partitions: 1000 } } } });
    expect([widened.status, widened.json.error_code]).toEqual([400, 'invalid_body']);
    // The operator's topics are not capped (stored unchecked here, so no topic of 33 partitions is made).
    const operator = await h.call('POST', '/event_destinations', { body: { target: { kafka: { topic: `egress-operator-wide-${shop.id}`, partitions: 33 } }, verify: false } });
    expect(operator.status, operator.text).toBe(201);
  });
});

describe('file destinations per account', () => {
  it("should write a normal account's file under its own folder of the file root, and the operator's under the root", async () => {
    const shop = await account(h, 'file shop');
    const mine = await create(h, shop.token, { file: { path: 'events/out.ndjson' } });
    expect(mine.status).toBe(201);
    expect(mine.json.target.file).toEqual({ path: 'events/out.ndjson', resolved_path: join(fileRoot, shop.id, 'events/out.ndjson'), output_type: null });
    const sent = await h.call('POST', `/event_destinations/${mine.json.id}/test_event`, { token: shop.token });
    expect(sent.json).toMatchObject({ delivered: true });
    expect(JSON.parse(readFileSync(join(fileRoot, shop.id, 'events/out.ndjson'), 'utf8').trim()).event_id).toBe(sent.json.event_id);
    expect(existsSync(join(fileRoot, 'events/out.ndjson'))).toBe(false);

    const escape = await create(h, shop.token, { file: { path: `../${shop.id}x/out.ndjson` } });
    expect([escape.status, escape.json.error_code]).toEqual([400, 'invalid_file_path']);
    const operator = await create(h, undefined, { file: { path: 'operator.ndjson' } });
    expect(operator.json.target.file.resolved_path).toBe(join(fileRoot, 'operator.ndjson'));
  });

  it('should refuse file destinations to normal accounts when the service keeps them for the operator', async () => {
    const kept = await startAdmin({ env: { FILE_DESTINATION_ROOT: fileRoot, FILE_DESTINATIONS_FOR_ACCOUNTS: 'false' } });
    try {
      const shop = await account(kept, 'file refused');
      const refused = await create(kept, shop.token, { file: { path: 'x.ndjson' } });
      expect([refused.status, refused.json.error_code, refused.json.details.field]).toEqual([400, 'file_destinations_disabled', 'target.file']);
      expect((await create(kept, undefined, { file: { path: 'x.ndjson' } })).status).toBe(201);
    } finally {
      await kept.stop();
    }
  });
});

describe('test events and redirects against real receivers', () => {
  const BODY = 'internal-answer-7f3a: the metadata of this machine';
  let receiver: Server;
  let elsewhere: Server;
  let receiverPort: number;
  let elsewherePort: number;
  let elsewhereHits = 0;
  let reply: { status: number; headers?: Record<string, string> } = { status: 200 };
  beforeAll(async () => {
    elsewhere = createServer((_req, res) => {
      elsewhereHits++;
      res.end(BODY);
    });
    elsewherePort = await listenOnLoopback(elsewhere);
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
        res.end(BODY);
      });
    });
    receiverPort = await listenOnLoopback(receiver);
  });
  afterAll(async () => {
    await closeNow(receiver);
    await closeNow(elsewhere);
  });

  async function testEvent(): Promise<{ text: string; json: Body }> {
    const d = await create(h, undefined, { http: { url: `http://127.0.0.1:${receiverPort}/hook`, timeout_ms: 2000 } });
    expect(d.status).toBe(201);
    const r = await h.call('POST', `/event_destinations/${d.json.id}/test_event`);
    expect(r.status).toBe(200);
    return { text: r.text, json: r.json };
  }

  it('should report the status code and duration of a delivery, and never the body a receiver answered', async () => {
    for (const status of [200, 400, 404, 500]) {
      reply = { status };
      const { text, json } = await testEvent();
      expect([status, json.delivered, json.status_code, typeof json.duration_ms]).toEqual([status, status === 200, status, 'number']);
      expect(text).not.toContain('internal-answer');
    }
  });

  it('should not follow a redirect: the outcome is DESTINATION_REDIRECTED, and where it points sees nothing', async () => {
    reply = { status: 302, headers: { location: `http://127.0.0.1:${elsewherePort}/latest/meta-data` } };
    const { text, json } = await testEvent();
    expect(json).toMatchObject({ delivered: false, status_code: 302, error: { code: 'DESTINATION_REDIRECTED' } });
    expect(text).not.toContain('internal-answer');
    expect(text).not.toContain('meta-data');
    expect(elsewhereHits).toBe(0);
  });
});
