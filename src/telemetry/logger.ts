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
  '*.*.cloud_secret_access_key',
  '*.*.*.cloud_secret_access_key',
  '*.*.*.*.cloud_secret_access_key',
  'secretAccessKey',
  '*.secretAccessKey',
  'sessionToken',
  '*.sessionToken',
];

const root: Logger = pino({
  level: process.env.LOG_LEVEL ?? 'info',
  base: { service: 'edge-events' },
  redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  timestamp: pino.stdTimeFunctions.isoTime,
});

/** A child logger for one component; log messages are sentences. */
export function createLogger(component: string): Logger {
  return root.child({ component });
}

export type { Logger };
