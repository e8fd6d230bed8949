import { describe, expect, it } from 'vitest';
import { THROTTLE_FLOOR_MS, codeForAwsError, entryError, toCloudError } from './aws-errors.js';

function sdkError(name: string, status: number, fault: 'client' | 'server' = status >= 500 ? 'server' : 'client', message = 'm') {
  return Object.assign(new Error(message), { name, $fault: fault, $metadata: { httpStatusCode: status } });
}

describe('AWS error classification', () => {
  it('should treat throttling of every cloud kind as retryable throttling with a wait of at least a second', () => {
    for (const name of ['ProvisionedThroughputExceededException', 'ThrottlingException', 'ServiceUnavailableException', 'KMSThrottlingException']) {
      const e = toCloudError('call', sdkError(name, 400));
      expect([name, e.code, e.retryable, e.retryAfterMs]).toEqual([name, 'DESTINATION_THROTTLED', true, THROTTLE_FLOOR_MS]);
    }
  });

  it('should honour a Retry-After the answer carries', () => {
    const err = Object.assign(sdkError('ThrottlingException', 400), { $response: { headers: { 'retry-after': '3' } } });
    expect(toCloudError('call', err).retryAfterMs).toBe(3000);
  });

  it('should sort server, auth, missing-resource, network and invalid-input failures', () => {
    expect(toCloudError('c', sdkError('InternalFailure', 500)).code).toBe('DESTINATION_SERVER_ERROR');
    expect(toCloudError('c', sdkError('SomethingNew', 502)).code).toBe('DESTINATION_SERVER_ERROR');
    expect(toCloudError('c', sdkError('UnrecognizedClientException', 400))).toMatchObject({ code: 'DESTINATION_AUTH_FAILED', retryable: true });
    expect(toCloudError('c', sdkError('AccessDeniedException', 400))).toMatchObject({ code: 'DESTINATION_AUTH_FAILED', retryable: true });
    expect(toCloudError('c', sdkError('ResourceNotFoundException', 400))).toMatchObject({ code: 'DESTINATION_NOT_FOUND', retryable: true });
    expect(toCloudError('c', sdkError('InvalidParameterException', 400))).toMatchObject({ code: 'DESTINATION_REJECTED', retryable: false });
    expect(toCloudError('c', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toMatchObject({ code: 'DESTINATION_UNREACHABLE' });
    expect(toCloudError('c', Object.assign(new Error('t'), { name: 'TimeoutError' })).code).toBe('DESTINATION_TIMEOUT');
    expect(toCloudError('c', sdkError('MysteryException', 400))).toMatchObject({ code: 'WRITE_FAILED', retryable: true });
    // No identity of the service's own to assume a role with.
    expect(toCloudError('c', Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' })).code).toBe(
      'DESTINATION_AUTH_FAILED',
    );
  });

  it('should name the call, the AWS error and its message', () => {
    expect(toCloudError('Kinesis PutRecords to s', sdkError('ResourceNotFoundException', 400, 'client', 'Stream s not found')).message).toBe(
      'Kinesis PutRecords to s failed: ResourceNotFoundException: Stream s not found (HTTP 400)',
    );
  });

  it('should classify per-entry error codes the same way', () => {
    expect(entryError('w', 'ProvisionedThroughputExceededException', 'Rate exceeded for shard')).toMatchObject({ code: 'DESTINATION_THROTTLED', retryable: true });
    expect(entryError('w', 'InternalFailure', undefined)).toMatchObject({ code: 'DESTINATION_SERVER_ERROR', message: 'w: InternalFailure' });
    expect(entryError('w', 'KMSAccessDeniedException', 'no').code).toBe('DESTINATION_AUTH_FAILED');
    expect(codeForAwsError('KMSNotFoundException')).toBe('DESTINATION_AUTH_FAILED');
  });
});
