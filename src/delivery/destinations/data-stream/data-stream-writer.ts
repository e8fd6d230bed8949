// The data_stream writer: Kinesis PutRecords keyed by the event id (or a configured envelope field),
// reporting only the entries Kinesis failed so the runner retries just those.
import { createHash } from 'node:crypto';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { DELIVERED, type DeliveryItem, type WriteOutcome, type WriterLimits } from '../../contract.js';
import { compileKeyPath, type KeyOf } from '../../key-path.js';
import { entryFailures } from '../aws/aws-errors.js';
import { awsClientConfig, type CloudDeps } from '../aws/client-config.js';
import { CloudWriter, notReady } from '../aws/cloud-writer.js';
import type { CloudTargetConfig } from '../aws/cloud-config.js';
import { kinesisSdk } from '../aws/sdk.js';

/** Kinesis PartitionKey: "Length Constraints: Minimum length of 1. Maximum length of 256." */
export const MAX_PARTITION_KEY_BYTES = 256;

/**
 * Kinesis PutRecords: "Each PutRecords request can support up to 500 records. Each record in the request
 * can be as large as 1 MiB, up to a limit of 5 MiB for the entire request, including partition keys."
 * A partition key is at most 256 bytes here (see partitionKey), counted as each record's overhead.
 */
export const DATA_STREAM_LIMITS: WriterLimits = Object.freeze({
  maxRecords: 500,
  maxBytes: 5 * 1024 * 1024,
  maxRecordBytes: 1024 * 1024 - MAX_PARTITION_KEY_BYTES,
  recordOverheadBytes: MAX_PARTITION_KEY_BYTES,
});

/**
 * The key Kinesis hashes to pick a shard. An empty value falls back to the event id; a value over 256
 * bytes is replaced by its SHA-256 (hex), so one key still always lands on one shard.
 */
export function partitionKey(keyOf: KeyOf, item: DeliveryItem): string {
  const key = keyOf(item);
  if (key === '') return item.eventId;
  if (Buffer.byteLength(key) <= MAX_PARTITION_KEY_BYTES) return key;
  return createHash('sha256').update(key).digest('hex');
}

export class DataStreamWriter extends CloudWriter<KinesisClient> {
  private readonly keyOf: KeyOf;

  constructor(config: CloudTargetConfig, deps: CloudDeps = {}) {
    super(config, deps, { kind: 'data_stream', limits: DATA_STREAM_LIMITS, client: async (settings) => new (await kinesisSdk()).KinesisClient(await awsClientConfig(settings)) });
    this.keyOf = compileKeyPath(config.options.partition_key);
  }

  protected async writeBatch(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    const stream = this.config.resource.name;
    const what = `Kinesis PutRecords to ${stream}`;
    const records = batch.map((i) => ({ Data: i.payload, PartitionKey: partitionKey(this.keyOf, i) }));
    const out = await this.call(what, async (abortSignal) => {
      const { PutRecordsCommand } = await kinesisSdk();
      return (await this.client.get()).send(new PutRecordsCommand({ StreamARN: this.config.resource.arn, Records: records }), { abortSignal });
    });
    if ((out.FailedRecordCount ?? 0) === 0) return DELIVERED;
    // "An array of successfully and unsuccessfully processed record results. A record that is successfully
    // added to a stream includes SequenceNumber and ShardId in the result. A record that fails to be added
    // to a stream includes ErrorCode and ErrorMessage in the result", in request order.
    return entryFailures(what, batch, out.Records);
  }

  protected async describe(abortSignal: AbortSignal): Promise<void> {
    const { DescribeStreamSummaryCommand } = await kinesisSdk();
    const out = await (await this.client.get()).send(new DescribeStreamSummaryCommand({ StreamARN: this.config.resource.arn }), { abortSignal });
    const status = out.StreamDescriptionSummary?.StreamStatus;
    // "UPDATING - ... Read and write operations continue to work while the stream is in the UPDATING state."
    if (status !== 'ACTIVE' && status !== 'UPDATING') throw notReady(`Data stream ${this.config.resource.name}`, status);
  }
}
