// Logs through pino: JSON lines, or short readable lines on a terminal; every logger redacts the paths
// where secrets could appear.
import { pino, type Logger } from 'pino';
import { prettyDestination } from './pretty-log.js';

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
  // Explicit deep paths, not wildcards: pino's deep wildcards walk into Buffers and throw.
  'target.*.auth.creds.cloud_secret_access_key',
  '*.target.*.auth.creds.cloud_secret_access_key',
  // The elasticsearch kind's auth (basic password, API key).
  'password',
  '*.password',
  'target.*.auth.basic.password',
  '*.target.*.auth.basic.password',
  'api_key',
  '*.api_key',
  'target.*.auth.api_key.api_key',
  '*.target.*.auth.api_key.api_key',
  // Azure Storage and Cloud Storage destinations' credentials.
  'account_key',
  '*.account_key',
  'sas_token',
  '*.sas_token',
  'service_account_key',
  '*.service_account_key',
  'target.*.auth.shared_key.account_key',
  '*.target.*.auth.shared_key.account_key',
  'target.*.auth.sas.sas_token',
  '*.target.*.auth.sas.sas_token',
  'target.*.service_account_key',
  '*.target.*.service_account_key',
  // The datadog kind's API key and the azure_logs_ingestion kind's client secret.
  'target.*.api_key',
  '*.target.*.api_key',
  'client_secret',
  '*.client_secret',
  'target.*.client_secret',
  '*.target.*.client_secret',
  'secretAccessKey',
  '*.secretAccessKey',
  'sessionToken',
  '*.sessionToken',
];

export type LogFormat = 'json' | 'pretty';

/**
 * LOG_FORMAT=json or pretty; otherwise readable lines when standard output is a terminal, and JSON
 * lines when it is not (production, a pipe, a file, a container's log).
 */
export function logFormat(env: NodeJS.ProcessEnv = process.env, stdout: { isTTY?: boolean } = process.stdout): LogFormat {
  if (env.LOG_FORMAT === 'json' || env.LOG_FORMAT === 'pretty') return env.LOG_FORMAT;
  return stdout.isTTY === true ? 'pretty' : 'json';
}

/** The service's root logger; `destination` is for tests, which read what it writes. */
export function createRootLogger(destination?: pino.DestinationStream, level = process.env.LOG_LEVEL ?? 'info', format: LogFormat = 'json'): Logger {
  const options = {
    level,
    base: { service: 'edge-events' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  const out = destination ?? (format === 'pretty' ? prettyDestination(process.stdout, { color: process.env.NO_COLOR === undefined }) : undefined);
  return out === undefined ? pino(options) : pino(options, out);
}

const root: Logger = createRootLogger(undefined, undefined, logFormat());

/** True when this process logs readable lines (a terminal), so it may also print a summary for a person. */
export const LOGS_FOR_A_PERSON = logFormat() === 'pretty';

/** A child logger for one component; log messages are sentences. */
export function createLogger(component: string): Logger {
  return root.child({ component });
}

export type { Logger };
