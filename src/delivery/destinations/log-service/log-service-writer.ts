// The log_service writer: CloudWatch Logs PutLogEvents into this worker's own log stream (created when
// missing), events in chronological order, refused events dead-lettered with CloudWatch's reason.
import { hostname } from 'node:os';
import type { CloudWatchLogsClient, PutLogEventsCommandOutput } from '@aws-sdk/client-cloudwatch-logs';
import { DELIVERED, type DeliveryItem, type ItemFailure, type WriteOutcome, type WriterLimits } from '../../contract.js';
import { DeliveryError, toDeliveryError } from '../../errors.js';
import { awsClientConfig, type CloudDeps } from '../aws/client-config.js';
import { CloudWriter } from '../aws/cloud-writer.js';
import type { CloudTargetConfig } from '../aws/cloud-config.js';
import { logRequests, rejectedIndexes, type TimedItem } from './log-batches.js';
import { logsSdk } from '../aws/sdk.js';

/** PutLogEvents: "The maximum batch size is 1,048,576 bytes. This size is calculated as the sum of all event messages in UTF-8, plus 26 bytes for each log event." */
const MAX_BATCH_BYTES = 1_048_576;
const EVENT_OVERHEAD_BYTES = 26;

/**
 * "The maximum number of log events in a batch is 10,000." "Each log event can be no larger than 1 MB"
 * (256 KB before 2025); the batch limit above is the tighter bound for a single event.
 */
export const LOG_SERVICE_LIMITS: WriterLimits = Object.freeze({
  maxRecords: 10_000,
  maxBytes: MAX_BATCH_BYTES,
  maxRecordBytes: MAX_BATCH_BYTES - EVENT_OVERHEAD_BYTES,
  recordOverheadBytes: EVENT_OVERHEAD_BYTES,
});

/** CreateLogStream: "logStreamName ... Length 1-512. The ':' (colon) and '*' (asterisk) characters are not allowed." */
export function defaultLogStreamName(): string {
  return `edge-events-${hostname()}-${process.pid}`.replace(/[:*]/g, '-').slice(0, 512);
}

export class LogServiceWriter extends CloudWriter<CloudWatchLogsClient> {
  readonly logStreamName: string;
  private readonly group: string;
  private streamReady: Promise<void> | undefined;

  constructor(config: CloudTargetConfig, deps: CloudDeps = {}) {
    super(config, deps, { kind: 'log_service', limits: LOG_SERVICE_LIMITS, client: async (settings) => new (await logsSdk()).CloudWatchLogsClient(await awsClientConfig(settings)) });
    this.group = config.resource.name;
    this.logStreamName = deps.logStreamName ?? defaultLogStreamName();
  }

  /** Resolves credentials and makes sure this worker's log stream exists. */
  override async connect(): Promise<void> {
    await super.connect();
    await this.ensureStream();
  }

  /**
   * One PutLogEvents per chronological, under-24-hours slice of the batch. When a call fails, the
   * slices already accepted stay delivered and the rest are reported failed with that call's error.
   */
  protected async writeBatch(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    const failed: ItemFailure[] = [];
    const requests = logRequests(batch, Date.now());
    for (const [n, events] of requests.entries()) {
      try {
        await this.ensureStream();
        const out = await this.putWithStream(events);
        const rejected = rejectedIndexes(out.rejectedLogEventsInfo, events.length);
        for (const [i, reason] of rejected) {
          const item = (events[i] as TimedItem).item;
          failed.push({ item, error: new DeliveryError('DESTINATION_REJECTED', `CloudWatch Logs refused the event as ${reason}.`) });
        }
      } catch (err) {
        const error = toDeliveryError(err);
        for (const rest of requests.slice(n)) for (const t of rest) failed.push({ item: t.item, error });
        break;
      }
    }
    return failed.length === 0 ? DELIVERED : { failed };
  }

  /** A stream deleted behind our back is created again, once, before the error counts. */
  private async putWithStream(events: readonly TimedItem[]): Promise<PutLogEventsCommandOutput> {
    try {
      return await this.put(events);
    } catch (err) {
      const cause = (err as DeliveryError).cause as { message?: string } | undefined;
      if ((err as DeliveryError).code !== 'DESTINATION_NOT_FOUND' || !/stream/i.test(cause?.message ?? '')) throw err;
      this.streamReady = undefined;
      await this.ensureStream();
      return this.put(events);
    }
  }

  private put(events: readonly TimedItem[]): Promise<PutLogEventsCommandOutput> {
    // The sequence token is not sent: "The sequence token is now ignored in PutLogEvents actions."
    const logEvents = events.map((t) => ({ timestamp: t.timestamp, message: t.item.payload.toString('utf8') }));
    return this.call(`CloudWatch Logs PutLogEvents to ${this.group}/${this.logStreamName}`, async (abortSignal) => {
      const { PutLogEventsCommand } = await logsSdk();
      return (await this.client.get()).send(new PutLogEventsCommand({ logGroupName: this.group, logStreamName: this.logStreamName, logEvents }), { abortSignal });
    });
  }

  private ensureStream(): Promise<void> {
    this.streamReady ??= this.call(`CloudWatch Logs CreateLogStream ${this.logStreamName} in ${this.group}`, async (abortSignal) => {
      const { CreateLogStreamCommand } = await logsSdk();
      const client = await this.client.get();
      try {
        await client.send(new CreateLogStreamCommand({ logGroupName: this.group, logStreamName: this.logStreamName }), { abortSignal });
      } catch (err) {
        if ((err as { name?: string }).name !== 'ResourceAlreadyExistsException') throw err;
      }
    }).catch((err: unknown) => {
      this.streamReady = undefined;
      throw err;
    });
    return this.streamReady;
  }

  protected async describe(abortSignal: AbortSignal): Promise<void> {
    const { DescribeLogGroupsCommand } = await logsSdk();
    const client = await this.client.get();
    let nextToken: string | undefined;
    // The prefix may match other groups too; a few pages find the exact name among them.
    for (let page = 0; page < 5; page++) {
      const out = await client.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: this.group, ...(nextToken && { nextToken }) }), { abortSignal });
      if (out.logGroups?.some((g) => g.logGroupName === this.group)) return;
      nextToken = out.nextToken;
      if (nextToken === undefined) break;
    }
    throw new DeliveryError('DESTINATION_NOT_FOUND', `Log group ${this.group} does not exist.`);
  }
}
