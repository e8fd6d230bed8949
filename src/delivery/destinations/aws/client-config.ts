// What the cloud writers take from the composition root, and the settings every AWS SDK client they
// build shares: no SDK retries (the destination runner owns retry), bounded timeouts, HTTP/1.1.
import type { LookupFunction } from 'node:net';
import type { HostResolver } from '../../../net/guarded-lookup.js';
import type { WriterDeps } from '../../destination-kind.js';
import type { EgressRules } from '../../egress-rules.js';
import type { AssumeRole, CredentialProvider } from './credentials.js';
import { httpHandlerSdk } from './sdk.js';

export interface CloudDeps {
  /**
   * Service-wide endpoint for every cloud destination without its own `endpoint` (an emulator in tests,
   * CLOUD_ENDPOINT_URL). Unset: each service's public endpoint in the ARN's region.
   */
  readonly endpoint?: string;
  /** Endpoint of STS for role auth (CLOUD_STS_ENDPOINT_URL); defaults to `endpoint`, then the regional STS. */
  readonly stsEndpoint?: string;
  /**
   * The identity that calls STS AssumeRole for role auth. Unset: the SDK's default chain (environment,
   * shared config, container or instance role), i.e. the service's own identity.
   */
  readonly baseCredentials?: CredentialProvider;
  /** Stands in for STS in tests. */
  readonly assumeRole?: AssumeRole;
  /** DurationSeconds of assumed-role sessions (900 to 43,200; default 3,600). */
  readonly roleSessionSeconds?: number;
  /**
   * The operator's stand-ins for Google's hosts (GCS_API_URL, GCS_TOKEN_URL): Cloud Storage's JSON API and
   * the OAuth 2.0 token endpoint of gcs destinations. Never a customer's field. Unset: Google's.
   */
  readonly gcsApiUrl?: string | undefined;
  readonly gcsTokenUrl?: string | undefined;
  /** The operator's blob endpoint for azure_blob destinations without an account_url (AZURE_BLOB_ENDPOINT_URL): <url>/<account>. */
  readonly azureBlobEndpointUrl?: string | undefined;
  /** Timeout of one AWS call (and of one Azure Storage or Cloud Storage call), connect included. Default 10 s. */
  readonly timeoutMs?: number;
  /** The CloudWatch Logs stream this worker writes to. Default: one per process, named after host and pid. */
  readonly logStreamName?: string;
  /** Where a customer's endpoint may lead (SECURITY.md "Egress"); required by a writer of a customer's endpoint. */
  readonly egress?: Pick<EgressRules, 'addressRefusal'>;
  /** How a customer's endpoint's host resolves; absent: the system resolver. */
  readonly resolveHost?: HostResolver | undefined;
}

/** The cloud writers' deps: the service's cloud settings, and the egress rules with the resolver for customers' endpoints. */
export function cloudDepsOf(deps: WriterDeps): CloudDeps {
  return { ...deps.cloud, egress: deps.egress, resolveHost: deps.resolveHost };
}

export const DEFAULT_CLOUD_TIMEOUT_MS = 10_000;

export interface ClientSettings {
  readonly region: string;
  readonly endpoint: string | undefined;
  readonly credentials: CredentialProvider | undefined;
  readonly timeoutMs: number | undefined;
  /** The lookup every connection goes through (a customer's endpoint: the guarded lookup); absent: the system's. */
  readonly lookup?: LookupFunction | undefined;
}

/**
 * maxAttempts 1 turns the SDK's own retries off: retry, backoff and parking live in the destination
 * runner, which retries only the failed entries of a batch. The plain HTTP/1.1 handler is used for every
 * client (Kinesis would otherwise pick HTTP/2, which private endpoints and emulators may not speak).
 * Async because the handler's module is loaded on first use (sdk.ts).
 */
export async function awsClientConfig(s: ClientSettings) {
  const { NodeHttpHandler } = await httpHandlerSdk();
  const timeoutMs = s.timeoutMs ?? DEFAULT_CLOUD_TIMEOUT_MS;
  return {
    region: s.region,
    ...(s.endpoint !== undefined && { endpoint: s.endpoint }),
    ...(s.credentials !== undefined && { credentials: s.credentials }),
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({
      connectionTimeout: Math.min(timeoutMs, 5_000),
      requestTimeout: timeoutMs,
      // The agents' options reach every socket they open: a lookup here judges the address of each connect.
      ...(s.lookup !== undefined && { httpAgent: { lookup: s.lookup }, httpsAgent: { lookup: s.lookup } }),
    }),
  };
}
