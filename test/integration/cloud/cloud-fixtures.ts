// Cloud resources in the emulator for the tests, and read-back of what was delivered to them: Kinesis
// GetRecords, CloudWatch Logs GetLogEvents, and the S3 objects a Firehose delivery stream writes.
import { CloudWatchLogsClient, CreateLogGroupCommand, DescribeLogStreamsCommand, GetLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { CreateDeliveryStreamCommand, FirehoseClient } from '@aws-sdk/client-firehose';
import { CreateStreamCommand, GetRecordsCommand, GetShardIteratorCommand, KinesisClient, ListShardsCommand } from '@aws-sdk/client-kinesis';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { inject } from 'vitest';
/** The cloud destination kinds these tests create resources for. */
export type CloudResourceKind = 'delivery_stream' | 'data_stream' | 'log_service';
import type { Envelope } from '../../../src/events/envelope.js';
import { MOTO_ACCOUNT, arnOf, motoClientConfig, uniqueResource } from '../../support/moto.js';
import '../../support/provided-context.js';

export function motoEndpoint(): string {
  return inject('motoEndpoint');
}

function config() {
  return { ...motoClientConfig(motoEndpoint()), requestHandler: new NodeHttpHandler() };
}

/** A delivered record as read back, with when the emulator stored it where the service says. */
export interface ReadBack {
  readonly envelope: Envelope;
  readonly arrivedAt?: number;
}

export interface CloudResource {
  readonly kind: CloudResourceKind;
  readonly name: string;
  readonly arn: string;
  /** Every record delivered so far, duplicates kept, in the order the service stores them. */
  read(): Promise<ReadBack[]>;
}

/** A Firehose delivery stream writing to its own S3 bucket; read back from the bucket's objects. */
export async function createDeliveryStream(prefix = 'ds'): Promise<CloudResource> {
  const name = uniqueResource(prefix);
  const bucket = name.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  const s3 = new S3Client({ ...config(), forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await new FirehoseClient(config()).send(
    new CreateDeliveryStreamCommand({
      DeliveryStreamName: name,
      ExtendedS3DestinationConfiguration: {
        BucketARN: `arn:aws:s3:::${bucket}`,
        RoleARN: `arn:aws:iam::${MOTO_ACCOUNT}:role/firehose-to-s3`,
        Prefix: 'events/',
        BufferingHints: { IntervalInSeconds: 60, SizeInMBs: 1 },
      },
    }),
  );
  return {
    kind: 'delivery_stream',
    name,
    arn: arnOf('delivery_stream', name),
    async read() {
      const out: ReadBack[] = [];
      let token: string | undefined;
      do {
        const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ...(token && { ContinuationToken: token }) }));
        for (const o of page.Contents ?? []) {
          const text = (await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: o.Key }))).Body?.transformToString()) ?? '';
          // The objects are newline-delimited JSON: every record ends in "\n".
          for (const line of text.split('\n')) if (line !== '') out.push({ envelope: JSON.parse(line) as Envelope, arrivedAt: o.LastModified?.getTime() });
        }
        token = page.NextContinuationToken;
      } while (token !== undefined);
      return out;
    },
  };
}

/** A Kinesis data stream; read back with GetRecords from every shard's start. */
export async function createDataStream(prefix = 'ks', shards = 2): Promise<CloudResource & { keys(): Promise<string[]> }> {
  const name = uniqueResource(prefix);
  const kinesis = new KinesisClient(config());
  await kinesis.send(new CreateStreamCommand({ StreamName: name, ShardCount: shards }));
  const records = async () => {
    const out: Array<ReadBack & { key: string }> = [];
    const list = await kinesis.send(new ListShardsCommand({ StreamName: name }));
    for (const shard of list.Shards ?? []) {
      let iterator = (await kinesis.send(new GetShardIteratorCommand({ StreamName: name, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' })))
        .ShardIterator;
      while (iterator !== undefined) {
        const page = await kinesis.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 10_000 }));
        for (const r of page.Records ?? []) {
          out.push({
            envelope: JSON.parse(Buffer.from(r.Data ?? new Uint8Array()).toString('utf8')) as Envelope,
            arrivedAt: r.ApproximateArrivalTimestamp?.getTime(),
            key: r.PartitionKey ?? '',
          });
        }
        if ((page.Records ?? []).length === 0) break;
        iterator = page.NextShardIterator;
      }
    }
    return out;
  };
  return { kind: 'data_stream', name, arn: arnOf('data_stream', name), read: records, keys: async () => (await records()).map((r) => r.key) };
}

/** A CloudWatch Logs log group; read back with GetLogEvents from every stream's head. */
export async function createLogGroup(prefix = 'lg'): Promise<CloudResource & { streams(): Promise<string[]>; timestamps(): Promise<number[]> }> {
  const name = uniqueResource(prefix);
  const logs = new CloudWatchLogsClient(config());
  await logs.send(new CreateLogGroupCommand({ logGroupName: name }));
  const streams = async () => ((await logs.send(new DescribeLogStreamsCommand({ logGroupName: name }))).logStreams ?? []).map((s) => s.logStreamName ?? '');
  const events = async () => {
    const out: Array<ReadBack & { timestamp: number }> = [];
    for (const stream of await streams()) {
      let token: string | undefined;
      while (true) {
        const page = await logs.send(
          new GetLogEventsCommand({ logGroupName: name, logStreamName: stream, startFromHead: true, limit: 10_000, ...(token && { nextToken: token }) }),
        );
        for (const e of page.events ?? []) {
          out.push({ envelope: JSON.parse(e.message ?? 'null') as Envelope, arrivedAt: e.ingestionTime, timestamp: e.timestamp ?? 0 });
        }
        // "If you have reached the end of the stream, it returns the same token you passed in."
        if (page.nextForwardToken === undefined || page.nextForwardToken === token || (page.events ?? []).length === 0) break;
        token = page.nextForwardToken;
      }
    }
    return out;
  };
  return {
    kind: 'log_service',
    name,
    arn: arnOf('log_service', name),
    read: events,
    streams,
    timestamps: async () => (await events()).map((e) => e.timestamp),
  };
}

export function createResource(kind: CloudResourceKind): Promise<CloudResource> {
  if (kind === 'delivery_stream') return createDeliveryStream();
  if (kind === 'data_stream') return createDataStream();
  return createLogGroup();
}

/** Polls `read` until at least `atLeast` distinct events arrived, or returns what there is after `ms`. */
export async function readAtLeast(resource: CloudResource, atLeast: number, ms = 10_000): Promise<ReadBack[]> {
  const deadline = Date.now() + ms;
  while (true) {
    const got = await resource.read();
    if (new Set(got.map((g) => g.envelope.event_id)).size >= atLeast || Date.now() > deadline) return got;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The target a destination stores for `resource` (opened secrets: what writers receive). */
export function targetFor(resource: CloudResource, extra: Record<string, unknown> = {}, auth?: Record<string, unknown>): Record<string, unknown> {
  const arnField = { delivery_stream: 'delivery_stream_arn', data_stream: 'stream_arn', log_service: 'log_group_arn' }[resource.kind];
  return {
    [resource.kind]: {
      auth: auth ?? { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSWRITER', cloud_secret_access_key: 'writer-secret' } },
      [arnField]: resource.arn,
      ...extra,
    },
  };
}
