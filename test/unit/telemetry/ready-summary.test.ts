// Unit tests of the block printed once the service is ready: each fact a person needs, and only those
// of the roles this process plays.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readySummary } from '../../../src/telemetry/ready-summary.js';

const dir = mkdtempSync(join(tmpdir(), 'ready-summary-'));
const tokenFile = join(dir, 'api-token');
writeFileSync(tokenFile, 'eek_x\n');
const base = {
  config: { roles: { api: true, worker: true }, bootstrapToken: undefined, apiTokenFile: tokenFile, fileDestinationRoot: join(dir, 'files') },
  address: 'http://127.0.0.1:8080',
  brokers: '127.0.0.1:9092',
  broker: { dataDir: join(dir, 'kafka', 'data'), logFile: join(dir, 'kafka', 'data', 'broker.log'), reused: false },
  cwd: dir,
};

describe('ready summary', () => {
  it('should name the console first, then the API, the docs, the token command, the broker and where files land, paths relative to here', () => {
    const { text, fields } = readySummary(base);
    // It says where the token is, as the Token line below does (which shows no token either).
    expect(text).toContain('edge-events is ready.\n  Console  http://127.0.0.1:8080/console/  (sign in with the token in api-token: cat api-token)\n');
    expect(text).not.toContain('eek_x');
    expect(text).toContain('  API      http://127.0.0.1:8080\n');
    expect(text).toContain('  Docs     http://127.0.0.1:8080/docs');
    expect(text).toContain('  Token    export TOKEN=$(cat ');
    expect(text).toContain('  Broker   127.0.0.1:9092  (local; data and log in kafka/data)');
    expect(text).toContain('  Files    file destinations write under files/');
    expect(fields).toEqual({ brokers: '127.0.0.1:9092', console: 'http://127.0.0.1:8080/console/', api: 'http://127.0.0.1:8080', docs: 'http://127.0.0.1:8080/docs', tokenFile, fileRoot: join(dir, 'files') });
  });

  it('should say where the token comes from when it was given, or when its file is gone', () => {
    const given = readySummary({ ...base, config: { ...base.config, bootstrapToken: 'eek_given' } }).text;
    expect(given).toContain('(sign in with the API_BOOTSTRAP_TOKEN this service was started with)');
    expect(given).not.toContain('eek_given');
    const gone = readySummary({ ...base, config: { ...base.config, apiTokenFile: join(dir, 'missing') } });
    expect(gone.text).toContain('the one shown when the first API key was created');
    expect(gone.fields.tokenFile).toBeUndefined();
  });

  it('should show a token this start generated in the block, never in the log line\'s fields', () => {
    const generated = 'eek_generatedgeneratedgeneratedgeneratedgener';
    const { text, fields } = readySummary({ ...base, generatedToken: generated });
    expect(text).toContain(`  Token    ${generated}  (generated now; also in ${tokenFile}: export TOKEN=$(cat ${tokenFile}))\n`);
    expect(JSON.stringify(fields)).not.toContain(generated);
    const unwritten = readySummary({ ...base, generatedToken: generated, config: { ...base.config, apiTokenFile: join(dir, 'missing') } });
    expect(unwritten.text).toContain(`  Token    ${generated}  (generated now; copy it: ${join(dir, 'missing')} could not be written)\n`);
    expect(JSON.stringify(unwritten.fields)).not.toContain(generated);
  });

  it('should leave out the API of a worker-only process, the files of an API-only one, and the local note of a remote broker', () => {
    const worker = readySummary({ ...base, broker: undefined, config: { ...base.config, roles: { api: false, worker: true } } }).text;
    expect(worker).not.toMatch(/Console|API|Token|Docs/);
    expect(worker).toContain('  Broker   127.0.0.1:9092\n');
    const api = readySummary({ ...base, config: { ...base.config, roles: { api: true, worker: false } } }).text;
    expect(api).not.toContain('Files');
  });
});
