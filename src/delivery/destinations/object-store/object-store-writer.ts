// The object_store writer: each batch becomes one object per expanded key prefix (../objects/), each an S3
// PutObject. write() resolves only once the object is stored, so a record's offset is committed
// only behind the object holding its events (at least once: a batch written again after a crash or a
// failed answer is a second object under a new name, its events keeping their ids).
import type { S3Client } from '@aws-sdk/client-s3';
import type { DeliveryItem, WriteOutcome } from '../../contract.js';
import { awsClientConfig, type ClientSettings, type CloudDeps } from '../aws/client-config.js';
import type { CloudTargetConfig } from '../aws/cloud-config.js';
import { CloudWriter } from '../aws/cloud-writer.js';
import { s3Sdk } from '../aws/sdk.js';
import { ObjectBatches, uploadLimits } from '../objects/object-batches.js';
import type { ObjectStoreConfig } from './config.js';

/** The SDK's resource the cloud writers share their credentials and client settings through: the bucket in its region. */
function asCloudTarget(config: ObjectStoreConfig): CloudTargetConfig {
  return {
    resource: { arn: `arn:aws:s3:::${config.bucket}`, partition: 'aws', region: config.region, account: '', name: config.bucket },
    auth: config.auth,
    ...(config.endpoint !== undefined && { endpoint: config.endpoint }),
    ...(config.customerEndpoint === true && { customerEndpoint: true as const }),
    options: {},
  };
}

/**
 * The cloud folder's client settings, plus path-style addressing for an endpoint (S3-compatible stores and
 * emulators serve /<bucket>/<key>), and checksums only where S3 requires them, which those stores may not
 * compute as AWS does.
 */
async function s3Client(settings: ClientSettings): Promise<S3Client> {
  const { S3Client } = await s3Sdk();
  return new S3Client({
    ...(await awsClientConfig(settings)),
    forcePathStyle: settings.endpoint !== undefined,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

export class ObjectStoreWriter extends CloudWriter<S3Client> {
  private readonly store: ObjectStoreConfig;
  /** The objects cut from each batch (../objects/), each written by put(). */
  readonly objects: ObjectBatches;

  constructor(config: ObjectStoreConfig, deps: CloudDeps = {}) {
    super(asCloudTarget(config), deps, { kind: 'object_store', limits: uploadLimits(config), client: s3Client });
    this.store = config;
    this.objects = new ObjectBatches(config, (key, body, contentType) => this.put(key, body, contentType));
  }

  protected writeBatch(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    return this.objects.write(batch);
  }

  /** Writes one object with the destination's own auth; rejects with the classified error. */
  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    await this.call(`S3 PutObject to ${this.store.bucket}`, async (abortSignal) => {
      const { PutObjectCommand } = await s3Sdk();
      await (await this.client.get()).send(new PutObjectCommand({ Bucket: this.store.bucket, Key: key, Body: body, ContentType: contentType }), { abortSignal });
    });
  }

  protected async describe(abortSignal: AbortSignal): Promise<void> {
    const { HeadBucketCommand } = await s3Sdk();
    try {
      await (await this.client.get()).send(new HeadBucketCommand({ Bucket: this.store.bucket }), { abortSignal });
    } catch (err) {
      // A HEAD's 404 has no body, so the SDK can only call it NotFound: UnknownError. It means the bucket is not there.
      const meta = (err as { $metadata?: { httpStatusCode?: number } }).$metadata;
      if (meta?.httpStatusCode === 404) throw Object.assign(new Error(`The bucket ${this.store.bucket} does not exist.`), { name: 'NoSuchBucket', $metadata: meta });
      throw err;
    }
  }
}
