// The azure_blob writer against Azurite (the Azure Storage emulator), read back with the Azure SDK's own
// client: block blobs under the expanded prefix, gzip NDJSON and plain CSV byte for byte, shared key and
// SAS auth, the create-time check, and the writer contract through an outage of the emulator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerSASPermissions, generateBlobSASQueryParameters, StorageSharedKeyCredential } from '@azure/storage-blob';
import { azureBlobKind } from '../../../src/delivery/destinations/azure-blob/azure-blob-kind.js';
import { createWriter } from '../../../src/delivery/writer-registry.js';
import { makeEnvelope } from '../../../src/events/envelope.js';
import { OPERATOR, type AccountContext } from '../../../src/accounts/account.js';
import type { DeliveryItem } from '../../../src/delivery/contract.js';
import { AZURITE_ACCOUNT, AZURITE_KEY, Azurite } from '../../support/azurite.js';
import { AwsFaultProxy } from '../../support/aws-fault-proxy.js';
import { writerDeps } from '../../support/writer-deps.js';
import { describeWriterContract } from '../delivery/writer-contract.js';

const deps = writerDeps({ cloud: { timeoutMs: 5_000 } });
let azurite: Azurite;
let n = 0;

beforeAll(async () => {
  azurite = await Azurite.start();
});
afterAll(async () => {
  await azurite?.stop();
});

async function container(): Promise<string> {
  const name = `c${Date.now().toString(36)}-${n++}`;
  await azurite.createContainer(name);
  return name;
}

const sharedKey = { shared_key: { account_key: AZURITE_KEY } };
const target = (name: string, extra: Record<string, unknown> = {}) => ({ auth: sharedKey, account_url: azurite.accountUrl, container: name, ...extra });

function sas(name: string, permissions: string): string {
  return generateBlobSASQueryParameters(
    { containerName: name, permissions: ContainerSASPermissions.parse(permissions), expiresOn: new Date(Date.now() + 3_600_000) },
    new StorageSharedKeyCredential(AZURITE_ACCOUNT, AZURITE_KEY),
  ).toString();
}

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

const parse = (t: Record<string, unknown>, account: AccountContext = OPERATOR) => {
  const r = azureBlobKind.parse(t, 'target.azure_blob', account, deps.egress);
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join(' '));
  return r.config;
};

