// The gcs writer against fake-gcs-server (a Cloud Storage emulator) behind a gate that takes only tokens
// the contract token receiver issued (the emulator checks none), read back with @google-cloud/storage:
// media uploads under the expanded prefix, gzip NDJSON and plain CSV byte for byte, the JWT-bearer token
// exchange and its cache, the create-time check, and the writer contract through an outage.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gcsKind } from '../../../src/delivery/destinations/gcs/gcs-kind.js';
import { createWriter } from '../../../src/delivery/writer-registry.js';
import { makeEnvelope } from '../../../src/events/envelope.js';
import { OPERATOR } from '../../../src/accounts/account.js';
import type { DeliveryItem } from '../../../src/delivery/contract.js';
import { FakeGcs } from '../../support/fake-gcs.js';
import { BearerGate, GoogleTokenReceiver, serviceAccountKey, type TestServiceAccount } from '../../support/google-token-receiver.js';
import { writerDeps } from '../../support/writer-deps.js';
import { describeWriterContract } from '../delivery/writer-contract.js';

let gcs: FakeGcs;
let tokens: GoogleTokenReceiver;
let gate: BearerGate;
let writerAccount: TestServiceAccount;
let n = 0;

beforeAll(async () => {
  gcs = await FakeGcs.start();
  tokens = new GoogleTokenReceiver();
  await tokens.start();
  gate = new BearerGate(tokens, gcs.url);
  await gate.start();
  writerAccount = tokens.addAccount('writer@edge-events-test.iam.gserviceaccount.com');
});
afterAll(async () => {
  await gate?.stop();
  await tokens?.stop();
  await gcs?.stop();
});

const deps = () => writerDeps({ cloud: { timeoutMs: 5_000, gcsApiUrl: gate.url, gcsTokenUrl: tokens.url } });

async function bucket(): Promise<string> {
  const name = `b${Date.now().toString(36)}-${n++}`;
  await gcs.createBucket(name);
  return name;
}

const target = (name: string, extra: Record<string, unknown> = {}) => ({ bucket: name, service_account_key: writerAccount.keyJson, ...extra });

function item(eventType: string, object: Record<string, unknown>, time: string, eventId: string): DeliveryItem {
  const envelope = makeEnvelope(eventType, object, { timestamp: new Date(time), eventId });
  return { eventId, payload: Buffer.from(JSON.stringify(envelope)), envelope };
}

const TCP = 'tcp_connection_closed.v0';
const HTTP = 'http_request_complete.v0';
const first = item(TCP, { conn: { client_ip: '192.0.2.7', server_port: 443 }, ip_policy: { decision: 'say "hi", then\nleave' } }, '2026-11-26T10:00:00.000Z', 'ev_1');
const second = item(TCP, { conn: { client_ip: '2001:db8::1', server_port: 80 }, traffic_policy: { logs: [{ a: 'b' }] } }, '2026-11-26T10:00:01.000Z', 'ev_2');
const third = item(HTTP, { http: { request: { method: 'GET' } } }, '2026-11-26T10:00:02.000Z', 'ev_3');
const NAME = /\d{8}T\d{9}Z-[0-9a-f]{16}/;

const parse = (t: Record<string, unknown>) => {
  const r = gcsKind.parse(t, 'target.gcs', OPERATOR, deps().egress);
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join(' '));
  return r.config;
};

