// What each cloud writer promises beyond the shared contract, checked by reading back from the emulator:
// both auth kinds through the emulator's STS, Kinesis partition keys, Firehose NDJSON, CloudWatch Logs
// order, 24-hour split, refused events, log streams and its count limit, and missing resources.
import { CloudWatchLogsClient, DeleteLogStreamCommand } from '@aws-sdk/client-cloudwatch-logs';
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryItem } from '../../../src/delivery/contract.js';
import { DestinationRunner } from '../../../src/delivery/destination-runner.js';
import type { CloudWriter } from '../../../src/delivery/destinations/aws/cloud-writer.js';
import type { LogServiceWriter } from '../../../src/delivery/destinations/log-service/log-service-writer.js';
import type { WriterDeps } from '../../../src/delivery/destination-kind.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import { createWriter } from '../../../src/delivery/writer-registry.js';
import { makeEnvelope } from '../../../src/events/envelope.js';
import { AwsFaultProxy } from '../../support/aws-fault-proxy.js';
import { MOTO_ACCOUNT, arnOf, motoClientConfig } from '../../support/moto.js';
import { RecordingDeadLetters, SpyWriter, testItems } from '../delivery/writer-contract.js';
import { createDataStream, createDeliveryStream, createLogGroup, motoEndpoint, readAtLeast, targetFor } from './cloud-fixtures.js';
import { OPERATOR, accountContext } from '../../../src/accounts/account.js';
import { writerDeps } from '../../support/writer-deps.js';

function deps(cloud: WriterDeps['cloud'] = {}): WriterDeps {
  return writerDeps({ cloud: { timeoutMs: 5_000, ...cloud } });
}

let proxy: AwsFaultProxy | undefined;
afterEach(async () => {
  await proxy?.stop();
  proxy = undefined;
});

async function startProxy(): Promise<AwsFaultProxy> {
  proxy = new AwsFaultProxy(motoEndpoint());
  await proxy.start();
  return proxy;
}

function itemAt(time: Date, n = 0): DeliveryItem {
  const envelope = makeEnvelope('tcp_connection_closed.v0', { conn: { bytes_in: n } }, { timestamp: time });
  return { eventId: envelope.event_id, payload: Buffer.from(JSON.stringify(envelope)), envelope };
}

describe('cloud writer auth', () => {
  it('should sign with the configured access key pair', async () => {
    const stream = await createDataStream('auth-creds');
    const p = await startProxy();
    const writer = createWriter(targetFor(stream, { endpoint: p.endpoint }), deps(), OPERATOR);
    await writer.write(testItems(3));
    await writer.close();
    expect(new Set(p.accessKeys.filter((k) => k.operation === 'PutRecords').map((k) => k.accessKeyId))).toEqual(new Set(['AKIAEDGEEVENTSWRITER']));
    expect(await readAtLeast(stream, 3)).toHaveLength(3);
  });

  it('should assume the role through STS with the service identity, cache its credentials and sign with them', async () => {
    const stream = await createDataStream('auth-role');
    const p = await startProxy();
    const roleArn = `arn:aws:iam::${MOTO_ACCOUNT}:role/edge-events-delivery`;
    const base = { accessKeyId: 'AKIAEDGEEVENTSBASE01', secretAccessKey: 'base-secret' };
    // STS and the data plane both go through the proxy: the service-wide endpoint, no per-destination one.
    const writer = createWriter(
      targetFor(stream, {}, { role: { role_arn: roleArn } }),
      deps({ endpoint: p.endpoint, baseCredentials: () => Promise.resolve(base) }),
      OPERATOR,
    ) as CloudWriter;
    await writer.connect();
    for (let i = 0; i < 3; i++) await writer.write(testItems(2));
    const temp = await writer.assumedRole!.provide();
    await writer.close();

    const sts = p.accessKeys.filter((k) => k.operation === '');
    const puts = p.accessKeys.filter((k) => k.operation === 'PutRecords');
    expect(sts.map((k) => k.accessKeyId)).toEqual([base.accessKeyId]);
    // The confused deputy: STS is asked for the role on behalf of the destination's account, by its id.
    expect(p.queryCalls.map((c) => [c.Action, c.RoleArn, c.ExternalId])).toEqual([['AssumeRole', roleArn, OPERATOR.accountId]]);
    expect(writer.assumedRole!.assumeCalls).toBe(1);
    expect(temp.accessKeyId).toMatch(/^ASIA/);
    expect(temp.sessionToken).toBeTruthy();
    expect(temp.expiration!.getTime()).toBeGreaterThan(Date.now() + 10 * 60_000);
    expect(new Set(puts.map((k) => k.accessKeyId))).toEqual(new Set([temp.accessKeyId]));
    // The emulator's STS knows the session by those credentials.
    const { STSClient, GetCallerIdentityCommand } = await import('@aws-sdk/client-sts');
    const who = await new STSClient({ ...motoClientConfig(motoEndpoint()), credentials: temp }).send(new GetCallerIdentityCommand({}));
    expect(who.Arn).toMatch(/^arn:aws:sts::123456789012:assumed-role\/edge-events-delivery\/edge-events-/);
    expect(await readAtLeast(stream, 6)).toHaveLength(6);
  });

  it("should pass a normal account's id as the ExternalId of AssumeRole", async () => {
    const stream = await createDataStream('auth-external-id');
    const p = await startProxy();
    const roleArn = `arn:aws:iam::${MOTO_ACCOUNT}:role/edge-events-customer`;
    const account = accountContext('acct_01kw0egress0000000000000001');
    const base = { accessKeyId: 'AKIAEDGEEVENTSBASE01', secretAccessKey: 'base-secret' };
    const writer = createWriter(targetFor(stream, {}, { role: { role_arn: roleArn } }), deps({ endpoint: p.endpoint, baseCredentials: () => Promise.resolve(base) }), account);
    await writer.write(testItems(1));
    await writer.close();
    expect(p.queryCalls.filter((c) => c.Action === 'AssumeRole').map((c) => c.ExternalId)).toEqual([account.accountId]);
    expect(await readAtLeast(stream, 1)).toHaveLength(1);
  });
});

