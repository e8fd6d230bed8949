// The elasticsearch destination writer: each batch as one _bulk request, each event a document under its
// event id (a retry overwrites, never duplicates), and every item of the answer read: a 200 answer with
// errors:true is never success; 429 and 5xx items are retried alone, 400 items (mapping and parse
// errors) dead-lettered with the cluster's reason (README.md here, "Answers").
import { DELIVERED, copyPayload, payloadSize, type DeliveryItem, type DestinationWriter, type ItemFailure, type WriteOutcome, type WriterLimits } from '../../contract.js';
import type { WriterDeps } from '../../destination-kind.js';
import { DeliveryError } from '../../errors.js';
import { parseRetryAfter } from '../http/retry-after.js';
import { eventTimestamp } from '../../event-time.js';
import { VendorClient, jsonOf, type VendorAnswer } from '../vendor-http/vendor-client.js';
import { indexFor, type ElasticsearchConfig } from './config.js';

/**
 * Elastic's guidance for bulk requests is a few megabytes each ("Tune for indexing speed"), and the
 * smallest Amazon OpenSearch Service instances take 10 MiB per request; 5 MiB and 1,000 documents keep
 * well inside both. The action line before each document (its index name of at most 255 bytes and its
 * id), a data stream's @timestamp and the two newlines are counted per record.
 */
export const ELASTICSEARCH_LIMITS: WriterLimits = Object.freeze({
  maxRecords: 1000,
  maxBytes: 5 * 1024 * 1024,
  maxRecordBytes: 5 * 1024 * 1024 - 400,
  recordOverheadBytes: 400,
});

const TIMEOUT_MS = 30_000;
/** The bulk answer, filtered to what is read (filter_path), is about 100 bytes an item. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
/** A cluster's reason, as a dead letter carries it, is cut here. */
const MAX_REASON = 500;
const FILTER = 'filter_path=errors,items.*.status,items.*.error.type,items.*.error.reason';

interface BulkItemAnswer {
  readonly status?: number;
  readonly error?: { readonly type?: string; readonly reason?: string };
}

/** The event type and time of an item: from its envelope, or parsed from the payload (a parked item has none). */
function eventTypeOf(item: DeliveryItem): string {
  if (item.envelope !== undefined) return item.envelope.event_type;
  try {
    return String((JSON.parse(item.payload.toString('utf8')) as { event_type?: unknown }).event_type ?? 'unknown');
  } catch {
    return 'unknown';
  }
}

export function authorizationOf(config: ElasticsearchConfig): string | undefined {
  if (config.auth === undefined) return undefined;
  if ('basic' in config.auth) return `Basic ${Buffer.from(`${config.auth.basic.username}:${config.auth.basic.password}`).toString('base64')}`;
  return `ApiKey ${Buffer.from(`${config.auth.api_key.id}:${config.auth.api_key.api_key}`).toString('base64')}`;
}

export class ElasticsearchWriter implements DestinationWriter {
  readonly kind = 'elasticsearch';
  readonly limits = ELASTICSEARCH_LIMITS;
  private readonly client: VendorClient;
  private readonly authorization: string | undefined;

  constructor(
    private readonly config: ElasticsearchConfig,
    deps: Pick<WriterDeps, 'egress' | 'resolveHost'>,
    private readonly now: () => number = Date.now,
  ) {
    this.client = new VendorClient({ base: new URL(config.url), egress: deps.egress, resolveHost: deps.resolveHost, caPem: config.caPem, timeoutMs: TIMEOUT_MS, maxAnswerBytes: MAX_ANSWER_BYTES, longerAnswer: 'fail' });
    this.authorization = authorizationOf(config);
  }

  async connect(): Promise<void> {
    if (this.client.isClosed) throw new DeliveryError('WRITER_CLOSED', 'The elasticsearch writer is closed.');
  }

  async write(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    if (this.client.isClosed) throw new DeliveryError('WRITER_CLOSED', 'The elasticsearch writer is closed.');
    if (batch.length === 0) return DELIVERED;
    const answer = await this.bulk(batch, (item) => indexFor(this.config.index, eventTypeOf(item), eventTimestamp(item, this.now())));
    return this.outcome(batch, answer);
  }

  /** One _bulk request of `batch`, each item into the index `indexOf` names. */
  bulk(batch: readonly DeliveryItem[], indexOf: (item: DeliveryItem) => string): Promise<VendorAnswer> {
    const action = this.config.dataStream ? 'create' : 'index';
    const parts: Buffer[] = [];
    for (const item of batch) {
      parts.push(Buffer.from(`${JSON.stringify({ [action]: { _index: indexOf(item), _id: item.eventId } })}\n`));
      const payload = Buffer.allocUnsafe(payloadSize(item));
      copyPayload(item, payload, 0);
      if (this.config.dataStream) {
        // A data stream's documents need @timestamp: the event's time, put first in the envelope's object.
        parts.push(Buffer.from(`{"@timestamp":${JSON.stringify(new Date(eventTimestamp(item, this.now())).toISOString())},`), payload.subarray(1));
      } else parts.push(payload);
      parts.push(Buffer.from('\n'));
    }
    const query = `${FILTER}${this.config.pipeline === undefined ? '' : `&pipeline=${encodeURIComponent(this.config.pipeline)}`}`;
    return this.client.call({ method: 'POST', path: `/_bulk?${query}`, headers: this.headers('application/x-ndjson'), body: Buffer.concat(parts) });
  }

