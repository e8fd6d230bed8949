// The data_stream destinations of the model on the AWS emulator (moto): a Kinesis stream per destination,
// read back from every shard's start.
import { CreateStreamCommand, GetRecordsCommand, GetShardIteratorCommand, KinesisClient, ListShardsCommand } from '@aws-sdk/client-kinesis';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { arnOf, motoClientConfig } from '../support/moto.js';

export class Streams {
  private readonly kinesis: KinesisClient;

  constructor(readonly endpoint: string) {
    this.kinesis = new KinesisClient({ ...motoClientConfig(endpoint), requestHandler: new NodeHttpHandler() });
  }

  /** A new stream and the target of a destination writing to it, with an access key pair (moto takes any). */
  async create(name: string): Promise<Record<string, unknown>> {
    await this.kinesis.send(new CreateStreamCommand({ StreamName: name, ShardCount: 1 }));
    return { data_stream: { auth: { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSMODEL1', cloud_secret_access_key: 'model-secret' } }, stream_arn: arnOf('data_stream', name) } };
  }

  /** Every record's text so far, in order. */
  async read(name: string): Promise<string[]> {
    const out: string[] = [];
    const shards = await this.kinesis.send(new ListShardsCommand({ StreamName: name }));
    for (const shard of shards.Shards ?? []) {
      let iterator = (await this.kinesis.send(new GetShardIteratorCommand({ StreamName: name, ShardId: shard.ShardId, ShardIteratorType: 'TRIM_HORIZON' }))).ShardIterator;
      while (iterator !== undefined) {
        const page = await this.kinesis.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 10_000 }));
        for (const r of page.Records ?? []) out.push(Buffer.from(r.Data ?? new Uint8Array()).toString('utf8'));
        if ((page.Records ?? []).length === 0) break;
        iterator = page.NextShardIterator;
      }
    }
    return out;
  }

  close(): void {
    this.kinesis.destroy();
  }
}
