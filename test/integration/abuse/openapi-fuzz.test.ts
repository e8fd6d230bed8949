// API abuse: schemathesis fuzzes the running admin API from its own OpenAPI document with every check it
// has, in every phase (examples, coverage, fuzzing, and stateful sequences that follow the document's links),
// once per identity (the operator's key and a customer account's), and once more as two other customer
// accounts that must not see each other's objects (object_level_authorization), the three runs at once. Any failure fails the suite: no 5xx,
// no answer the document does not describe, no schema-valid request refused but for a rule the document
// lists, no schema-invalid request accepted, 405 with Allow for other methods, created resources that can be
// read, changed and deleted, and no account reading another's.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testBrokers, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { PHASES, problemCount, runSchemathesis, schemathesisVersion, summaryLine, withoutBanners, type FuzzIdentity } from './schemathesis.js';

let service: ServiceProcess | undefined;
const token = `eek_fuzz${randomBytes(16).toString('hex')}`;

/** The keys the fuzzer acts with, one run each: the operator's, then a customer account's. */
const identities: FuzzIdentity[] = [{ name: 'operator key', authorization: `Bearer ${token}` }];
/** Customer accounts whose objects the other must never get: one run acting as both. */
const peers: FuzzIdentity[] = [];

/** A new account and a key of it, made with the operator's key. */
async function accountKey(url: string, name: string): Promise<FuzzIdentity> {
  const post = async (path: string, body: unknown): Promise<{ id: string; token: string }> => {
    const r = await fetch(`${url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (r.status !== 201) throw new Error(`POST ${path} answered ${r.status}: ${await r.text()}`);
    return (await r.json()) as { id: string; token: string };
  };
  const account = await post('/accounts', { description: `fuzzed as ${name}` });
  return { name, authorization: `Bearer ${(await post('/api_keys', { account_id: account.id })).token}` };
}

/** A test event is delivered to the destination's target: fuzzed targets are hosts on the internet. */
const EXCLUDED = 'test_event';

beforeAll(async () => {
  // Before the service starts, so a machine without the fuzzer fails here, loudly, with the install command.
  schemathesisVersion();
  // The api role only: fuzzed destinations must not make a worker call out to fuzzed URLs.
  // The limit is lifted so the fuzzer's budget goes to the routes themselves (rate-limit.test.ts covers 429).
  // The create-time checks connect to what a target names: fuzzed brokers, endpoints and URLs may be any
  // address, so nothing beyond loopback may be reached (EGRESS_ONLY_CIDRS, SECURITY.md "Egress").
  service = await startService(
    serviceEnv(uniqueName('fuzz'), testBrokers(), { ROLES: 'api', API_BOOTSTRAP_TOKEN: token, API_RATE_LIMIT_PER_SECOND: '100000', API_RATE_LIMIT_BURST: '100000', EGRESS_ONLY_CIDRS: '127.0.0.0/8,::1/128' }),
  );
  // The runs go at the same time, so each acts as accounts of its own: charlie alone, alpha and bravo as peers.
  identities.push(await accountKey(service.url, 'account charlie key'));
  peers.push(await accountKey(service.url, 'account alpha key'), await accountKey(service.url, 'account bravo key'));
});

afterAll(async () => {
  await service?.stop();
});

it('schemathesis with every check and every phase should find nothing the OpenAPI document does not promise', async () => {
  const url = (service as ServiceProcess).url;
  const seed = Number(process.env.FUZZ_SEED ?? 20261122);
  const doc = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const operations = Object.entries(doc.paths).flatMap(([path, ops]) => (new RegExp(EXCLUDED).test(path) ? [] : Object.keys(ops)));

  const runs = await runSchemathesis({ url, identities, peers, maxExamples: 15, seed, excludePathRegex: EXCLUDED, timeoutMs: 360_000 });
  expect(runs.map((r) => r.identity)).toEqual(['operator key', 'account charlie key', 'peers account alpha key and account bravo key']);
  for (const run of runs) {
    process.stdout.write(`${summaryLine(run, seed)}\n`);
    const text = withoutBanners(run.output);
    expect(problemCount(run), `${run.identity}: schemathesis (seed ${seed}) reported:\n${text.slice(-12_000)}`).toBe(0);
    expect(run.code, `${run.identity}: schemathesis exited with ${run.code}:\n${text.slice(-4000)}`).toBe(0);
    // A run that reached no operation, or skipped a phase, would pass vacuously.
    expect(run.report.operations.tested, `${run.identity}: operations tested\n${text.slice(-3000)}`).toBe(operations.length);
    for (const phase of PHASES) expect([phase, run.report.phases[phase]?.status], run.identity).toEqual([phase, 'success']);
  }
  const errors = (service as ServiceProcess).logs.filter((l) => l.includes('An admin request failed.'));
  expect(errors, 'the service logged failed requests').toEqual([]);
}, 480_000);