describe('data_stream writer', () => {
  it('should key records by event id, or by a configured envelope field', async () => {
    const byId = await createDataStream('key-id');
    const writer = createWriter(targetFor(byId, { endpoint: motoEndpoint() }), deps(), OPERATOR);
    const items = testItems(20);
    await writer.write(items);
    await writer.close();
    await readAtLeast(byId, 20);
    expect((await byId.keys()).sort()).toEqual(items.map((i) => i.eventId).sort());

    const byIp = await createDataStream('key-ip');
    const keyed = createWriter(targetFor(byIp, { endpoint: motoEndpoint(), partition_key: 'object.conn.client_ip' }), deps(), OPERATOR);
    await keyed.write(testItems(5));
    await keyed.close();
    await readAtLeast(byIp, 5);
    expect(await byIp.keys()).toEqual(Array(5).fill('192.0.2.7'));
  });
});

describe('delivery_stream writer', () => {
  it('should write newline-delimited JSON, one envelope per line, in the order given', async () => {
    const ds = await createDeliveryStream('ndjson');
    const writer = createWriter(targetFor(ds, { endpoint: motoEndpoint() }), deps(), OPERATOR);
    const items = testItems(7);
    await writer.write(items);
    await writer.close();
    const got = await readAtLeast(ds, 7);
    expect(got.map((g) => g.envelope.event_id)).toEqual(items.map((i) => i.eventId));
  });
});

