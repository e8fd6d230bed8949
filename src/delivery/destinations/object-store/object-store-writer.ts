// The object_store writer: each batch becomes one object per expanded key prefix (S3 PutObject), NDJSON or CSV,
// gzipped or plain. write() resolves only once the object is stored, so a record's offset is committed
// only behind the object holding its events (at least once: a batch written again after a crash or a
// failed answer is a second object under a new name, its events keeping their ids).
import { randomBytes } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { DELIVERED, type DeliveryItem, type ItemFailure, type WriteOutcome, type WriterLimits } from '../../contract.js';
import { toDeliveryError } from '../../errors.js';
import { CONTENT_TYPES, encodeBatch } from '../../output-format.js';
import { awsClientConfig, type ClientSettings, type CloudDeps } from '../aws/client-config.js';
import type { CloudTargetConfig } from '../aws/cloud-config.js';
import { CloudWriter } from '../aws/cloud-writer.js';
import { s3Sdk } from '../aws/sdk.js';
import type { ObjectStoreConfig } from './config.js';

/** The kind's largest limits (the schema's bounds); a destination's own are its upload limits. */
export const OBJECT_STORE_LIMITS: WriterLimits = Object.freeze({
  maxRecords: 50_000,
  maxBytes: 64 * 1024 * 1024,
  maxRecordBytes: 64 * 1024 * 1024 - 1,
  recordOverheadBytes: 1,
});

/**
 * A destination's batches: its upload limits, counted as NDJSON lines (one newline per event). They say
 * where an object is cut; an event larger than max_upload_bytes is an object of its own.
 */
export function uploadLimits(config: ObjectStoreConfig): WriterLimits {
  return {
    maxRecords: config.maxUploadRecords,
    maxBytes: config.maxUploadBytes,
    maxRecordBytes: OBJECT_STORE_LIMITS.maxRecordBytes,
    recordOverheadBytes: 1,
    lingerMs: config.maxUploadIntervalSeconds * 1000,
  };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** What fills a prefix's placeholders besides the time: the destination's account, and the events' type and subscription. */
export interface PrefixValues {
  readonly accountId: string;
  readonly eventType: string;
  readonly subscriptionId: string;
}

/** The prefix with its placeholders filled for an object written at `at`. */
export function expandPrefix(prefix: string, at: Date, v: PrefixValues): string {
  const values: Record<string, string> = {
    date: `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())}`,
    hour: pad(at.getUTCHours()),
    account_id: v.accountId,
    event_type: v.eventType,
    subscription_id: v.subscriptionId,
  };
  return prefix.replace(/\{([a-z_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/**
 * An object's name: the time it is written (UTC, to the millisecond, fixed width, so names sort by time)
 * and 64 random bits, so no two workers or attempts ever write the same key. E.g.
 * 20261126T101502123Z-9f86d081884c7d65.ndjson.gz.
 */
export function objectName(at: Date, extension: string): string {
  const time = `${at.getUTCFullYear()}${pad(at.getUTCMonth() + 1)}${pad(at.getUTCDate())}T${pad(at.getUTCHours())}${pad(at.getUTCMinutes())}${pad(at.getUTCSeconds())}${pad(at.getUTCMilliseconds(), 3)}Z`;
  return `${time}-${randomBytes(8).toString('hex')}${extension}`;
}

/** The event type of an item, for `{event_type}`: read from the envelope (parsed from the payload when the item has none). */
function eventTypeOf(item: DeliveryItem): string {
  return item.envelope?.event_type ?? (JSON.parse(item.payload.toString('utf8')) as { event_type: string }).event_type;
}

/** What `{subscription_id}` is for a test event, which belongs to no subscription (README.md here, "Keys"). */
export const NO_SUBSCRIPTION = 'test';

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
  private readonly extension: string;
  private readonly byEventType: boolean;
  private readonly bySubscription: boolean;

  constructor(config: ObjectStoreConfig, deps: CloudDeps = {}) {
    super(asCloudTarget(config), deps, { kind: 'object_store', limits: uploadLimits(config), client: s3Client });
    this.store = config;
    this.extension = `.${config.outputType}${config.compression === 'gzip' ? '.gz' : ''}`;
    this.byEventType = config.prefix.includes('{event_type}');
    this.bySubscription = config.prefix.includes('{subscription_id}');
  }

  /** The key an object of events of `eventType` and `subscriptionId` written at `at` gets. */
  keyFor(at: Date, eventType: string, subscriptionId: string): string {
    return expandPrefix(this.store.prefix, at, { accountId: this.store.accountId, eventType, subscriptionId }) + objectName(at, this.extension);
  }

  protected async writeBatch(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    const at = new Date();
    // One object per expanded prefix: by event type and subscription, where the prefix names them.
    const groups = new Map<string, Map<string, DeliveryItem[]>>();
    for (const item of batch) {
      const eventType = this.byEventType ? eventTypeOf(item) : '';
      const subscriptionId = this.bySubscription ? (item.subscriptionId ?? NO_SUBSCRIPTION) : '';
      let bySubscription = groups.get(eventType);
      if (bySubscription === undefined) groups.set(eventType, (bySubscription = new Map()));
      const group = bySubscription.get(subscriptionId);
      if (group === undefined) bySubscription.set(subscriptionId, [item]);
      else group.push(item);
    }
    const failed: ItemFailure[] = [];
    for (const [eventType, bySubscription] of groups) {
      for (const [subscriptionId, items] of bySubscription) {
        // A CSV object past the upload limit (its header and quoting) is cut in two; an event above it alone is an object of its own.
        const { bodies, tooLarge } = encodeBatch(items, this.store.outputType, this.store.compression, { bytes: this.store.maxUploadBytes, oneEvent: OBJECT_STORE_LIMITS.maxBytes });
        failed.push(...tooLarge);
        for (const body of bodies) {
          try {
            await this.put(this.keyFor(at, eventType, subscriptionId), body.bytes);
          } catch (err) {
            const error = toDeliveryError(err);
            for (const item of body.items) failed.push({ item, error });
          }
        }
      }
    }
    return failed.length === 0 ? DELIVERED : { failed };
  }

  /** Writes one object with the destination's own auth; rejects with the classified error. */
  async put(key: string, body: Buffer, contentType = this.contentType()): Promise<void> {
    await this.call(`S3 PutObject to ${this.store.bucket}`, async (abortSignal) => {
      const { PutObjectCommand } = await s3Sdk();
      await (await this.client.get()).send(new PutObjectCommand({ Bucket: this.store.bucket, Key: key, Body: body, ContentType: contentType }), { abortSignal });
    });
  }

  /** gzip objects are stored as what they are (a standard client reads the gzip bytes back); plain ones as their type. */
  private contentType(): string {
    return this.store.compression === 'gzip' ? 'application/gzip' : CONTENT_TYPES[this.store.outputType];
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
