// Builds kafkajs clients one way: brokers from a string, logs through pino, bounded retries. The kafkajs
// adapter (kafkajs-adapter.ts) uses it, and so do the tests' and benchmarks' own tools.
import {
  Kafka,
  Partitioners,
  logLevel as KafkaLogLevel,
  type ISocketFactory,
  type Producer,
  type ProducerConfig,
  type RetryOptions,
} from 'kafkajs';
import { createLogger, type Logger } from '../../telemetry/logger.js';
import { parseBrokers } from '../brokers.js';

export interface KafkaClientOptions {
  clientId: string;
  /** "host:port,host:port", as in KAFKA_BROKERS, or an already split list. */
  brokers: string | readonly string[];
  /** Defaults to a logger for component "kafka". */
  logger?: Logger;
  /** "nothing" silences the client (used by the readiness probe, which expects refused connections). */
  logLevel?: 'nothing' | 'error' | 'warn' | 'info' | 'debug';
  /**
   * Logs the client's own lines at debug: for clients whose caller reports their failures itself (the
   * kafka destinations, whose failures their destination's state reports), so a failing destination
   * does not repeat kafkajs's per-request warnings on every attempt.
   */
  quiet?: boolean;
  retry?: RetryOptions;
  connectionTimeoutMs?: number;
  /** Opens the client's sockets (connect-guard.ts); kafkajs's own when absent. */
  socketFactory?: ISocketFactory;
  requestTimeoutMs?: number;
}

/**
 * kafkajs retries each request with exponential backoff and jitter. Its default of 5 retries from
 * 300 ms gives up after about 10 s; a broker restart or a coordinator move can take longer, so allow
 * more attempts with a lower start and a 30 s cap (roughly a minute before a request fails).
 */
export const DEFAULT_RETRY: RetryOptions = { initialRetryTime: 100, retries: 10, maxRetryTime: 30_000, factor: 0.2, multiplier: 2 };

/**
 * kafkajs notices the service triggers on purpose, logged at debug instead of warn, matched exactly.
 * kafkajs warns on every idempotent producer whose retries are bounded, since its own default is
 * unlimited retries. With unlimited retries a send never fails while a broker is down, and the service
 * needs sends that fail: the destination runner's retry budget and parking, the API's deadline on a
 * config write. The risk the notice names (after the retries ran out, sequence numbers the broker no
 * longer agrees with: OUT_OF_ORDER_SEQUENCE_NUMBER, UNKNOWN_PRODUCER_ID, which kafkajs never repairs) is
 * handled where producers are used: a failed send or transaction replaces the producer
 * (LazyProducer.reset, ConfigWriter.renew), and the caller retries with the new one.
 */
const EXPECTED_NOTICES: ReadonlySet<string> = new Set(['Limiting retries for the idempotent producer may invalidate EoS guarantees']);

const LEVELS = {
  nothing: KafkaLogLevel.NOTHING,
  error: KafkaLogLevel.ERROR,
  warn: KafkaLogLevel.WARN,
  info: KafkaLogLevel.INFO,
  debug: KafkaLogLevel.DEBUG,
} as const;

export function createKafkaClient(options: KafkaClientOptions): Kafka {
  const logger = options.logger ?? createLogger('kafka');
  const level = options.logLevel ?? (logger.isLevelEnabled('debug') ? 'debug' : 'info');
  return new Kafka({
    clientId: options.clientId,
    brokers: parseBrokers(options.brokers),
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    retry: options.retry ?? DEFAULT_RETRY,
    logLevel: LEVELS[level],
    ...(options.socketFactory !== undefined && { socketFactory: options.socketFactory }),
    logCreator: () => (entry) => {
      const { message, ...fields } = entry.log;
      const bound = { kafkajs: entry.namespace, ...fields };
      if (options.quiet === true) {
        logger.debug(bound, message);
        return;
      }
      switch (entry.level) {
        case KafkaLogLevel.ERROR:
          // kafkajs logs every error response at ERROR even when it retries it (a coordinator that is
          // still loading, a leader election); the caller sees the error if the retries run out.
          if (entry.namespace === 'Connection' && message.startsWith('Response ')) logger.warn(bound, message);
          else logger.error(bound, message);
          break;
        case KafkaLogLevel.WARN:
          if (EXPECTED_NOTICES.has(message)) logger.debug(bound, message);
          else logger.warn(bound, message);
          break;
        case KafkaLogLevel.INFO:
          logger.info(bound, message);
          break;
        default:
          logger.debug(bound, message);
      }
    },
  });
}

/**
 * A producer using the Java client's murmur2 partitioner (kafkajs's DefaultPartitioner since 2.0), so a
 * key lands on the same partition whichever client wrote it. kafkajs warns at start-up when a producer
 * leaves the partitioner to its default; every producer of the service is made here, naming it.
 */
export function createProducer(kafka: Kafka, config: ProducerConfig = {}): Producer {
  return kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner, ...config });
}
