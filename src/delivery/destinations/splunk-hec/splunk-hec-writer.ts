// The splunk_hec destination writer: each batch as one gzipped POST of concatenated event objects to
// /services/collector/event, each stamped with its event time; HEC's numbered answers and the HTTP status
// mapped to retry, park or dead-letter (hec-codes.ts); with ack, a batch is delivered only once
// /services/collector/ack says it was indexed (README.md here).
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { DELIVERED, copyPayload, payloadSize, type DeliveryItem, type DestinationWriter, type ItemFailure, type WriteOutcome, type WriterLimits } from '../../contract.js';
import type { WriterDeps } from '../../destination-kind.js';
import { DeliveryError } from '../../errors.js';
import { parseRetryAfter } from '../http/retry-after.js';
import { eventTimestamp } from '../../event-time.js';
import { VendorClient, jsonOf, type VendorAnswer } from '../vendor-http/vendor-client.js';
import type { SplunkHecConfig } from './config.js';
import { HEC_CODES } from './hec-codes.js';

/**
 * Splunk Cloud Platform takes HEC requests of up to 1 MB (its service limits; Splunk Enterprise's
 * max_content_length is larger), counted here before compression. Each event's wrapper (time, the
 * metadata of at most 80 + 3 × 256 characters, "event") is counted per record.
 */
export const SPLUNK_HEC_LIMITS: WriterLimits = Object.freeze({
  maxRecords: 1000,
  maxBytes: 1_000_000,
  maxRecordBytes: 1_000_000 - 1000,
  recordOverheadBytes: 1000,
});

const TIMEOUT_MS = 30_000;
const MAX_ANSWER_BYTES = 64 * 1024;
/** How long a batch waits for its acknowledgement, polled from 200 ms up to every 2 s. */
export const ACK_TIMEOUT_MS = 30_000;
const ACK_POLL_FIRST_MS = 200;
const ACK_POLL_MAX_MS = 2000;

interface HecAnswer {
  readonly code?: number;
  readonly text?: string;
  readonly ackId?: number;
  readonly 'invalid-event-number'?: number;
}

export class SplunkHecWriter implements DestinationWriter {
  readonly kind = 'splunk_hec';
  readonly limits = SPLUNK_HEC_LIMITS;
  private readonly client: VendorClient;
  private readonly channel: string | undefined;
  /** The metadata every event carries, as JSON members followed by a comma. */
  private readonly meta: string;

