// Errors of the Kafka plumbing (local broker control, client setup, topic creation), each with a stable code.

/** The closed list of codes; callers branch on these, never on message text. */
export const KAFKA_SETUP_ERROR_CODES = [
  'INVALID_BROKERS', // a KAFKA_BROKERS-style string that is not a list of host:port
  'JAVA_NOT_FOUND', // no java executable to run the broker with
  'MAVEN_FAILED', // the broker's jars could not be fetched
  'BROKER_PORT_IN_USE', // the requested listener or controller port is taken
  'BROKER_FORMAT_FAILED', // kafka.tools.StorageTool format exited non-zero
  'BROKER_EXITED', // the broker process ended before it was ready
  'BROKER_START_TIMEOUT', // the broker did not answer describeCluster in time
  'TOPIC_CONFIG_MISMATCH', // an existing topic lacks a setting its spec requires (e.g. compaction)
] as const;

export type KafkaSetupErrorCode = (typeof KAFKA_SETUP_ERROR_CODES)[number];

export class KafkaSetupError extends Error {
  readonly code: KafkaSetupErrorCode;
  /** Worth retrying as is: true only where the cause is transient (a slow start, a busy port). */
  readonly retryable: boolean;

  constructor(code: KafkaSetupErrorCode, message: string, options: { cause?: unknown; retryable?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.name = 'KafkaSetupError';
    this.code = code;
    this.retryable = options.retryable ?? false;
  }
}
