// The azure_logs_ingestion writer: each event one row of the rule's stream, posted as gzipped JSON arrays
// within the Logs Ingestion API's size limit per call (a 413 answered by halving the call), with a token of
// the app registration (../azure/entra-token.ts), and every answer mapped to the runner's retry, park and
// dead-letter rules in one place (ingestionAnswer). The endpoint is a customer's: every connect goes through
// the guarded lookup (SECURITY.md "Egress").
import { constants, gzipSync } from 'node:zlib';
import type { HostResolver } from '../../../net/guarded-lookup.js';
import { DELIVERED, payloadSize, type DeliveryItem, type DestinationWriter, type ItemFailure, type WriteOutcome, type WriterLimits } from '../../contract.js';
import type { EgressRules } from '../../egress-rules.js';
import { DeliveryError } from '../../errors.js';
import { eventTimestamp } from '../../event-time.js';
import { ERROR_ANSWER_BYTES, jsonOf, VendorClient, type VendorAnswer } from '../vendor-http/vendor-client.js';
import { EntraTokenSource } from '../azure/entra-token.js';
import { parseRetryAfter } from '../http/retry-after.js';
import type { AzureLogsIngestionConfig } from './config.js';

/** The Logs Ingestion API version this writer speaks (its REST reference, "Logs Ingestion - Upload"). */
export const API_VERSION = '2023-01-01';
/** The token audience of Azure Monitor in the public cloud, as the Logs Ingestion API asks for it. */
export const MONITOR_SCOPE = 'https://monitor.azure.com//.default';
/** Azure Monitor service limits, Logs Ingestion API: "Maximum size of API call: 1 MB for both compressed and uncompressed data" (1,048,576 bytes, its 413 says). */
export const MAX_CALL_BYTES = 1_048_576;
/** "Maximum size for field values: 64 KB. Fields longer than 64 KB are truncated": an envelope over it is dead-lettered, never cut. */
export const MAX_FIELD_BYTES = 65_536;
/** What a row adds to its envelope: `"TimeGenerated":"2026-01-01T00:00:00.000Z",` and the comma between rows. */
const ROW_OVERHEAD_BYTES = 44;

export const AZURE_LOGS_INGESTION_LIMITS: WriterLimits = Object.freeze({
  maxRecords: 10_000,
  maxBytes: MAX_CALL_BYTES - 2,
  maxRecordBytes: MAX_FIELD_BYTES,
  recordOverheadBytes: ROW_OVERHEAD_BYTES,
});

export const DEFAULT_AZURE_TIMEOUT_MS = 10_000;

export interface AzureWriterDeps {
  readonly egress: Pick<EgressRules, 'addressRefusal'>;
  readonly resolveHost?: HostResolver | undefined;
  /** AZURE_AUTHORITY_URL; absent: Entra ID's public authority. */
  readonly authorityUrl?: string | undefined;
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

interface Row {
  readonly item: DeliveryItem;
  readonly json: Buffer;
}

export class AzureLogsIngestionWriter implements DestinationWriter {
  readonly kind = 'azure_logs_ingestion';
  readonly limits = AZURE_LOGS_INGESTION_LIMITS;
  readonly uploadUrl: URL;
  readonly tokens: EntraTokenSource;
  private readonly http: VendorClient;
  private readonly now: () => number;

  constructor(
    private readonly config: AzureLogsIngestionConfig,
    private readonly deps: AzureWriterDeps,
  ) {
    this.uploadUrl = new URL(`${config.endpoint}/dataCollectionRules/${encodeURIComponent(config.ruleId)}/streams/${encodeURIComponent(config.stream)}?api-version=${API_VERSION}`);
    const timeoutMs = deps.timeoutMs ?? DEFAULT_AZURE_TIMEOUT_MS;
    this.http = new VendorClient({ timeoutMs, egress: deps.egress, resolveHost: deps.resolveHost, maxAnswerBytes: ERROR_ANSWER_BYTES, longerAnswer: 'cut', vendor: 'Azure Monitor' });
    this.now = deps.now ?? Date.now;
    this.tokens = new EntraTokenSource(config, MONITOR_SCOPE, { authorityUrl: deps.authorityUrl, timeoutMs, now: this.now, fieldPrefix: 'target.azure_logs_ingestion' });
  }