  /** Every item's answer, in the order sent: a 200 is read item by item, and anything unread is no success. */
  outcome(batch: readonly DeliveryItem[], answer: VendorAnswer): WriteOutcome {
    if (answer.status !== 200) throw this.statusError(answer);
    const body = jsonOf(answer) as { errors?: unknown; items?: unknown } | undefined;
    if (body === undefined || typeof body.errors !== 'boolean') throw new DeliveryError('WRITE_FAILED', `${this.client.base.host} answered its bulk request with 200 but no errors flag.`, { status: 200 });
    if (body.errors === false) return { failed: [], status: 200 };
    const items = Array.isArray(body.items) ? (body.items as Record<string, BulkItemAnswer>[]) : [];
    if (items.length !== batch.length) {
      throw new DeliveryError('WRITE_FAILED', `${this.client.base.host} answered errors:true for ${batch.length} documents with ${items.length} item answers.`, { status: 200 });
    }
    const failed: ItemFailure[] = [];
    batch.forEach((item, i) => {
      const error = this.itemError(Object.values(items[i] ?? {})[0]);
      if (error !== undefined) failed.push({ item, error });
    });
    return { failed, status: 200 };
  }

  /** GET / (the cluster's info) with the destination's auth. */
  async healthcheck(): Promise<void> {
    const answer = await this.info();
    if (answer.status !== 200) throw this.statusError(answer);
  }

  info(): Promise<VendorAnswer> {
    return this.client.call({ method: 'GET', path: '/', headers: this.headers() });
  }

  deleteDocument(index: string, id: string): Promise<VendorAnswer> {
    return this.client.call({ method: 'DELETE', path: `/${encodeURIComponent(index)}/_doc/${encodeURIComponent(id)}`, headers: this.headers() });
  }

  async close(): Promise<void> {
    this.client.close();
  }

  private headers(contentType?: string): Record<string, string> {
    return { accept: 'application/json', ...(contentType !== undefined && { 'content-type': contentType }), ...(this.authorization !== undefined && { authorization: this.authorization }) };
  }

  /** One item's failure, or undefined when it was written. A data stream's 409 is an event it already holds (an earlier try). */
  private itemError(item: BulkItemAnswer | undefined): DeliveryError | undefined {
    const status = item?.status ?? 0;
    if (status >= 200 && status < 300) return undefined;
    if (status === 409 && this.config.dataStream) return undefined;
    const reason = `${item?.error?.type ?? 'unknown'}: ${item?.error?.reason ?? 'no reason given'}`.slice(0, MAX_REASON);
    const text = `${this.client.base.host} refused the document with ${status} ${reason}`;
    if (status === 429) return new DeliveryError('DESTINATION_THROTTLED', text, { status });
    if (status >= 500 || status === 0) return new DeliveryError('DESTINATION_SERVER_ERROR', text, { status });
    if (status === 401 || status === 403) return new DeliveryError('DESTINATION_AUTH_FAILED', text, { status });
    if (status === 404) return new DeliveryError('DESTINATION_NOT_FOUND', text, { status });
    return new DeliveryError('DESTINATION_REJECTED', text, { status });
  }

  /** The whole request's failure; the cluster's error type is named, its text is not repeated. */
  statusError(answer: VendorAnswer): DeliveryError {
    const { status } = answer;
    const type = (jsonOf(answer) as { error?: { type?: unknown } } | undefined)?.error?.type;
    const text = `${this.client.base.host} answered ${status}${typeof type === 'string' ? ` ${type}` : ''}`;
    const retryAfterMs = parseRetryAfter(answer.headers['retry-after'] as string | undefined, this.now());
    if (status === 401 || status === 403) return new DeliveryError('DESTINATION_AUTH_FAILED', `${text}: the cluster refused the destination's credentials.`, { status });
    if (status === 404) return new DeliveryError('DESTINATION_NOT_FOUND', `${text}: not found (the URL, or the pipeline).`, { status });
    if (status === 429) return new DeliveryError('DESTINATION_THROTTLED', `${text} (too many requests).`, { status, retryAfterMs });
    if (status >= 500 || status === 408) return new DeliveryError('DESTINATION_SERVER_ERROR', `${text}, an error on its side.`, { status, retryAfterMs });
    if (status >= 300 && status < 400) return new DeliveryError('DESTINATION_REDIRECTED', `${text}, a redirect, which is not followed: set the destination's URL to where it points.`, { status });
    return new DeliveryError('DESTINATION_REJECTED', `${text}, a refusal of the request.`, { status });
  }
}
