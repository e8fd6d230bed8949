// What a person needs once the service runs: where the console, the API, its docs, the broker and the token are.
import { existsSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { CONSOLE_PATH } from '../console/console-routes.js';
import type { ServiceConfig } from '../config/service-config.js';
import type { LocalBroker } from '../kafka/local-broker.js';

export interface ReadyInput {
  readonly config: Pick<ServiceConfig, 'roles' | 'bootstrapToken' | 'apiTokenFile' | 'fileDestinationRoot'>;
  /** The address the API listens on, e.g. "http://127.0.0.1:8080". */
  readonly address: string;
  readonly brokers: string;
  /** The local broker, when this process started it. */
  readonly broker: Pick<LocalBroker, 'dataDir' | 'logFile' | 'reused'> | undefined;
  /** The bootstrap token this start generated: shown in the block (a terminal), never in the log line's fields. */
  readonly generatedToken?: string | undefined;
  readonly cwd?: string;
}

export interface ReadySummary {
  /** The block printed on a terminal. */
  readonly text: string;
  /** The same facts for the JSON log line, but a generated token: log lines reach collectors (SECURITY.md "Secrets"). */
  readonly fields: Record<string, string>;
}

export function readySummary(input: ReadyInput): ReadySummary {
  const { config, address, brokers, broker } = input;
  const here = (path: string): string => {
    const rel = relative(input.cwd ?? process.cwd(), path);
    return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? path : rel;
  };
  const rows: Array<[string, string]> = [];
  const fields: Record<string, string> = { brokers };
  if (config.roles.api) {
    // The console first: it is where a person starts (src/console/console-routes.ts).
    const consoleUrl = `${address}${CONSOLE_PATH}`;
    const generated = input.generatedToken;
    const signIn = generated === undefined ? signInHint(config, here) : 'sign in with the token below';
    rows.push(['Console', `${consoleUrl}  (${signIn})`], ['API', address], ['Docs', `${address}/docs  (OpenAPI: ${address}/openapi.json)`], ['Token', generated === undefined ? tokenHint(config) : generatedHint(generated, config)]);
    Object.assign(fields, { console: consoleUrl, api: address, docs: `${address}/docs` });
    if (config.bootstrapToken === undefined && existsSync(config.apiTokenFile)) fields.tokenFile = config.apiTokenFile;
  }
  const brokerNote = broker === undefined ? '' : `  (local${broker.reused ? ', left running by the last start' : ''}; data and log in ${here(broker.dataDir)})`;
  rows.push(['Broker', `${brokers}${brokerNote}`]);
  if (config.roles.worker) {
    rows.push(['Files', `file destinations write under ${here(config.fileDestinationRoot)}/`]);
    fields.fileRoot = config.fileDestinationRoot;
  }
  rows.push(['Stop', 'Ctrl-C (drains in-flight deliveries, then stops; twice to exit at once)']);
  const text = ['', 'edge-events is ready.', ...rows.map(([name, value]) => `  ${name.padEnd(8)} ${value}`), '', ''].join('\n');
  return { text, fields };
}

function generatedHint(token: string, config: ReadyInput['config']): string {
  return existsSync(config.apiTokenFile) ? `${token}  (generated now; also in ${config.apiTokenFile}: export TOKEN=$(cat ${config.apiTokenFile}))` : `${token}  (generated now; copy it: ${config.apiTokenFile} could not be written)`;
}

function tokenHint(config: ReadyInput['config']): string {
  if (config.bootstrapToken !== undefined) return 'the API_BOOTSTRAP_TOKEN this service was started with';
  if (existsSync(config.apiTokenFile)) return `export TOKEN=$(cat ${config.apiTokenFile})`;
  return `the one shown when the first API key was created (${config.apiTokenFile} is gone)`;
}

/** What the console's sign-in asks for and where it is; the token itself is never printed here. */
function signInHint(config: ReadyInput['config'], here: (path: string) => string): string {
  if (config.bootstrapToken !== undefined) return 'sign in with the API_BOOTSTRAP_TOKEN this service was started with';
  if (existsSync(config.apiTokenFile)) return `sign in with the token in ${here(config.apiTokenFile)}: cat ${here(config.apiTokenFile)}`;
  return 'sign in with the token printed when the first API key was created';
}