  constructor(
    private readonly config: SplunkHecConfig,
    deps: Pick<WriterDeps, 'egress' | 'resolveHost'>,
    private readonly now: () => number = Date.now,
  ) {
    this.client = new VendorClient({ base: new URL(config.url), egress: deps.egress, resolveHost: deps.resolveHost, caPem: config.caPem, timeoutMs: TIMEOUT_MS, maxAnswerBytes: MAX_ANSWER_BYTES, longerAnswer: 'fail' });
    this.channel = config.ack ? (config.channel ?? randomUUID()) : config.channel;
    const fields = { host: config.host, source: config.source, sourcetype: config.sourcetype, index: config.index };
    this.meta = Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)},`)
      .join('');
  }

  async connect(): Promise<void> {
    if (this.client.isClosed) throw new DeliveryError('WRITER_CLOSED', 'The splunk_hec writer is closed.');
  }

  async write(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    if (this.client.isClosed) throw new DeliveryError('WRITER_CLOSED', 'The splunk_hec writer is closed.');
    if (batch.length === 0) return DELIVERED;
    const parts: Buffer[] = [];
    for (const item of batch) {
      // HEC's time: epoch seconds with a fraction (milliseconds here).
      const seconds = (eventTimestamp(item, this.now()) / 1000).toFixed(3);
      parts.push(Buffer.from(`{"time":${seconds},${this.meta}"event":`));
      const payload = Buffer.allocUnsafe(payloadSize(item));
      copyPayload(item, payload, 0);
      parts.push(payload, Buffer.from('}\n'));
    }
    return this.send(batch, gzipSync(Buffer.concat(parts)));
  }

  /** One POST of a gzipped body of `batch`'s events; with ack, resolves once they are indexed. */
  async send(batch: readonly DeliveryItem[], body: Buffer): Promise<WriteOutcome> {
    const answer = await this.client.call({ method: 'POST', path: '/services/collector/event', headers: { ...this.headers(), 'content-type': 'application/json', 'content-encoding': 'gzip' }, body });
    const hec = jsonOf(answer) as HecAnswer | undefined;
    if (answer.status === 200 && hec?.code === 0) {
      if (this.config.ack) {
        if (typeof hec.ackId !== 'number') throw new DeliveryError('WRITE_FAILED', `${this.client.base.host} accepted the batch without an ackId, though ack is asked for.`, { status: 200 });
        await this.awaitAck(hec.ackId);
      }
      return { failed: [], status: 200 };
    }
    // Invalid data format names the first event HEC could not read: that one is refused, the rest sent again.
    const bad = hec?.['invalid-event-number'];
    if (hec?.code === 6 && typeof bad === 'number' && bad >= 0 && bad < batch.length) {
      const failed: ItemFailure[] = batch.map((item, i) =>
        i === bad
          ? { item, error: this.answerError(answer, hec) }
          : { item, error: new DeliveryError('DESTINATION_SERVER_ERROR', `${this.client.base.host} refused another event of the batch (Invalid data format); this one is sent again.`, { status: answer.status }) },
      );
      return { failed, status: answer.status };
    }
    throw this.answerError(answer, hec);
  }

  /** Polls /services/collector/ack on the writer's channel until `ackId` is true, or fails retryable after ACK_TIMEOUT_MS. */
  private async awaitAck(ackId: number): Promise<void> {
    const deadline = this.now() + ACK_TIMEOUT_MS;
    let wait = ACK_POLL_FIRST_MS;
    for (;;) {
      await new Promise((r) => setTimeout(r, wait));
      if (this.client.isClosed) throw new DeliveryError('WRITER_CLOSED', 'The splunk_hec writer was closed while waiting for an acknowledgement.');
      const answer = await this.client.call({ method: 'POST', path: '/services/collector/ack', headers: { ...this.headers(), 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ acks: [ackId] })) });
      const acks = (jsonOf(answer) as { acks?: Record<string, unknown> } | undefined)?.acks;
      if (answer.status !== 200 || acks === undefined) throw this.answerError(answer, jsonOf(answer) as HecAnswer | undefined);
      if (acks[String(ackId)] === true) return;
      if (this.now() + wait > deadline) {
        throw new DeliveryError('DESTINATION_TIMEOUT', `${this.client.base.host} did not acknowledge the batch (ackId ${ackId}) within ${ACK_TIMEOUT_MS} ms; it is sent again.`);
      }
      wait = Math.min(wait * 2, ACK_POLL_MAX_MS);
    }
  }

  /** GET /services/collector/health: 200 with code 17 when the collector takes events. */
  async healthcheck(): Promise<void> {
    const answer = await this.health();
    const hec = jsonOf(answer) as HecAnswer | undefined;
    if (answer.status !== 200) throw new DeliveryError('DESTINATION_UNHEALTHY', `${this.client.base.host} is not healthy: ${this.answerError(answer, hec).message}`, { cause: this.answerError(answer, hec) });
  }

  health(): Promise<VendorAnswer> {
    return this.client.call({ method: 'GET', path: '/services/collector/health', headers: this.headers() });
  }

  async close(): Promise<void> {
    this.client.close();
  }

  private headers(): Record<string, string> {
    return { authorization: `Splunk ${this.config.token}`, ...(this.channel !== undefined && { 'x-splunk-request-channel': this.channel }) };
  }

  /** The failure an answer is: by HEC's code when it gives a known one, by the HTTP status otherwise. HEC's own text is its documented one. */
  answerError(answer: VendorAnswer, hec: HecAnswer | undefined): DeliveryError {
    const { status } = answer;
    const known = typeof hec?.code === 'number' ? HEC_CODES[hec.code] : undefined;
    const host = this.client.base.host;
    const retryAfterMs = parseRetryAfter(answer.headers['retry-after'] as string | undefined, this.now());
    if (known?.error !== undefined) {
      return new DeliveryError(known.error, `${host} answered ${status}, HEC code ${hec?.code} (${known.text}).`, { status, retryAfterMs });
    }
    const text = `${host} answered ${status}${typeof hec?.code === 'number' ? `, HEC code ${hec.code}` : ''}`;
    if (status === 401 || status === 403) return new DeliveryError('DESTINATION_AUTH_FAILED', `${text}: the token was refused.`, { status });
    if (status === 404) return new DeliveryError('DESTINATION_NOT_FOUND', `${text}: no collector at this URL.`, { status });
    if (status === 429) return new DeliveryError('DESTINATION_THROTTLED', `${text} (too many requests).`, { status, retryAfterMs });
    if (status >= 500 || status === 408) return new DeliveryError('DESTINATION_SERVER_ERROR', `${text}, an error on its side.`, { status, retryAfterMs });
    if (status >= 300 && status < 400) return new DeliveryError('DESTINATION_REDIRECTED', `${text}, a redirect, which is not followed: set the destination's URL to where it points.`, { status });
    if (status === 200) return new DeliveryError('WRITE_FAILED', `${text}, but not HEC's success answer.`, { status });
    return new DeliveryError('DESTINATION_REJECTED', `${text}, a refusal of the request.`, { status });
  }
}