describe('gcs objects', () => {
  it('should upload gzip NDJSON objects, one per event type under the expanded prefix, with one token exchange for several uploads', async () => {
    const name = await bucket();
    const before = tokens.exchanges.length;
    const writer = createWriter({ gcs: target(name, { prefix: 'edge/{account_id}/{event_type}/dt={date}/' }) }, deps(), OPERATOR);
    expect(await writer.write([first, third, second])).toEqual({ failed: [] });
    expect(await writer.write([first])).toEqual({ failed: [] });
    await writer.close();
    // The token is cached: one signed JWT exchanged, for the storage scope, by the account of the key.
    expect(tokens.exchanges.slice(before)).toEqual([{ iss: writerAccount.email, scope: 'https://www.googleapis.com/auth/devstorage.read_write', granted: true }]);
    const objects = await gcs.objects(name);
    expect(objects).toHaveLength(3);
    const ofHttp = objects.filter((o) => o.name.includes(`/${HTTP}/`));
    expect(ofHttp.map((o) => o.text)).toEqual([`${third.payload.toString('utf8')}\n`]);
    for (const o of objects) {
      expect(o.name).toMatch(new RegExp(`^edge/${OPERATOR.accountId}/(${TCP}|${HTTP})/dt=\\d{4}-\\d{2}-\\d{2}/${NAME.source}\\.ndjson\\.gz$`.replaceAll('.v0', '\\.v0')));
      expect(o.contentType).toBe('application/gzip');
      expect([...o.raw.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
    }
    expect(objects.filter((o) => o.name.includes(`/${TCP}/`)).map((o) => o.text).sort()).toEqual([`${first.payload.toString('utf8')}\n`, `${first.payload.toString('utf8')}\n${second.payload.toString('utf8')}\n`].sort());
  });

  it('should upload plain CSV', async () => {
    const name = await bucket();
    const writer = createWriter({ gcs: target(name, { prefix: 'csv/', output_type: 'csv', compression: 'none' }) }, deps(), OPERATOR);
    expect(await writer.write([first, second])).toEqual({ failed: [] });
    await writer.close();
    const [o, ...rest] = await gcs.objects(name);
    expect(rest).toEqual([]);
    expect(o!.name).toMatch(new RegExp(`^csv/${NAME.source}\\.csv$`));
    expect(o!.contentType).toBe('text/csv; charset=utf-8');
    expect(o!.text).toBe(
      'event_id,event_type,event_timestamp,principal,object.conn.client_ip,object.conn.server_port,object.ip_policy.decision,object.traffic_policy.logs\r\n' +
        'ev_1,tcp_connection_closed.v0,2026-11-26T10:00:00.000Z,,192.0.2.7,443,"say ""hi"", then\nleave",\r\n' +
        'ev_2,tcp_connection_closed.v0,2026-11-26T10:00:01.000Z,,2001:db8::1,80,,"[{""a"":""b""}]"\r\n',
    );
  });
});

describe('gcs create-time check', () => {
  it('should pass for a bucket the key can write to, leaving one check object named for query engines to skip', async () => {
    const name = await bucket();
    expect(await gcsKind.verify!(parse(target(name, { prefix: 'p/{event_type}/' })), deps(), OPERATOR)).toEqual([]);
    expect((await gcs.objects(name)).map((o) => o.name)).toEqual([expect.stringMatching(new RegExp(`^p/_edge_events_check/_edge-events-check-${NAME.source}$`))]);
  });

  it('should refuse a key the token endpoint does not take, on the key field, with its reason', async () => {
    const name = await bucket();
    // A well-formed key of an account the endpoint does not know: its JWT's signature cannot be verified.
    const stranger = serviceAccountKey('stranger@edge-events-test.iam.gserviceaccount.com').account;
    const problems = await gcsKind.verify!(parse(target(name, { service_account_key: stranger.keyJson })), deps(), OPERATOR);
    expect(problems.map((p) => [p.code, p.field, p.deliveryCode, p.details.error, p.details.reason])).toEqual([['destination_check_failed', 'target.gcs.service_account_key', 'DESTINATION_AUTH_FAILED', 'invalid_grant', 'Invalid JWT Signature.']]);
    expect(await gcs.objects(name)).toEqual([]);
  });

  it('should refuse a bucket that does not exist on the bucket field', async () => {
    const name = await bucket();
    const problems = await gcsKind.verify!(parse(target(`${name}-missing`)), deps(), OPERATOR);
    expect(problems.map((p) => [p.code, p.field, p.deliveryCode])).toEqual([['destination_check_failed', 'target.gcs.bucket', 'DESTINATION_NOT_FOUND']]);
  });
});

describeWriterContract('gcs', async () => {
  const name = await bucket();
  const limits = { max_upload_records: 500, max_upload_bytes: 1024 * 1024, max_upload_interval_seconds: 1 };
  return {
    createWriter: async () => createWriter({ gcs: target(name, limits) }, deps(), OPERATOR),
    readBack: (atLeast) => gcs.eventsAtLeast(name, atLeast),
    disrupt: () => gate.stop(),
    restore: () => gate.start(),
    cleanup: () => gate.start().catch(() => undefined),
  };
});
