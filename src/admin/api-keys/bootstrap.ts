// The first API key: without one nobody could call the API, so the service creates it at start-up
// when no key exists — from API_BOOTSTRAP_TOKEN, or from a generated token printed on stdout and written
// to API_TOKEN_FILE.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createLogger } from '../../telemetry/logger.js';
import type { ApiKeyIndex } from '../auth.js';
import type { AdminContext } from '../context.js';
import { apiKeyView, type StoredApiKey } from './api-key-view.js';
import { bootstrapKeyId, hashToken, newToken } from './tokens.js';

const log = createLogger('admin-bootstrap');

/**
 * Creates the bootstrap key when the config log holds no API key. Its id derives from the token's hash,
 * so two replicas starting together with the same API_BOOTSTRAP_TOKEN write the same record (the
 * compacted topic keeps one) rather than two keys. Replicas that each generate a token cannot agree on
 * one: set API_BOOTSTRAP_TOKEN when starting several replicas on an empty config topic.
 */
export async function bootstrapApiKey(ctx: AdminContext, keys: ApiKeyIndex): Promise<void> {
  if (keys.size > 0 || ctx.store.all('api_key').length > 0) return;
  const given = ctx.config.bootstrapToken;
  const token = given ?? newToken();
  const hash = hashToken(token);
  const stored: StoredApiKey = {
    id: bootstrapKeyId(hash),
    created_at: new Date().toISOString(),
    description: 'bootstrap key',
    metadata: '',
    token_sha256: hash,
  };
  await ctx.store.exclusive(() =>
    ctx.store.commit(
      [{ kind: 'api_key', id: stored.id, data: stored }],
      [{ kind: 'api_key', action: 'created', key: stored.id, object: { ...apiKeyView(ctx, stored) } }],
      null,
    ),
  );
  log.info({ id: stored.id, fromEnvironment: given !== undefined }, 'No API key existed, so the bootstrap API key was created.');
  if (given === undefined) {
    // Printed once, on stdout, outside the JSON log lines; the file lets a person or a script read it
    // later (README.md: TOKEN=$(cat .local/api-token)) without copying it from the first start's output.
    const file = ctx.config.apiTokenFile;
    const written = await writeTokenFile(file, token);
    process.stdout.write(`API bootstrap token (API key ${stored.id}${written ? `; also in ${file}` : ''}): ${token}\n`);
  }
}

async function writeTokenFile(file: string, token: string): Promise<boolean> {
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${token}\n`, { mode: 0o600 });
    return true;
  } catch (err) {
    log.warn({ file, err }, 'The bootstrap token could not be written to API_TOKEN_FILE; copy it from the line below.');
    return false;
  }
}
