// The delivery_stream writer: Firehose PutRecordBatch, one newline-delimited JSON envelope per record,
// reporting only the entries Firehose failed so the runner retries just those.
import type { FirehoseClient } from '@aws-sdk/client-firehose';
import { DELIVERED, type DeliveryItem, type WriteOutcome, type WriterLimits } from '../../contract.js';
import { entryFailures } from '../aws/aws-errors.js';
import { awsClientConfig, type CloudDeps } from '../aws/client-config.js';
import { CloudWriter, notReady } from '../aws/cloud-writer.js';
import type { CloudTargetConfig } from '../aws/cloud-config.js';
import { firehoseSdk } from '../aws/sdk.js';

/**
 * Firehose PutRecordBatch: "Each PutRecordBatch request supports up to 500 records. Each record in the
 * request can be as large as 1,000 KB (before base64 encoding), up to a limit of 4 MB for the entire
 * request." Each record is the envelope plus a newline (the overhead byte), so the objects Firehose
 * writes to S3 are NDJSON.
 */
export const DELIVERY_STREAM_LIMITS: WriterLimits = Object.freeze({
  maxRecords: 500,
  maxBytes: 4 * 1024 * 1024,
  maxRecordBytes: 1000 * 1024 - 1,
  recordOverheadBytes: 1,
});

const NEWLINE = Buffer.from('\n');

export class DeliveryStreamWriter extends CloudWriter<FirehoseClient> {
  private readonly name: string;

  constructor(config: CloudTargetConfig, deps: CloudDeps = {}) {
    super(config, deps, { kind: 'delivery_stream', limits: DELIVERY_STREAM_LIMITS, client: async (settings) => new (await firehoseSdk()).FirehoseClient(await awsClientConfig(settings)) });
    this.name = config.resource.name;
  }

  protected async writeBatch(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    const what = `Firehose PutRecordBatch to ${this.name}`;
    const out = await this.call(what, async (abortSignal) => {
      const { PutRecordBatchCommand } = await firehoseSdk();
      return (await this.client.get()).send(
        new PutRecordBatchCommand({ DeliveryStreamName: this.name, Records: batch.map((i) => ({ Data: Buffer.concat([i.payload, NEWLINE]) })) }),
        { abortSignal },
      );
    });
    if ((out.FailedPutCount ?? 0) === 0) return DELIVERED;
    // "RequestResponses ... The results array. For each record, the index of the response element is the
    // same as the index used in the request array." An entry with an ErrorCode was not delivered.
    return entryFailures(what, batch, out.RequestResponses);
  }

  protected async describe(abortSignal: AbortSignal): Promise<void> {
    const { DescribeDeliveryStreamCommand } = await firehoseSdk();
    const out = await (await this.client.get()).send(new DescribeDeliveryStreamCommand({ DeliveryStreamName: this.name }), { abortSignal });
    const status = out.DeliveryStreamDescription?.DeliveryStreamStatus;
    if (status !== 'ACTIVE') throw notReady(`Delivery stream ${this.name}`, status);
  }
}
