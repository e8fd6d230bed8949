// The datadog writer: each event one log entry of Datadog's HTTP logs intake v2 (POST /api/v2/logs,
// gzipped JSON arrays within the intake's limits), a 413 answered by halving the request, and every other
// answer mapped to the runner's retry, park and dead-letter rules in one place (datadogAnswer).
import { constants, gzipSync } from 'node:zlib';
import { DELIVERED, type DeliveryItem, type DestinationWriter, type ItemFailure, type WriteOutcome, type WriterLimits } from '../../contract.js';
import type { Envelope } from '../../../events/envelope.js';
import { DeliveryError } from '../../errors.js';
import { eventTimestamp } from '../../event-time.js';
import { ERROR_ANSWER_BYTES, VendorClient, type VendorAnswer } from '../vendor-http/vendor-client.js';
import { parseRetryAfter } from '../http/retry-after.js';
import { DDSOURCE, DATADOG_SITES, type DatadogTargetConfig } from './config.js';

/** Datadog's "Send logs" (API reference, Logs): "Maximum content size per payload (uncompressed): 5MB". */
export const MAX_PAYLOAD_BYTES = 5_000_000;
/** "Maximum array size if sending multiple logs in an array: 1000 entries". */
export const MAX_PAYLOAD_ENTRIES = 1_000;
/** "Maximum size for a single log: 1MB"; a larger one is accepted and truncated, so it is never sent. */
export const MAX_ENTRY_BYTES = 1_000_000;
/** "Log events can be submitted with a timestamp that is up to 18 hours in the past." An older event is dated when it is sent, with margin. */
export const MAX_ENTRY_AGE_MS = 17 * 60 * 60 * 1000;

/**
 * The runner's batches: at most the intake's entries, and payloads whose sum leaves room for the entries'
 * other attributes. The entries of a batch are measured again as written (the message is the envelope as
 * an escaped JSON string), and a batch that grows past the intake's payload limit goes as two requests.
 */
export const DATADOG_LIMITS: WriterLimits = Object.freeze({
  maxRecords: MAX_PAYLOAD_ENTRIES,
  maxBytes: 4_000_000,
  maxRecordBytes: MAX_ENTRY_BYTES - 2_000,
  recordOverheadBytes: 200,
});

export const DEFAULT_DATADOG_TIMEOUT_MS = 10_000;

export interface DatadogWriterOptions {
  /** DATADOG_BASE_URL: one base URL for the intake and the API (a test intake, a compatible one); absent: the site's hosts. */
  readonly baseUrl?: string | undefined;
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

interface Entry {
  readonly item: DeliveryItem;
  readonly json: Buffer;
}

export class DatadogWriter implements DestinationWriter {
  readonly kind = 'datadog';
  readonly limits = DATADOG_LIMITS;
  readonly intakeUrl: URL;
  readonly validateUrl: URL;
  private readonly http: VendorClient;
  private readonly now: () => number;
  private readonly headers: Record<string, string>;

  constructor(
    private readonly config: DatadogTargetConfig,
    opts: DatadogWriterOptions = {},
  ) {
    const base = opts.baseUrl === undefined ? undefined : opts.baseUrl.endsWith('/') ? opts.baseUrl : `${opts.baseUrl}/`;
    this.intakeUrl = new URL(base === undefined ? `https://http-intake.logs.${config.site}/api/v2/logs` : new URL('api/v2/logs', base).href);
    this.validateUrl = new URL(base === undefined ? `https://api.${config.site}/api/v1/validate` : new URL('api/v1/validate', base).href);
    // The site's hosts, or the operator's base URL: nothing a customer names (SECURITY.md "Egress").
    this.http = new VendorClient({ timeoutMs: opts.timeoutMs ?? DEFAULT_DATADOG_TIMEOUT_MS, maxAnswerBytes: ERROR_ANSWER_BYTES, longerAnswer: 'cut', vendor: 'Datadog' });
    this.now = opts.now ?? Date.now;
    this.headers = { 'dd-api-key': config.apiKey };
  }

