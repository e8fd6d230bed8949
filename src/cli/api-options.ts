// Where the CLI's API commands (tap, replay) find the API and the key's token: flags, then the
// environment, then the token file the service's first start writes.
import { readFileSync } from 'node:fs';
import { UsageError } from './command.js';

/** The API's base URL: --url, else EDGE_EVENTS_URL, else http://localhost:PORT (PORT default 8080), without a trailing slash. */
export function apiUrlOf(given: string | undefined, env: NodeJS.ProcessEnv): string {
  return (given ?? env.EDGE_EVENTS_URL ?? `http://localhost:${env.PORT || '8080'}`).replace(/\/+$/, '');
}

/** The API key's token: --token, else EDGE_EVENTS_TOKEN, else the file API_TOKEN_FILE (.local/api-token by default). */
export function tokenOf(given: string | undefined, env: NodeJS.ProcessEnv): string {
  const token = given ?? env.EDGE_EVENTS_TOKEN;
  if (token !== undefined && token !== '') return token;
  const file = env.API_TOKEN_FILE || '.local/api-token';
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new UsageError(`no token: pass --token, set EDGE_EVENTS_TOKEN, or run where ${file} exists (the service's first start writes it).`);
  }
}

/** The usage lines of --url and --token, the same in every API command. */
export const API_OPTIONS_USAGE = `  --url <url>         the API (default EDGE_EVENTS_URL, else http://localhost:PORT, PORT default 8080)
  --token <token>     the API key's token (default EDGE_EVENTS_TOKEN, else the file API_TOKEN_FILE,
                      .local/api-token by default, which the service's first start writes)`;