describe('azure_blob blobs', () => {
  it('should write gzip NDJSON block blobs, one per event type under the expanded prefix, the exact envelope lines inside', async () => {
    const name = await container();
    const writer = createWriter({ azure_blob: target(name, { prefix: 'edge/{account_id}/{event_type}/dt={date}/' }) }, deps, OPERATOR);
    expect(await writer.write([first, third, second])).toEqual({ failed: [] });
    await writer.close();
    const blobs = await azurite.blobs(name);
    expect(blobs).toHaveLength(2);
    for (const [type, lines] of [
      [TCP, [first, second]],
      [HTTP, [third]],
    ] as const) {
      const b = blobs.find((o) => o.name.includes(`/${type}/`))!;
      expect(b.name).toMatch(new RegExp(`^edge/${OPERATOR.accountId}/${type.replace('.', '\\.')}/dt=\\d{4}-\\d{2}-\\d{2}/${NAME.source}\\.ndjson\\.gz$`));
      expect(b.blobType).toBe('BlockBlob');
      expect(b.contentType).toBe('application/gzip');
      expect([...b.raw.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
      expect(b.text).toBe(lines.map((i) => `${i.payload.toString('utf8')}\n`).join(''));
    }
  });

  it('should write plain CSV with a SAS token for the container', async () => {
    const name = await container();
    const writer = createWriter({ azure_blob: { auth: { sas: { sas_token: `?${sas(name, 'cw')}` } }, account_url: azurite.accountUrl, container: name, prefix: 'csv/', output_type: 'csv', compression: 'none' } }, deps, OPERATOR);
    expect(await writer.write([first, second])).toEqual({ failed: [] });
    await writer.close();
    const [b, ...rest] = await azurite.blobs(name);
    expect(rest).toEqual([]);
    expect(b!.name).toMatch(new RegExp(`^csv/${NAME.source}\\.csv$`));
    expect(b!.contentType).toBe('text/csv; charset=utf-8');
    expect(b!.text).toBe(
      'event_id,event_type,event_timestamp,principal,object.conn.client_ip,object.conn.server_port,object.ip_policy.decision,object.traffic_policy.logs\r\n' +
        'ev_1,tcp_connection_closed.v0,2026-11-26T10:00:00.000Z,,192.0.2.7,443,"say ""hi"", then\nleave",\r\n' +
        'ev_2,tcp_connection_closed.v0,2026-11-26T10:00:01.000Z,,2001:db8::1,80,,"[{""a"":""b""}]"\r\n',
    );
  });

  it("should write a destination named by its account alone to the operator's AZURE_BLOB_ENDPOINT_URL, the account as the path", async () => {
    const name = await container();
    const operatorDeps = writerDeps({ cloud: { timeoutMs: 5_000, azureBlobEndpointUrl: `http://127.0.0.1:${azurite.port}` } });
    const writer = createWriter({ azure_blob: { auth: sharedKey, account_name: AZURITE_ACCOUNT, container: name } }, operatorDeps, OPERATOR);
    expect(await writer.write([first])).toEqual({ failed: [] });
    await writer.close();
    expect((await azurite.events(name)).map((e) => e.event_id)).toEqual(['ev_1']);
  });

  it('should report a refused key as an auth failure that parks, never a dead letter', async () => {
    const name = await container();
    const writer = createWriter({ azure_blob: target(name, { auth: { shared_key: { account_key: Buffer.alloc(64, 7).toString('base64') } } }) }, deps, OPERATOR);
    const outcome = await writer.write([first]);
    await writer.close();
    expect(outcome.failed.map((f) => [f.error.code, f.error.retryable])).toEqual([['DESTINATION_AUTH_FAILED', true]]);
    expect(await azurite.blobs(name)).toEqual([]);
  });
});

describe('azure_blob create-time check', () => {
  it('should pass for a container the key can write to, leaving one check blob named for query engines to skip', async () => {
    const name = await container();
    expect(await azureBlobKind.verify!(parse(target(name, { prefix: 'p/{event_type}/' })), deps, OPERATOR)).toEqual([]);
    expect((await azurite.blobs(name)).map((b) => b.name)).toEqual([expect.stringMatching(new RegExp(`^p/_edge_events_check/_edge-events-check-${NAME.source}$`))]);
  });

  it('should pass a SAS that may write but not read the container, on its check blob', async () => {
    const name = await container();
    expect(await azureBlobKind.verify!(parse({ auth: { sas: { sas_token: sas(name, 'cw') } }, account_url: azurite.accountUrl, container: name }), deps, OPERATOR)).toEqual([]);
    expect(await azurite.blobs(name)).toHaveLength(1);
  });

  it("should refuse a container that does not exist with the service's error on the container field", async () => {
    const name = await container();
    const problems = await azureBlobKind.verify!(parse(target(`${name}-missing`)), deps, OPERATOR);
    expect(problems.map((p) => [p.code, p.field, p.deliveryCode, p.details.error])).toEqual([['destination_check_failed', 'target.azure_blob.container', 'DESTINATION_NOT_FOUND', 'ContainerNotFound']]);
  });

  it('should refuse a wrong account key on the key field', async () => {
    const name = await container();
    const problems = await azureBlobKind.verify!(parse(target(name, { auth: { shared_key: { account_key: Buffer.alloc(64, 7).toString('base64') } } })), deps, OPERATOR);
    expect(problems.map((p) => [p.code, p.field, p.deliveryCode, p.details.error])).toEqual([['destination_check_failed', 'target.azure_blob.auth.shared_key.account_key', 'DESTINATION_AUTH_FAILED', 'AuthorizationFailure']]);
  });
});

describeWriterContract('azure_blob', async () => {
  const name = await container();
  // An outage between the writer and the emulator: an HTTP proxy that stops listening and cuts its connections.
  const p = new AwsFaultProxy(`http://127.0.0.1:${azurite.port}`);
  await p.start();
  const limits = { max_upload_records: 500, max_upload_bytes: 1024 * 1024, max_upload_interval_seconds: 1 };
  return {
    createWriter: async () => createWriter({ azure_blob: target(name, { ...limits, account_url: `${p.endpoint}/${AZURITE_ACCOUNT}` }) }, deps, OPERATOR),
    readBack: (atLeast) => azurite.eventsAtLeast(name, atLeast),
    disrupt: () => p.stop(),
    restore: () => p.start(),
    cleanup: () => p.stop(),
  };
});
