// Audit events to destinations of several timestamp formats, through the real service on the real broker:
// every event reaches every destination, and the audit topic's committed offsets reach its end (issue 22,
// finding 1: a delivery in a non-default format once settled nothing, and its partition stalled for good).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { withAdmin } from '../../../src/kafka/seam.js';
import { testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { request } from '../admin/admin-harness.js';
import { fileDestinationLines } from '../../support/file-destination.js';

interface Delivered {
  event_type: string;
  event_timestamp: string | number;
  object: { id: string; description?: string };
}

const BOOTSTRAP = `eek_auditfmt${Date.now().toString(36)}bootstrap0token`;
const prefix = uniqueName('audit-formats');
const fileRoot = mkdtempSync(join(tmpdir(), 'edge-events-audit-formats-'));
const env = serviceEnv(prefix, testBrokers(), { ROLES: 'api,worker', FILE_DESTINATION_ROOT: fileRoot, API_BOOTSTRAP_TOKEN: BOOTSTRAP });
let service: ServiceProcess;

beforeAll(async () => {
  service = await startService(env);
});

afterAll(async () => {
  await service?.stop('SIGKILL');
  rmSync(fileRoot, { recursive: true, force: true });
});

function delivered(name: string): Delivered[] {
  return fileDestinationLines<Delivered>(join(fileRoot, 'formats'), `${name}.ndjson`);
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function call(method: string, path: string, body: unknown, expected: number): Promise<any> {
  const r = await request(service.url, method, path, { token: BOOTSTRAP, body });
  expect(r.status, `${method} ${path}: ${r.text}`).toBe(expected);
  return r.json;
}

it('should deliver every audit event to destinations of every timestamp format and commit the audit topic to its end', async () => {
  const formats = { rfc: undefined, unix: 'unix', unixMs: 'unixmilli' } as const;
  const ids: string[] = [];
  for (const [name, format] of Object.entries(formats)) {
    const d = await call('POST', '/event_destinations', { target: { file: { path: `formats/${name}.ndjson` } }, ...(format !== undefined && { timestamp_format: format }) }, 201);
    ids.push(d.id as string);
  }
  const types = ['ip_policy_created.v0', 'ip_policy_deleted.v0'];
  await call('POST', '/event_subscriptions', { description: 'policies', sources: types.map((type) => ({ type })), destination_ids: ids }, 201);

  // The worker applies the subscription asynchronously: make probe policies until one arrives everywhere.
  let probes = 0;
  await waitFor(
    'a probe event at every destination',
    () => {
      if (Object.keys(formats).every((n) => delivered(n).some((e) => e.object.description?.startsWith('probe') === true))) return true;
      if (probes++ % 20 === 0) void call('POST', '/ip_policies', { description: `probe ${probes}` }, 201);
      return false;
    },
    90_000,
  );

  const made: string[] = [];
  for (let i = 0; i < 6; i++) made.push((await call('POST', '/ip_policies', { description: `policy ${i}` }, 201)).id as string);
  for (const id of made) await call('DELETE', `/ip_policies/${id}`, undefined, 204);

  const arrived = (name: string): number => delivered(name).filter((e) => made.includes(e.object.id) && types.includes(e.event_type)).length;
  await waitFor('12 events at every destination', () => Object.keys(formats).every((n) => arrived(n) === 12), 60_000).catch(() => undefined);
  expect(Object.fromEntries(Object.keys(formats).map((n) => [n, arrived(n)]))).toEqual({ rfc: 12, unix: 12, unixMs: 12 });
  expect(delivered('unix').every((e) => typeof e.event_timestamp === 'number')).toBe(true);

  // Every delivery settled: the group commits every partition of the audit topic to its end. The admin API
  // writes audit events in transactions, so a partition ends with a commit marker no consumer reads: its
  // last record is at end - 2 at most, and a committed offset of end - 1 is past it.
  const kafka = testClient('audit-formats-check');
  const progress = async (): Promise<Array<{ partition: number; committed: number; end: number }>> =>
    withAdmin(kafka, async (admin) => {
      const ends = await admin.partitionOffsets(env.TOPIC_AUDIT as string);
      const committed = await admin.committedOffsets(env.CONSUMER_GROUP as string, env.TOPIC_AUDIT as string);
      return ends.map((p) => ({ partition: p.partition, committed: committed.get(p.partition) ?? -1, end: p.high }));
    });
  await waitFor('the audit topic committed to its end', async () => (await progress()).every((p) => p.committed >= p.end - 1), 30_000).catch(() => undefined);
  expect((await progress()).filter((p) => p.committed < p.end - 1)).toEqual([]);
});
