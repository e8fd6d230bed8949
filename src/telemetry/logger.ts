// JSON logs through pino; every logger redacts the paths where secrets could appear.
import { pino, type Logger } from 'pino';

/** Paths pino blanks out wherever they appear in a log line's bindings or object. */
export const REDACTED_PATHS = [
  'token',
  '*.token',
  'secret',
  '*.secret',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'cloud_secret_access_key',
  '*.cloud_secret_access_key',
  // Explicit deep paths, not wildcards: pino's deep wildcards walk into Buffers (kafkajs debug logs) and throw.
  'target.*.auth.creds.cloud_secret_access_key',
  '*.target.*.auth.creds.cloud_secret_access_key',
  'secretAccessKey',
  '*.secretAccessKey',
  'sessionToken',
  '*.sessionToken',
];

/** The service's root logger; `destination` is for tests, which read what it writes. */
export function createRootLogger(destination?: pino.DestinationStream, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  const options = {
    level,
    base: { service: 'edge-events' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}

const root: Logger = createRootLogger();

/** A child logger for one component; log messages are sentences. */
export function createLogger(component: string): Logger {
  return root.child({ component });
}

export type { Logger };
