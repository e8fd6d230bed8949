// HEC's numbered answers (Splunk's "Troubleshoot HTTP Event Collector", "Possible error codes") and what
// a delivery makes of each: its DeliveryError code, or success. README.md here has the table.
import type { DeliveryErrorCode } from '../../errors.js';

export interface HecCode {
  readonly text: string;
  /** The delivery error it is; absent: success (0, and 17 "HEC is healthy" of the health endpoint). */
  readonly error?: DeliveryErrorCode;
}

export const HEC_CODES: Readonly<Record<number, HecCode>> = {
  0: { text: 'Success' },
  1: { text: 'Token disabled', error: 'DESTINATION_AUTH_FAILED' },
  2: { text: 'Token is required', error: 'DESTINATION_AUTH_FAILED' },
  3: { text: 'Invalid authorization', error: 'DESTINATION_AUTH_FAILED' },
  4: { text: 'Invalid token', error: 'DESTINATION_AUTH_FAILED' },
  5: { text: 'No data', error: 'DESTINATION_REJECTED' },
  6: { text: 'Invalid data format', error: 'DESTINATION_REJECTED' },
  // The token may not write the index: parked until the token or the destination's index is fixed.
  7: { text: 'Incorrect index', error: 'DESTINATION_NOT_FOUND' },
  8: { text: 'Internal server error', error: 'DESTINATION_SERVER_ERROR' },
  9: { text: 'Server is busy', error: 'DESTINATION_THROTTLED' },
  10: { text: 'Data channel is missing', error: 'DESTINATION_MISCONFIGURED' },
  11: { text: 'Invalid data channel', error: 'DESTINATION_MISCONFIGURED' },
  12: { text: 'Event field is required', error: 'DESTINATION_REJECTED' },
  13: { text: 'Event field cannot be blank', error: 'DESTINATION_REJECTED' },
  // ack is true but the token has indexer acknowledgement off: parked until one of them changes.
  14: { text: 'ACK is disabled', error: 'DESTINATION_MISCONFIGURED' },
  15: { text: 'Error in handling indexed fields', error: 'DESTINATION_REJECTED' },
  16: { text: 'Query string authorization is not enabled', error: 'DESTINATION_AUTH_FAILED' },
  17: { text: 'HEC is healthy' },
  18: { text: 'HEC is unhealthy, queues are full', error: 'DESTINATION_THROTTLED' },
  19: { text: 'HEC is unhealthy, ack service unavailable', error: 'DESTINATION_SERVER_ERROR' },
  20: { text: 'HEC is unhealthy, queues are full, ack service unavailable', error: 'DESTINATION_THROTTLED' },
};
