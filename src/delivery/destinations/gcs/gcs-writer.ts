// The gcs writer: each object the shared batching cuts (../objects/) is one media upload of Cloud
// Storage's JSON API (POST /upload/storage/v1/b/<bucket>/o?uploadType=media&name=<name>), with a bearer
// token made from the service-account key (../gcp/service-account.ts). write() resolves only once the
// API answered 200 with the object's resource.
import type { WriterDeps } from '../../destination-kind.js';
import { DeliveryError } from '../../errors.js';
import { parseServiceAccountKey, ServiceAccountTokens } from '../gcp/service-account.js';
import { StoreWriter, storeAnswerError } from '../objects/store-writer.js';
import type { VendorAnswer, VendorRequest } from '../vendor-http/vendor-client.js';
import type { GcsConfig } from './config.js';

export const GOOGLE_STORAGE_API = 'https://storage.googleapis.com';

/** The error of a JSON API answer: {"error": {"code", "message", "errors": [{"reason"}]}}. */
function errorOf(answer: VendorAnswer): { reason: string | undefined; message: string | undefined } {
  try {
    const e = (JSON.parse(answer.body.toString('utf8')) as { error?: { message?: string; errors?: { reason?: string }[] } }).error;
    return { reason: e?.errors?.[0]?.reason, message: e?.message };
  } catch {
    return { reason: undefined, message: undefined };
  }
}

/** "rateLimitExceeded" and "backendError" are Cloud Storage's "retry with exponential backoff" answers besides 429 and 5xx. */
const BUSY = ['rateLimitExceeded', 'userRateLimitExceeded'];

export class GcsWriter extends StoreWriter {
  private readonly tokens: ServiceAccountTokens;
  private readonly api: string;

  constructor(
    private readonly config: GcsConfig,
    deps: Pick<WriterDeps, 'egress' | 'resolveHost' | 'cloud'>,
  ) {
    super({ kind: 'gcs', layout: config, customerHost: false, deps, timeoutMs: deps.cloud?.timeoutMs });
    const key = parseServiceAccountKey(config.serviceAccountKey);
    if (typeof key === 'string') throw new DeliveryError('DESTINATION_MISCONFIGURED', `The gcs service_account_key ${key}.`);
    this.api = (deps.cloud?.gcsApiUrl ?? GOOGLE_STORAGE_API).replace(/\/+$/, '');
    this.tokens = new ServiceAccountTokens(key, this.client, { tokenUrl: deps.cloud?.gcsTokenUrl });
  }

  private async request(what: string, method: VendorRequest['method'], url: URL, headers: Record<string, string>, signal: AbortSignal, body?: Buffer): Promise<VendorAnswer> {
    const token = await this.tokens.get(signal);
    const answer = await this.send({ method, url, headers: { ...headers, authorization: `Bearer ${token}` }, signal, ...(body !== undefined && { body }) });
    if (answer.status >= 200 && answer.status < 300) return answer;
    // A token the API no longer takes is made anew on the next attempt.
    if (answer.status === 401) this.tokens.drop();
    const { reason, message } = errorOf(answer);
    const retryAfter = answer.headers['retry-after'];
    throw storeAnswerError(what, answer.status, reason, message, typeof retryAfter === 'string' ? retryAfter : undefined, BUSY);
  }

  protected async put(key: string, body: Buffer, contentType: string, signal: AbortSignal): Promise<void> {
    const url = new URL(`${this.api}/upload/storage/v1/b/${encodeURIComponent(this.config.bucket)}/o`);
    url.searchParams.set('uploadType', 'media');
    url.searchParams.set('name', key);
    await this.request(`Cloud Storage upload to ${this.config.bucket}`, 'POST', url, { 'content-type': contentType }, signal, body);
  }

  /** The bucket's metadata; an account that may create objects but not read the bucket (403) passes, and the check object tells the rest. */
  protected async describe(signal: AbortSignal): Promise<void> {
    try {
      await this.request(`Reading the bucket ${this.config.bucket}`, 'GET', new URL(`${this.api}/storage/v1/b/${encodeURIComponent(this.config.bucket)}?fields=name`), {}, signal);
    } catch (err) {
      const e = err as DeliveryError;
      if (e.code === 'DESTINATION_AUTH_FAILED' && e.status === 403) return;
      throw err;
    }
  }
}