  async connect(): Promise<void> {
    if (this.http.isClosed) throw closedError();
  }

  async write(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    if (this.http.isClosed) throw closedError();
    if (batch.length === 0) return DELIVERED;
    const failed: ItemFailure[] = [];
    const entries: Entry[] = [];
    const now = this.now();
    for (const item of batch) {
      const json = this.entry(item, now);
      if (json.length > MAX_ENTRY_BYTES) {
        failed.push({ item, error: new DeliveryError('RECORD_TOO_LARGE', `The event makes a Datadog log of ${json.length} bytes; Datadog takes at most ${MAX_ENTRY_BYTES} bytes a log and truncates larger ones.`) });
      } else entries.push({ item, json });
    }
    const requests = packRequests(entries);
    let status: number | undefined;
    for (const [n, request] of requests.entries()) {
      try {
        status = await this.send(request, failed);
      } catch (err) {
        const error = err instanceof DeliveryError ? err : new DeliveryError('WRITE_FAILED', String(err));
        // Entries a 413 split already settled stay as they are; the rest of this request and the later ones fail.
        const settled = new Set(failed.map((f) => f.item));
        for (const rest of requests.slice(n)) for (const e of rest) if (!settled.has(e.item)) failed.push({ item: e.item, error });
        break;
      }
    }
    return failed.length === 0 ? { failed: [], ...(status !== undefined && { status }) } : { failed, ...(status !== undefined && { status }) };
  }

  /** The key-validation endpoint with the destination's own key: 200 is a valid key. */
  async healthcheck(): Promise<void> {
    const answer = await this.http.call({ method: 'GET', url: this.validateUrl, headers: { ...this.headers, accept: 'application/json' } });
    if (answer.status !== 200) throw datadogAnswer(answer, this.config.site, this.now());
  }

  async close(): Promise<void> {
    this.http.close();
  }