  /** Gets a token: the credentials are proven before the first write. */
  async connect(): Promise<void> {
    if (this.http.isClosed) throw closedError();
    await this.tokens.token();
  }

  async write(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    if (this.http.isClosed) throw closedError();
    if (batch.length === 0) return DELIVERED;
    const failed: ItemFailure[] = [];
    const rows: Row[] = [];
    const now = this.now();
    for (const item of batch) {
      const size = payloadSize(item);
      if (size > MAX_FIELD_BYTES) {
        failed.push({ item, error: new DeliveryError('RECORD_TOO_LARGE', `The event is ${size} bytes; Azure Monitor truncates a field over ${MAX_FIELD_BYTES} bytes, so it is not sent.`) });
      } else rows.push({ item, json: row(item, now) });
    }
    const calls = packCalls(rows);
    let status: number | undefined;
    for (const [n, call] of calls.entries()) {
      try {
        status = await this.send(call, failed);
      } catch (err) {
        const error = err instanceof DeliveryError ? err : new DeliveryError('WRITE_FAILED', String(err));
        const settled = new Set(failed.map((f) => f.item));
        for (const rest of calls.slice(n)) for (const r of rest) if (!settled.has(r.item)) failed.push({ item: r.item, error });
        break;
      }
    }
    return { failed, ...(status !== undefined && { status }) };
  }

  /**
   * The create-time check and the health check: a token, then an empty array posted to the stream. Azure
   * answers a missing rule, an app without access and an undeclared stream before it reads rows, and an
   * empty array writes none.
   */
  async healthcheck(): Promise<void> {
    if (this.http.isClosed) throw closedError();
    await this.post(Buffer.from('[]'), false);
  }

  async close(): Promise<void> {
    this.http.close();
    this.tokens.close();
  }

  private async send(rows: readonly Row[], failed: ItemFailure[]): Promise<number> {
    const plain = Buffer.concat([Buffer.from('['), ...rows.flatMap((r, i) => (i === 0 ? [r.json] : [COMMA, r.json])), Buffer.from(']')]);
    const answer = await this.post(plain, true);
    if (answer.status !== 413) return answer.status;
    if (rows.length === 1) {
      failed.push({ item: (rows[0] as Row).item, error: new DeliveryError('RECORD_TOO_LARGE', 'Azure Monitor refused the event alone as too large (413 ContentLengthLimitExceeded).', { status: 413 }) });
      return 413;
    }
    const half = Math.ceil(rows.length / 2);
    await this.send(rows.slice(0, half), failed);
    return this.send(rows.slice(half), failed);
  }

  /** One upload with a token, fetched again once on a 401; resolves with a 2xx or a 413, throws the rest. */
  private async post(plain: Buffer, gzip: boolean): Promise<VendorAnswer> {
    const body = gzip ? gzipSync(plain, { level: constants.Z_BEST_SPEED }) : plain;
    for (let attempt = 0; ; attempt++) {
      const token = await this.tokens.token();
      const answer = await this.http.call({
        method: 'POST',
        url: this.uploadUrl,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...(gzip && { 'content-encoding': 'gzip' }) },
        body,
      });
      if (answer.status === 401 && attempt === 0) {
        this.tokens.invalidate(token);
        continue;
      }
      if ((answer.status >= 200 && answer.status < 300) || answer.status === 413) return answer;
      throw ingestionAnswer(answer, this.config, this.now());
    }
  }
}

const COMMA = Buffer.from(',');

function closedError(): DeliveryError {
  return new DeliveryError('WRITER_CLOSED', 'The azure_logs_ingestion writer is closed.');
}

/** A row: the envelope with TimeGenerated, the event's time, first. */
function row(item: DeliveryItem, now: number): Buffer {
  const time = Buffer.from(`{"TimeGenerated":${JSON.stringify(new Date(eventTimestamp(item, now)).toISOString())},`);
  // The envelope's opening brace is the row's.
  return Buffer.concat([time, item.payload.subarray(1)]);
}

/** Rows cut into calls of at most MAX_CALL_BYTES, brackets and commas counted. */
export function packCalls<R extends { readonly json: Buffer }>(rows: readonly R[]): R[][] {
  const calls: R[][] = [];
  let current: R[] = [];
  let bytes = 2;
  for (const r of rows) {
    const add = r.json.length + (current.length === 0 ? 0 : 1);
    if (current.length > 0 && bytes + add > MAX_CALL_BYTES) {
      calls.push(current);
      current = [];
      bytes = 2;
    }
    bytes += r.json.length + (current.length === 0 ? 0 : 1);
    current.push(r);
  }
  if (current.length > 0) calls.push(current);
  return calls;
}

