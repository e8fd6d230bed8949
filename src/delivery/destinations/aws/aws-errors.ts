// Sorts AWS SDK errors and per-entry error codes into delivery error codes, so the runner knows what to
// retry (throttling, 5xx, outages, auth and missing resources) and what to dead-letter (invalid input).
import type { DeliveryItem, ItemFailure, WriteOutcome } from '../../contract.js';
import { addressRefusalIn } from '../../../net/guarded-lookup.js';
import { DeliveryError, type DeliveryErrorCode } from '../../errors.js';

/**
 * Throttling. Kinesis answers ProvisionedThroughputExceededException (per shard: "1 MiB of data per
 * second or 1,000 records per second"); Firehose answers ServiceUnavailableException ("Back off and
 * retry the operation ... throughput limits for the delivery stream may have been exceeded");
 * CloudWatch Logs answers ThrottlingException ("5 requests per second per log stream" in older regions).
 */
const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'Throttling',
  'ThrottledException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'LimitExceededException',
  'KMSThrottlingException',
  'ServiceUnavailableException',
  'ServiceUnavailable',
  'SlowDown',
]);

const SERVER = new Set(['InternalFailure', 'InternalFailureException', 'InternalServerError', 'InternalError', 'ServiceFailure', 'ResourceInUseException']);

const AUTH = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'UnrecognizedClientException',
  'InvalidClientTokenId',
  'InvalidSignatureException',
  'SignatureDoesNotMatch',
  // S3's name for a key id it does not know.
  'InvalidAccessKeyId',
  'IncompleteSignature',
  'MissingAuthenticationToken',
  'ExpiredToken',
  'ExpiredTokenException',
  'RegionDisabledException',
  'KMSAccessDeniedException',
  'KMSDisabledException',
  'KMSInvalidStateException',
  'KMSNotFoundException',
  'KMSOptInRequired',
  'InvalidKMSResourceException',
  // The SDK found no identity of the service's own to call STS with (role auth).
  'CredentialsProviderError',
]);

// S3 answers NoSuchBucket, and HeadBucket (a body-less HEAD) a bare NotFound.
const NOT_FOUND = new Set(['ResourceNotFoundException', 'ResourceNotFound', 'NotFoundException', 'NoSuchBucket', 'NotFound']);

const NETWORK = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
const TIMEOUT = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'ETIMEDOUT', 'ESOCKETTIMEDOUT']);

/**
 * A refusal to read that still proves the credentials: AccessDenied, or a 403 with no error name of its
 * own, as S3 answers a HEAD (no body, so the SDK can only call it Unknown); a signature or key S3 did not
 * take looks the same there, and the write after it tells them apart.
 */
export function isReadDenied(err: unknown): boolean {
  const e = err as SdkErrorShape | undefined;
  const name = e?.name ?? '';
  return /^AccessDenied/.test(name) || (e?.$metadata?.httpStatusCode === 403 && !AUTH.has(name));
}

/** AWS limits are per second; a throttled call is not retried sooner than this. */
export const THROTTLE_FLOOR_MS = 1_000;

interface SdkErrorShape {
  name?: string;
  code?: string;
  message?: string;
  $fault?: string;
  $metadata?: { httpStatusCode?: number };
  $response?: { headers?: Record<string, string | undefined> };
}

/** The error code name an AWS answer or a per-entry result carries, classified. */
export function codeForAwsError(name: string, status?: number): DeliveryErrorCode {
  if (THROTTLING.has(name) || status === 429) return 'DESTINATION_THROTTLED';
  if (AUTH.has(name) || status === 401 || status === 403) return 'DESTINATION_AUTH_FAILED';
  if (NOT_FOUND.has(name)) return 'DESTINATION_NOT_FOUND';
  if (SERVER.has(name) || (status !== undefined && status >= 500)) return 'DESTINATION_SERVER_ERROR';
  if (TIMEOUT.has(name)) return 'DESTINATION_TIMEOUT';
  if (NETWORK.has(name)) return 'DESTINATION_UNREACHABLE';
  // Invalid input is refused for good; an unknown failure is retried (and parked), never dropped.
  if (/Invalid|Validation|Serialization|Malformed|TooLarge/.test(name)) return 'DESTINATION_REJECTED';
  return 'WRITE_FAILED';
}

function retryAfterMs(code: DeliveryErrorCode, err: SdkErrorShape | undefined): number | undefined {
  const header = err?.$response?.headers?.['retry-after'];
  const seconds = header === undefined ? NaN : Number(header);
  if (Number.isFinite(seconds) && seconds > 0) return seconds * 1000;
  return code === 'DESTINATION_THROTTLED' ? THROTTLE_FLOOR_MS : undefined;
}

/** A per-entry failure of a batch call (Kinesis Records[].ErrorCode, Firehose RequestResponses[].ErrorCode). */
export function entryError(what: string, errorCode: string, errorMessage: string | undefined): DeliveryError {
  const code = codeForAwsError(errorCode);
  return new DeliveryError(code, `${what}: ${errorCode}${errorMessage ? `: ${errorMessage}` : ''}`, { retryAfterMs: retryAfterMs(code, undefined) });
}

/** Any error an SDK call threw, as a DeliveryError naming the call and AWS's own error name and message. */
export function toCloudError(what: string, err: unknown): DeliveryError {
  if (err instanceof DeliveryError) return err;
  // The guarded lookup of a customer's endpoint refused the address it resolved to (SECURITY.md "Egress").
  const refused = addressRefusalIn(err);
  if (refused !== undefined) return new DeliveryError('DESTINATION_ADDRESS_REFUSED', `${what} failed: ${refused}.`, { cause: err });
  const e = (err ?? {}) as SdkErrorShape & { cause?: SdkErrorShape };
  const name = NETWORK.has(e.code ?? '') ? (e.code as string) : (e.name ?? e.code ?? 'Error');
  const status = e.$metadata?.httpStatusCode;
  let code = codeForAwsError(name, status);
  if (code === 'WRITE_FAILED' && (NETWORK.has(e.cause?.code ?? '') || NETWORK.has(e.cause?.name ?? ''))) code = 'DESTINATION_UNREACHABLE';
  if (code === 'WRITE_FAILED' && e.$fault === 'server') code = 'DESTINATION_SERVER_ERROR';
  const detail = e.message !== undefined && e.message !== '' && e.message !== name ? `: ${e.message}` : '';
  const statusText = status === undefined ? '' : ` (HTTP ${status})`;
  return new DeliveryError(code, `${what} failed: ${name}${detail}${statusText}`, { cause: err, retryAfterMs: retryAfterMs(code, e) });
}

/** One entry of a batch call's answer, in request order (Kinesis Records[], Firehose RequestResponses[]). */
export interface EntryResult {
  readonly ErrorCode?: string;
  readonly ErrorMessage?: string;
}

/**
 * The failed items of a batch whose answer lists one result per record, in request order: a result with
 * an ErrorCode was not delivered. An answer of another length cannot be matched up, so the whole batch fails.
 */
export function entryFailures(what: string, batch: readonly DeliveryItem[], results: readonly EntryResult[] | undefined): WriteOutcome {
  const answered = results ?? [];
  if (answered.length !== batch.length) {
    throw new DeliveryError('DESTINATION_SERVER_ERROR', `${what} answered ${answered.length} results for ${batch.length} records.`);
  }
  const failed: ItemFailure[] = [];
  answered.forEach((r, i) => {
    if (r.ErrorCode !== undefined && r.ErrorCode !== '') failed.push({ item: batch[i] as DeliveryItem, error: entryError(what, r.ErrorCode, r.ErrorMessage) });
  });
  return { failed };
}
