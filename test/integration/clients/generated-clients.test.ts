// Clients generated from the document the running service serves, as a customer's developer would make
// them, used against that service (README.md "Clients"): TypeScript (openapi-typescript + openapi-fetch)
// and Python (openapi-python-client) each run the README's walk (a file destination, a subscription,
// traffic, the events in the file, the destination's status ok), read an error's error_code and handle a
// 404; Python and Go create a datadog and an azure_logs_ingestion destination through their named target
// classes; Go (OpenAPI Generator) compiles and creates a destination and a subscription. Every generator
// makes every operation, with no warning of anything skipped; the document passes OpenAPI Generator's
// validate and Redocly's recommended rules (redocly.yaml). The clients are generated once per run, under
// .local/clients/ (inside the checkout, where the TypeScript client finds openapi-fetch).
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.js';
import { DESTINATION_KINDS } from '../../../src/delivery/destinations/kinds.js';
import { openapiGenerator } from '../../support/openapi-generator.js';
import { testBrokers, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLIENTS = join(ROOT, 'test', 'clients');
/** The object store kinds' request and response schemas, each a class or type of every client. */
const token = `eek_clients${randomBytes(16).toString('hex')}`;
const prefix = uniqueName('clients');
/** The vendor destinations are stored unchecked; anything that still tried one would reach loopback's discard port only (serviceEnv). */
const DISCARD = 'http://127.0.0.1:9';

let service: ServiceProcess;
let work: string;
let files: string;
let doc: { paths: Record<string, Record<string, { operationId: string }>> };
let operationIds: string[];

/** Every kind's named target schemas (its request's and its response's): each is a class of every generated client. */
const KIND_SCHEMAS = DESTINATION_KINDS.flatMap((k) => [k.schema.request.title, k.schema.response.title].map(String));
const snakeOf = (name: string): string => name.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase();

/** Runs a command to its end; throws with its output when it fails. */
function run(command: string, args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): SpawnSyncReturns<string> {
  const r = spawnSync(command, args, { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...opts.env }, encoding: 'utf8', timeout: opts.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.error !== undefined || r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stdout}\n${r.stderr}`.slice(-6000));
  return r;
}

/** The last line of a walk's output, which is its JSON summary. */
const summary = (r: SpawnSyncReturns<string>): Record<string, unknown> => JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;

/** Lines of a generator's output that say something was left out. */
const skipped = (output: string): string[] => output.split('\n').filter((l) => /warn|error/i.test(l) && /skip|not supported|unsupported|ignor|remov|unable|invalid/i.test(l));

/** 1,000 TCP connection records, about a quarter of which match the walk's filter (the README's produce). */
async function produceTraffic(): Promise<void> {
  const out = new PassThrough();
  const text: string[] = [];
  out.on('data', (c: Buffer) => text.push(c.toString()));
  const args = ['produce', '--rate', '1000', '--count', '1000', '--http-share', '0', '--client-network', '10.0.0.0/8', '--tcp-port', '443', '--brokers', testBrokers(), '--topic', `${prefix}.tcp`];
  const code = await runCli(args, { stdin: new PassThrough(), stdout: out, stderr: out });
  if (code !== 0) throw new Error(`produce exited with ${code}: ${text.join('')}`);
}

beforeAll(async () => {
  files = mkdtempSync(join(tmpdir(), 'edge-events-clients-files-'));
  service = await startService(serviceEnv(prefix, testBrokers(), { API_BOOTSTRAP_TOKEN: token, FILE_DESTINATION_ROOT: files }));
  doc = (await (await fetch(`${service.url}/openapi.json`)).json()) as typeof doc;
  operationIds = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
  mkdirSync(join(ROOT, '.local', 'clients'), { recursive: true });
  work = mkdtempSync(join(ROOT, '.local', 'clients', 'run-'));
  writeFileSync(join(work, 'openapi.json'), JSON.stringify(doc));
});

afterAll(async () => {
  await service?.stop();
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
  if (files !== undefined) rmSync(files, { recursive: true, force: true });
});

describe('the served OpenAPI document', () => {
  it("should pass OpenAPI Generator's validate with no error and Redocly's recommended rules with no problem", () => {
    expect(openapiGenerator(['validate', '-i', join(work, 'openapi.json')])).toContain('No validation issues detected.');
    const lint = run(join(ROOT, 'node_modules', '.bin', 'redocly'), ['lint', join(work, 'openapi.json'), '--format', 'stylish']);
    expect(`${lint.stdout}${lint.stderr}`).toMatch(/Your API description is valid\. 🎉\n(?!You have)/);
  });
});

describe('clients generated from the served document', () => {
  // TypeScript and Python each create their destination and subscription, then the traffic is produced
  // once for both, then each checks what arrived.
  const walks: Record<'typescript' | 'python', { check: (destination: string) => SpawnSyncReturns<string>; created?: Record<string, string> }> = {
    typescript: {
      check: (destination) => run(process.execPath, ['--import', 'tsx', join(work, 'typescript', 'walk.ts'), 'check', service.url, token, destination]),
    },
    python: {
      check: (destination) => run('python3', [join(CLIENTS, 'python', 'walk.py'), 'check', service.url, token, destination], { env: { PYTHONPATH: join(work, 'python') } }),
    },
  };

  it('TypeScript (openapi-typescript + openapi-fetch): every operation is typed with no warning, and the walk type-checks strictly and creates its destination and subscription', () => {
    const dir = join(work, 'typescript');
    mkdirSync(dir);
    const out = run(join(ROOT, 'node_modules', '.bin', 'openapi-typescript'), [join(work, 'openapi.json'), '-o', join(dir, 'schema.d.ts')]);
    expect(`${out.stdout}${out.stderr}`).not.toMatch(/warn|⚠|skip/i);
    copyFileSync(join(CLIENTS, 'typescript', 'walk.ts'), join(dir, 'walk.ts'));
    const types = readFileSync(join(dir, 'schema.d.ts'), 'utf8');
    for (const id of operationIds) expect(types, id).toContain(`${id}: {`);
    for (const name of KIND_SCHEMAS) expect(types, name).toContain(`${name}: {`);
    run(join(ROOT, 'node_modules', '.bin', 'tsc'), ['--noEmit', '--strict', '--noUncheckedIndexedAccess', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node', '--skipLibCheck', join(dir, 'walk.ts')]);
    const created = summary(run(process.execPath, ['--import', 'tsx', join(dir, 'walk.ts'), 'create', service.url, token, 'typescript']));
    expect(created).toEqual({ destination: expect.stringMatching(/^ed_/), subscription: expect.stringMatching(/^esb_/) });
    walks.typescript.created = created as Record<string, string>;
  });

  it('Python (openapi-python-client): every operation is generated with no warning, and the walk creates its destination and subscription', () => {
    const dir = join(work, 'python');
    mkdirSync(dir);
    const out = run('openapi-python-client', ['generate', '--path', join(work, 'openapi.json'), '--output-path', join(dir, 'edge_events_client'), '--meta', 'none']);
    expect(`${out.stdout}${out.stderr}`).not.toMatch(/warning|unable to process/i);
    const modules = readdirSync(join(dir, 'edge_events_client', 'api'), { recursive: true }).map(String);
    const snake = (id: string): string => id.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    expect(operationIds.filter((id) => !modules.some((m) => m.endsWith(`/${snake(id)}.py`)))).toEqual([]);
    // A nullable choice is one enum class, not a copy for each type of a type list (…Type1, …Type2Type1, …Type3Type1).
    const models = readdirSync(join(dir, 'edge_events_client', 'models')).map(String);
    expect(models.filter((m) => /_type_\d+_type_\d+\.py$/.test(m))).toEqual([]);
    expect(KIND_SCHEMAS.filter((name) => !models.includes(`${snakeOf(name)}.py`))).toEqual([]);
    const created = summary(run('python3', [join(CLIENTS, 'python', 'walk.py'), 'create', service.url, token, 'python'], { env: { PYTHONPATH: dir } }));
    expect(created).toEqual({ destination: expect.stringMatching(/^ed_/), subscription: expect.stringMatching(/^esb_/) });
    walks.python.created = created as Record<string, string>;
  });

  it('Python: the generated DatadogTarget and AzureLogsIngestionTarget create their destinations, answered with their secrets null', () => {
    expect(walks.python.created, 'the Python client was generated').toBeDefined();
    const seen = summary(run('python3', [join(CLIENTS, 'python', 'walk.py'), 'vendors', service.url, token, DISCARD], { env: { PYTHONPATH: join(work, 'python') } }));
    expect(seen).toEqual({
      datadog: { id: expect.stringMatching(/^ed_/), secret: null, named: 'edge-python' },
      azure_logs_ingestion: { id: expect.stringMatching(/^ed_/), secret: null, named: 'Custom-EdgeEvents' },
    });
  });

  it('TypeScript and Python, after traffic: the destination is ok with the matching events in its file, a refusal reads as its error_code, a missing destination as a 404', async () => {
    expect(walks.typescript.created, 'the TypeScript walk created its destination').toBeDefined();
    expect(walks.python.created, 'the Python walk created its destination').toBeDefined();
    await produceTraffic();
    for (const [language, walk] of Object.entries(walks)) {
      const seen = summary(walk.check(walk.created?.destination ?? ''));
      expect(seen, language).toEqual({ state: 'ok', events: expect.any(Number), refused: [400, 'unknown_reference'], missing: [404, 'not_found'] });
      expect(seen.events, language).toBeGreaterThan(0);
    }
  });

  it('Go (OpenAPI Generator): every operation is generated with no warning of anything skipped, the package builds, and a program creates a destination and a subscription', async () => {
    const dir = join(work, 'go');
    const output = openapiGenerator(['generate', '-i', join(work, 'openapi.json'), '-g', 'go', '-o', join(dir, 'client'), '--git-user-id', 'edge-events', '--git-repo-id', 'go-client', '-p', 'packageName=edgeevents']);
    expect(skipped(output)).toEqual([]);
    const api = readdirSync(join(dir, 'client'))
      .filter((f) => f.startsWith('api_'))
      .map((f) => readFileSync(join(dir, 'client', f), 'utf8'));
    for (const id of operationIds) expect(api.join('\n'), id).toContain(`) ${id[0]?.toUpperCase()}${id.slice(1)}(ctx context.Context`);
    const goModels = readdirSync(join(dir, 'client'));
    expect(KIND_SCHEMAS.filter((name) => !goModels.includes(`model_${snakeOf(name)}.go`))).toEqual([]);
    mkdirSync(join(dir, 'walk'));
    copyFileSync(join(CLIENTS, 'go', 'main.go'), join(dir, 'walk', 'main.go'));
    writeFileSync(join(dir, 'walk', 'go.mod'), 'module walk\n\ngo 1.23\n\nrequire github.com/edge-events/go-client v0.0.0\n\nreplace github.com/edge-events/go-client => ../client\n');
    const env = { GOFLAGS: '-mod=mod' };
    run('go', ['build', './...'], { cwd: join(dir, 'client'), env, timeoutMs: 300_000 });
    run('go', ['build', '-o', 'walk', '.'], { cwd: join(dir, 'walk'), env, timeoutMs: 300_000 });
    const created = summary(run(join(dir, 'walk', 'walk'), [service.url, token, 'go', DISCARD]));
    expect(created).toEqual({ destination: expect.stringMatching(/^ed_/), subscription: expect.stringMatching(/^esb_/), datadog: expect.stringMatching(/^ed_/), azure_logs_ingestion: expect.stringMatching(/^ed_/) });
    for (const kind of ['datadog', 'azure_logs_ingestion']) {
      const dest = await fetch(`${service.url}/event_destinations/${String(created[kind])}`, { headers: { authorization: `Bearer ${token}` } });
      expect(Object.keys(((await dest.json()) as { target: Record<string, unknown> }).target), kind).toEqual([kind]);
    }
    const got = await fetch(`${service.url}/event_subscriptions/${String(created.subscription)}`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await got.json()) as { destinations: { id: string }[] }).destinations.map((d) => d.id)).toEqual([created.destination]);
  });
});
