// A worker killed with SIGKILL in the middle of a replay (ARCHITECTURE.md "Replay"): the other worker of
// the replay's group takes its partitions once its session times out and resumes from the group's
// committed offsets, so the replay reaches done with every event the model expects delivered, and any
// event delivered twice is the same bytes under the same id.
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeUntil, testBrokers, testClient, toolProducer, toolRecord } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { eventId, recordIdentity } from '../../model/model.js';
import { makeTraffic, toMessage } from '../pipeline/fixtures.js';
import { startAdmin, type AdminHarness } from '../admin/admin-harness.js';

const TCP = 'tcp_connection_closed.v0';
const COUNT = 4_000;
const fileRoot = mkdtempSync(join(tmpdir(), 'edge-events-replay-kill-'));
let h: AdminHarness;
const workers: ServiceProcess[] = [];

beforeAll(async () => {
  h = await startAdmin({ roles: 'api', env: { FILE_DESTINATION_ROOT: fileRoot } });
  // Each worker reads 400 records a second for its replays: the range takes about 5 s with both.
  for (let i = 0; i < 2; i++) {
    workers.push(await startService(serviceEnv(h.prefix, testBrokers(), { ROLES: 'worker', FILE_DESTINATION_ROOT: fileRoot, REPLAY_RECORDS_PER_SECOND: '400', CONSUMER_SESSION_TIMEOUT_MS: '6000' })));
  }
});
afterAll(async () => {
  for (const w of workers) await w.stop('SIGKILL').catch(() => undefined);
  await h?.stop();
});

function lines(path: string): string[] {
  const file = join(fileRoot, path);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l !== '') : [];
}

describe('a replay through a kill -9', () => {
  it('should reach done with 0 missing and duplicates only by id after one of its two workers is killed', async () => {
    const topic = h.env.TOPIC_TCP_CONNECTION_CLOSED as string;
    const at = Date.now() - 600_000;
    const producer = toolProducer(testBrokers(), 'replay-kill-test');
    try {
      await producer.send({ messages: Array.from({ length: COUNT }, (_, i) => toolRecord(topic, { ...toMessage(makeTraffic(TCP, i)), key: `k${i}`, timestamp: at + i })) });
    } finally {
      await producer.close();
    }
    const read = await consumeUntil(testClient(), { topics: [topic], until: (all) => all.length >= COUNT, timeoutMs: 30_000 });
    const dest = (await h.call('POST', '/event_destinations', { body: { target: { file: { path: 'kill/out.ndjson' } } } })).json.id as string;
    const sub = (await h.call('POST', '/event_subscriptions', { body: { destination_ids: [dest], sources: [{ type: TCP, fields: ['conn.bytes_in'] }] } })).json.id as string;
    const expected = new Set(read.map((m) => eventId(m.timestampMs, recordIdentity(topic, m.partition, m.offset), sub, dest)));
    expect(expected.size).toBe(COUNT);
    const r = await h.call('POST', `/event_subscriptions/${sub}/replays`, { body: { from: new Date(at).toISOString(), to: new Date(at + COUNT).toISOString() } });
    expect(r.status, r.text).toBe(201);

    const deadline = Date.now() + 30_000;
    while (lines('kill/out.ndjson').length < COUNT / 5 && Date.now() < deadline) await new Promise((res) => setTimeout(res, 100));
    expect(lines('kill/out.ndjson').length).toBeGreaterThanOrEqual(COUNT / 5);
    await workers[0]?.stop('SIGKILL');

    let state = '';
    const end = Date.now() + 60_000;
    while (Date.now() < end) {
      state = (await h.call('GET', `/event_subscriptions/${sub}/replays/${r.json.id}`)).json.state as string;
      if (state === 'done' || state === 'failed') break;
      await new Promise((res) => setTimeout(res, 250));
    }
    expect(state).toBe('done');
    const got = lines('kill/out.ndjson');
    const byId = new Map<string, string>();
    for (const line of got) {
      const id = (JSON.parse(line) as { event_id: string }).event_id;
      const before = byId.get(id);
      if (before !== undefined) expect(line).toBe(before);
      byId.set(id, line);
    }
    const missing = [...expected].filter((id) => !byId.has(id));
    expect(missing).toEqual([]);
    expect([...byId.keys()].filter((id) => !expected.has(id))).toEqual([]);
    process.stderr.write(`replay kill -9: ${got.length} lines, ${got.length - byId.size} duplicates, 0 missing\n`);
  });
});