/** Azure's own error code of a refused upload, the cause of its DeliveryError. */
export interface AzureRefusal {
  readonly error: string;
}

/**
 * The error code of an answer: the x-ms-error-code header, else the body's error.code; only a word of the
 * shape Azure's codes have (InvalidStream, ContentLengthLimitExceeded) is repeated, nothing else of an answer.
 */
export function errorCodeOf(answer: VendorAnswer): string | undefined {
  const h = answer.headers['x-ms-error-code'];
  const header = Array.isArray(h) ? h[0] : h;
  const code = header !== undefined && header !== '' ? header : (jsonOf(answer) as { error?: { code?: unknown } } | undefined)?.error?.code;
  return typeof code === 'string' && /^[A-Za-z][A-Za-z0-9_.]{0,63}$/.test(code) ? code : undefined;
}

/**
 * What an answer other than success means, in the customer's words (the REST reference's error response,
 * Azure Monitor's troubleshooting of the Logs Ingestion API): an app without access, a missing rule and an
 * undeclared stream park the events until the target is fixed; another 400 is dead-lettered; 429 and 5xx
 * are retried after their Retry-After.
 */
export function ingestionAnswer(answer: VendorAnswer, config: AzureLogsIngestionConfig, nowMs: number): DeliveryError {
  const { status } = answer;
  const code = errorCodeOf(answer);
  const said = `${status}${code === undefined ? '' : ` ${code}`}`;
  const retryAfter = answer.headers['retry-after'];
  const retryAfterMs = parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, nowMs);
  const p = 'target.azure_logs_ingestion';
  const opts = (extra: { retryAfterMs?: number } = {}) => ({ status, ...(code !== undefined && { cause: { error: code } satisfies AzureRefusal }), ...extra });
  if (status === 401) return new DeliveryError('DESTINATION_AUTH_FAILED', `Azure Monitor refused a fresh token of the app ${config.clientId} (${said}). Check that ${p}.tenant_id is the tenant of the data collection rule.`, opts());
  if (status === 403) {
    return new DeliveryError(
      'DESTINATION_AUTH_FAILED',
      `Azure Monitor refused the app ${config.clientId} access to the data collection rule ${config.ruleId} (${said}). Assign the app the Monitoring Metrics Publisher role on the rule; a new role assignment takes up to 30 minutes to apply.`,
      opts(),
    );
  }
  if (status === 404) {
    return new DeliveryError(
      'DESTINATION_NOT_FOUND',
      `Azure Monitor has no data collection rule ${config.ruleId} at ${new URL(config.endpoint).host} (${said}). Check ${p}.data_collection_rule_id (the rule's Immutable ID) and ${p}.logs_ingestion_uri (the logs ingestion URI of that rule or of its data collection endpoint, in the rule's region).`,
      opts(),
    );
  }
  if (status === 400 && code === 'InvalidStream') {
    const table = /_CL$/i.test(config.stream) ? ` ${config.stream} looks like a table name: the stream is usually the same name without _CL.` : '';
    return new DeliveryError(
      'DESTINATION_NOT_FOUND',
      `The data collection rule ${config.ruleId} declares no stream ${config.stream} (${said}). Set ${p}.data_collection_stream_name to an input stream of the rule's streamDeclarations (Custom-<name>), not the table it writes to.${table}`,
      opts(),
    );
  }
  if (status === 429) return new DeliveryError('DESTINATION_THROTTLED', `Azure Monitor is throttling the data collection rule ${config.ruleId} (${said}); sent again after its Retry-After.`, opts(retryAfterMs === undefined ? {} : { retryAfterMs }));
  if (status >= 500 || status === 408) return new DeliveryError('DESTINATION_SERVER_ERROR', `Azure Monitor answered ${said}, an error on its side; sent again.`, opts(retryAfterMs === undefined ? {} : { retryAfterMs }));
  if (status >= 300 && status < 400) return new DeliveryError('DESTINATION_REDIRECTED', `Azure Monitor answered ${status}, a redirect, which is not followed.`, opts());
  return new DeliveryError('DESTINATION_REJECTED', `Azure Monitor refused the rows (${said}).`, opts());
}