describe('log_service writer', () => {
  it('should write events in chronological order in its own stream, splitting a batch that spans more than 24 hours', async () => {
    const group = await createLogGroup('order');
    const p = await startProxy();
    const writer = createWriter(targetFor(group, { endpoint: p.endpoint }), deps({ logStreamName: 'worker-a' }), OPERATOR);
    const now = Date.now();
    const hours = [1, 30, 10, 26, 2];
    const items = hours.map((h, n) => itemAt(new Date(now - h * 3_600_000), n));
    expect(await writer.write(items)).toEqual({ failed: [] });
    await writer.close();
    expect(p.accessKeys.filter((k) => k.operation === 'PutLogEvents')).toHaveLength(2);
    expect(await group.streams()).toEqual(['worker-a']);
    const times = await group.timestamps();
    expect(times).toEqual(hours.map((h) => now - h * 3_600_000).sort((a, b) => a - b));
  });

  it('should dead-letter events CloudWatch refuses as too old or too new, with the reason, and deliver the rest', async () => {
    const group = await createLogGroup('refused');
    const writer = createWriter(targetFor(group, { endpoint: motoEndpoint() }), deps(), OPERATOR);
    const old = itemAt(new Date(Date.now() - 20 * 86_400_000));
    const ok = [itemAt(new Date(Date.now() - 60_000)), itemAt(new Date())];
    const future = itemAt(new Date(Date.now() + 3 * 3_600_000));
    const outcome = await writer.write([future, ok[0]!, old, ok[1]!]);
    await writer.close();
    expect(outcome.failed.map((f) => [f.item, f.error.code, f.error.retryable])).toEqual([
      [old, 'DESTINATION_REJECTED', false],
      [future, 'DESTINATION_REJECTED', false],
    ]);
    expect(outcome.failed[0]!.error.message).toMatch(/14 days/);
    expect(outcome.failed[1]!.error.message).toMatch(/future/);
    const got = await readAtLeast(group, 2);
    expect(got.map((g) => g.envelope.event_id).sort()).toEqual(ok.map((i) => i.eventId).sort());
  });

  it('should create its log stream again when it is deleted', async () => {
    const group = await createLogGroup('recreate');
    const writer = createWriter(targetFor(group, { endpoint: motoEndpoint() }), deps({ logStreamName: 'worker-b' }), OPERATOR) as LogServiceWriter;
    await writer.write(testItems(2));
    await new CloudWatchLogsClient(motoClientConfig(motoEndpoint())).send(new DeleteLogStreamCommand({ logGroupName: group.name, logStreamName: 'worker-b' }));
    expect(await writer.write(testItems(3))).toEqual({ failed: [] });
    await writer.close();
    expect(await readAtLeast(group, 3)).toHaveLength(3);
  });

  it('should cut batches at 10,000 events when they are small enough for the count to bind', async () => {
    const group = await createLogGroup('count');
    const spy = new SpyWriter(createWriter(targetFor(group, { endpoint: motoEndpoint() }), deps(), OPERATOR));
    const runner = new DestinationRunner({
      destinationId: 'ed_log_count',
      writer: spy,
      budget: new InFlightBudget(),
      deadLetter: new RecordingDeadLetters(),
      onSettled: () => undefined,
      batching: { maxRecords: 100_000, maxBytes: 64 * 1024 * 1024, lingerMs: 20 },
    });
    runner.start();
    // Tiny payloads (not envelopes): 10,001 events of 30 bytes fit the byte limit, so the count binds.
    const items: DeliveryItem[] = Array.from({ length: 10_001 }, (_, i) => ({ eventId: `e${i}`, payload: Buffer.from(`{"n":"${String(i).padStart(18, '0')}"}`) }));
    for (const i of items) runner.enqueue(i);
    await runner.flush();
    await runner.close();
    expect(spy.batches.map((b) => b.records)).toEqual([10_000, 1]);
    expect(spy.failures).toEqual([]);
    const got = await group.read();
    expect(new Set(got.map((g) => (g.envelope as unknown as { n: string }).n)).size).toBe(10_001);
  });
});

describe('missing resources', () => {
  it('should fail the health check and report writes as retryable DESTINATION_NOT_FOUND, naming the AWS error', async () => {
    for (const [kind, name] of [['data_stream', 'nope-ks'], ['delivery_stream', 'nope-ds'], ['log_service', 'nope-lg']] as const) {
      const resource = { kind, name, arn: arnOf(kind, name), read: async () => [] };
      const writer = createWriter(targetFor(resource, { endpoint: motoEndpoint() }), deps(), OPERATOR);
      await expect(writer.healthcheck()).rejects.toMatchObject({ code: 'DESTINATION_UNHEALTHY' });
      const err = await writer.write(testItems(1)).then(
        (o) => o.failed[0]?.error,
        (e: unknown) => e,
      );
      expect(err).toMatchObject({ code: 'DESTINATION_NOT_FOUND', retryable: true });
      expect((err as Error).message).toMatch(/ResourceNotFoundException/);
      await writer.close();
    }
  });

  it('should report an unreachable endpoint as retryable DESTINATION_UNREACHABLE', async () => {
    const stream = await createDataStream('unreachable');
    const p = await startProxy();
    await p.stop();
    const writer = createWriter(targetFor(stream, { endpoint: p.endpoint }), deps(), OPERATOR);
    await expect(writer.write(testItems(1))).rejects.toMatchObject({ code: 'DESTINATION_UNREACHABLE', retryable: true });
    await expect(writer.healthcheck()).rejects.toMatchObject({ code: 'DESTINATION_UNHEALTHY' });
    await writer.close();
  });
});
