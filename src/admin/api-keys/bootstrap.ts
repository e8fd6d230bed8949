// The operator account and its first API key: without them nobody could call the API, so the service
// creates them at start-up when they are missing — the key from API_BOOTSTRAP_TOKEN, or from a generated
// token written to API_TOKEN_FILE and shown in the ready block at a terminal, never in a log line
// (SECURITY.md "Secrets"). A config log written before accounts existed
// gets the operator account at its first start after the upgrade; its keys and resources, which carry
// no account_id, are the operator's already (src/accounts/account.ts).
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { OPERATOR_ACCOUNT_ID, accountOf } from '../../accounts/account.js';
import type { ConfigWrite } from '../../configlog/config-log.js';
import { LOGS_FOR_A_PERSON, createLogger } from '../../telemetry/logger.js';
import type { StoredAccount } from '../accounts/account-view.js';
import type { AdminContext } from '../context.js';
import { apiKeyView, type StoredApiKey } from './api-key-view.js';
import { bootstrapKeyId, hashToken, newToken } from './tokens.js';

const log = createLogger('admin-bootstrap');

/**
 * Creates the operator account when it is missing, and the bootstrap key when the operator account has
 * no API key (other accounts' keys cannot manage accounts). The account's id is fixed and the key's
 * derives from the token's hash, so two replicas starting together with the same API_BOOTSTRAP_TOKEN
 * write the same records (the compacted topic keeps one of each) rather than two. Replicas that each
 * generate a token cannot agree on one: set API_BOOTSTRAP_TOKEN when starting several replicas on an
 * empty config topic.
 *
 * A generated token is written to API_TOKEN_FILE before its key is created, and returned for the ready
 * block a terminal shows (src/telemetry/ready-summary.ts). Logs go to collectors, so no log line holds
 * it: where no terminal shows it and the file cannot be written, no key is created and the start fails
 * saying so, rather than make a key nobody can read.
 */
export async function bootstrapApiKey(ctx: AdminContext, shownAtATerminal = LOGS_FOR_A_PERSON): Promise<string | undefined> {
  const { store } = ctx;
  const now = new Date().toISOString();
  const writes: ConfigWrite[] = [];
  if (store.get('account', OPERATOR_ACCOUNT_ID) === undefined) {
    const operator: StoredAccount = { id: OPERATOR_ACCOUNT_ID, created_at: now, description: 'operator account', metadata: '' };
    writes.push({ kind: 'account', id: operator.id, data: operator });
  }
  const hasKey = store.all<StoredApiKey>('api_key').some((k) => accountOf(k) === OPERATOR_ACCOUNT_ID);
  if (hasKey) {
    if (writes.length > 0) {
      await store.exclusive(() => store.commit(writes, [], null));
      log.info({ id: OPERATOR_ACCOUNT_ID }, 'The operator account was created; the API keys and resources that had no account are its own.');
    }
    return undefined;
  }
  const given = ctx.config.bootstrapToken;
  const token = given ?? newToken();
  const file = ctx.config.apiTokenFile;
  let problem: string | undefined;
  if (given === undefined) {
    problem = await writeTokenFile(file, token);
    if (problem !== undefined && !shownAtATerminal) {
      throw new Error(`The bootstrap token could not be written to API_TOKEN_FILE (${file}: ${problem}), and no terminal shows it, so no API key was made: fix the path, or set API_BOOTSTRAP_TOKEN.`);
    }
    if (problem !== undefined) log.warn({ file, problem }, 'The bootstrap token could not be written to API_TOKEN_FILE; copy it from the ready block.');
  }
  const hash = hashToken(token);
  const stored: StoredApiKey = {
    id: bootstrapKeyId(hash),
    account_id: OPERATOR_ACCOUNT_ID,
    created_at: now,
    description: 'bootstrap key',
    metadata: '',
    token_sha256: hash,
  };
  await store.exclusive(() =>
    store.commit(
      [...writes, { kind: 'api_key', id: stored.id, data: stored }],
      [{ kind: 'api_key', action: 'created', key: stored.id, object: { ...apiKeyView(ctx, stored) } }],
      null,
    ),
  );
  log.info(
    { id: stored.id, fromEnvironment: given !== undefined, ...(given === undefined && problem === undefined && { tokenFile: file }) },
    given === undefined && problem === undefined ? 'The operator account had no API key, so the bootstrap API key was created; its token is in the token file.' : 'The operator account had no API key, so the bootstrap API key was created.',
  );
  return given === undefined ? token : undefined;
}

/** Writes the token for its owner alone (README.md: TOKEN=$(cat .local/api-token)); why it could not, or undefined. */
async function writeTokenFile(file: string, token: string): Promise<string | undefined> {
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${token}\n`, { mode: 0o600 });
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? 'unknown error';
  }
}
