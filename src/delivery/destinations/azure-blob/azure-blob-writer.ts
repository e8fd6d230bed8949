// The azure_blob writer: each object the shared batching cuts (../objects/) is one block blob, written
// with Put Blob (x-ms-blob-type: BlockBlob) and authorized by the account key or the SAS token
// (../azure/storage-auth.ts). write() resolves only once the service answered 201 Created.
import type { WriterDeps } from '../../destination-kind.js';
import { authorize } from '../azure/storage-auth.js';
import { StoreWriter, storeAnswerError } from '../objects/store-writer.js';
import type { VendorAnswer, VendorRequest } from '../vendor-http/vendor-client.js';
import { blobUrlOf, type AzureBlobConfig } from './config.js';

/** Azure's codes for "slow down" (ServerBusy is answered with 503, "Operation could not be completed within the specified time" with 500). */
const BUSY = ['ServerBusy', 'OperationTimedOut'];

/** The error's message from the service's XML body (<Error><Code>…</Code><Message>…</Message></Error>), its first line. */
function messageOf(answer: VendorAnswer): string | undefined {
  const m = /<Message>([^<]*)<\/Message>/.exec(answer.body.toString('utf8'));
  return m?.[1]?.split('\n')[0]?.trim();
}

function errorCodeOf(answer: VendorAnswer): string | undefined {
  const header = answer.headers['x-ms-error-code'];
  if (typeof header === 'string' && header !== '') return header;
  return /<Code>([^<]*)<\/Code>/.exec(answer.body.toString('utf8'))?.[1];
}

/** A refusal to read that still proves the credentials: permission to write, not to read the container's properties. */
const READ_DENIED = new Set(['AuthorizationPermissionMismatch', 'AuthorizationResourceTypeMismatch', 'AuthorizationServiceMismatch']);

export class AzureBlobWriter extends StoreWriter {
  constructor(
    private readonly config: AzureBlobConfig,
    deps: Pick<WriterDeps, 'egress' | 'resolveHost' | 'cloud'>,
  ) {
    super({ kind: 'azure_blob', layout: config, customerHost: config.customerHost === true, deps, timeoutMs: deps.cloud?.timeoutMs });
    this.blobUrl = blobUrlOf(config, deps.cloud?.azureBlobEndpointUrl);
  }

  private readonly blobUrl: string;

  private url(path: string, query = ''): URL {
    return new URL(`${this.blobUrl}/${this.config.container}${path}${query}`);
  }

  private async request(what: string, method: VendorRequest['method'], url: URL, headers: Record<string, string | number>, signal: AbortSignal, body?: Buffer): Promise<VendorAnswer> {
    const signed = authorize(this.config.auth, method, url, { ...headers, ...(body !== undefined && { 'content-length': body.length }) }, this.config.account);
    const answer = await this.send({ method, url: signed.url, headers: signed.headers, signal, ...(body !== undefined && { body }) });
    if (answer.status >= 200 && answer.status < 300) return answer;
    const retryAfter = answer.headers['retry-after'];
    throw storeAnswerError(what, answer.status, errorCodeOf(answer), messageOf(answer), typeof retryAfter === 'string' ? retryAfter : undefined, BUSY);
  }

  protected async put(key: string, body: Buffer, contentType: string, signal: AbortSignal): Promise<void> {
    // Each segment percent-encoded; "/" kept, so the name's folders show in the portal and in listings.
    const path = `/${key.split('/').map(encodeURIComponent).join('/')}`;
    await this.request(`Put Blob to ${this.config.container}`, 'PUT', this.url(path), { 'x-ms-blob-type': 'BlockBlob', 'content-type': contentType }, signal, body);
  }

  /** Get Container Properties; a SAS or key allowed to write but not to read it passes (the check object tells the rest). */
  protected async describe(signal: AbortSignal): Promise<void> {
    try {
      await this.request(`Get Container Properties of ${this.config.container}`, 'GET', this.url('', '?restype=container'), {}, signal);
    } catch (err) {
      const name = (err as { cause?: { name?: string } }).cause?.name;
      if (name !== undefined && READ_DENIED.has(name)) return;
      throw err;
    }
  }
}