  /** One request of entries; a 413 splits it in halves, each sent on its own (one entry alone is too large). Resolves with the status. */
  private async send(entries: readonly Entry[], failed: ItemFailure[]): Promise<number> {
    const plain = Buffer.concat([Buffer.from('['), ...entries.flatMap((e, i) => (i === 0 ? [e.json] : [COMMA, e.json])), Buffer.from(']')]);
    const body = gzipSync(plain, { level: constants.Z_BEST_SPEED });
    const answer = await this.http.call({
      method: 'POST',
      url: this.intakeUrl,
      headers: { ...this.headers, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body,
    });
    if (answer.status === 202 || answer.status === 200) return answer.status;
    if (answer.status === 413) {
      if (entries.length === 1) {
        const item = (entries[0] as Entry).item;
        failed.push({ item, error: new DeliveryError('RECORD_TOO_LARGE', 'Datadog refused the event alone as too large (413).', { status: 413 }) });
        return 413;
      }
      const half = Math.ceil(entries.length / 2);
      await this.send(entries.slice(0, half), failed);
      return this.send(entries.slice(half), failed);
    }
    throw datadogAnswer(answer, this.config.site, this.now());
  }

  /**
   * One log entry: the envelope as its message, Datadog's reserved attributes, and the event's time as its
   * timestamp (milliseconds, which Datadog reads as the log's date).
   */
  private entry(item: DeliveryItem, now: number): Buffer {
    const text = item.payload.toString('utf8');
    let envelope = item.envelope;
    if (envelope === undefined) {
      try {
        envelope = JSON.parse(text) as Envelope;
      } catch {
        // An unreadable payload still goes, dated now.
      }
    }
    const at = eventTimestamp(envelope === undefined ? item : { ...item, envelope }, now);
    const entry: Record<string, string | number> = {
      ddsource: DDSOURCE,
      service: this.config.service,
      hostname: hostOf(envelope),
      ...(this.config.ddtags !== undefined && { ddtags: this.config.ddtags }),
      timestamp: Math.round(now - at > MAX_ENTRY_AGE_MS ? now : at),
      message: text,
    };
    return Buffer.from(JSON.stringify(entry));
  }
}

const COMMA = Buffer.from(',');

function closedError(): DeliveryError {
  return new DeliveryError('WRITER_CLOSED', 'The datadog writer is closed.');
}

/** The hostname attribute: the connection's host name (conn.server_name) when the event carries it, else the service's name (never a worker's). */
function hostOf(envelope: Envelope | undefined): string {
  const conn = (envelope?.object as { conn?: { server_name?: unknown } } | undefined)?.conn;
  return typeof conn?.server_name === 'string' && conn.server_name !== '' ? conn.server_name : SERVICE_HOST;
}
const SERVICE_HOST = DDSOURCE;

/** Entries cut into requests of at most MAX_PAYLOAD_ENTRIES and MAX_PAYLOAD_BYTES (brackets and commas counted). */
export function packRequests<E extends { readonly json: Buffer }>(entries: readonly E[]): E[][] {
  const requests: E[][] = [];
  let current: E[] = [];
  let bytes = 2;
  for (const e of entries) {
    const add = e.json.length + (current.length === 0 ? 0 : 1);
    if (current.length > 0 && (current.length === MAX_PAYLOAD_ENTRIES || bytes + add > MAX_PAYLOAD_BYTES)) {
      requests.push(current);
      current = [];
      bytes = 2;
    }
    bytes += e.json.length + (current.length === 0 ? 0 : 1);
    current.push(e);
  }
  if (current.length > 0) requests.push(current);
  return requests;
}

/**
 * What an intake or API answer other than success means, in the customer's words (Datadog's "Send logs"
 * status codes and "Rate Limits"): 401 and 403 a key Datadog does not take (parked until the key is
 * fixed), 400 a refused batch (dead-lettered), 408, 429 and 5xx retried (429 after its X-RateLimit-Reset).
 */
export function datadogAnswer(answer: VendorAnswer, site: keyof typeof DATADOG_SITES, nowMs: number): DeliveryError {
  const { status } = answer;
  const header = (name: string): string | undefined => {
    const v = answer.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  if (status === 401 || status === 403) {
    return new DeliveryError(
      'DESTINATION_AUTH_FAILED',
      `Datadog refused the API key (${status}): it is not a valid API key of the site ${site} (${DATADOG_SITES[site]}): mistyped, revoked, an application key, or a key of another site. Set target.datadog.api_key to an API key of that site, or ddsite to the key's site.`,
      { status },
    );
  }
  if (status === 429) {
    const reset = header('x-ratelimit-reset');
    const retryAfterMs = reset !== undefined && /^\d+$/.test(reset.trim()) ? Number(reset) * 1000 : parseRetryAfter(header('retry-after'), nowMs);
    const limit = header('x-ratelimit-limit');
    const period = header('x-ratelimit-period');
    const rate = limit !== undefined && period !== undefined ? ` (${limit} requests per ${period} s)` : '';
    return new DeliveryError('DESTINATION_THROTTLED', `Datadog is rate limiting this key${rate} (429); sent again after ${Math.round((retryAfterMs ?? 0) / 1000)} s.`, { status, ...(retryAfterMs !== undefined && { retryAfterMs }) });
  }
  if (status === 408) return new DeliveryError('DESTINATION_SERVER_ERROR', 'Datadog timed out reading the request (408); it is sent again.', { status });
  if (status >= 500) return new DeliveryError('DESTINATION_SERVER_ERROR', `Datadog answered ${status}, an error on its side; it is sent again.`, { status, retryAfterMs: parseRetryAfter(header('retry-after'), nowMs) });
  if (status >= 300 && status < 400) return new DeliveryError('DESTINATION_REDIRECTED', `Datadog answered ${status}, a redirect, which is not followed.`, { status });
  if (status === 400) return new DeliveryError('DESTINATION_REJECTED', 'Datadog refused the logs as malformed (400).', { status });
  return new DeliveryError('DESTINATION_REJECTED', `Datadog answered ${status}, a refusal of the request.`, { status });
}
