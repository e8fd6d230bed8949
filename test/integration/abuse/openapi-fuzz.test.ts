// API abuse: schemathesis fuzzes the running admin API from its own OpenAPI document, with a valid key.
// No answer may be a 5xx, and every answer must be one the document describes (status, content type, schema).
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testBrokers, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { runSchemathesis, schemathesisVersion } from './schemathesis.js';

let service: ServiceProcess | undefined;
const token = `eek_fuzz${randomBytes(16).toString('hex')}`;

beforeAll(async () => {
  // Before the service starts, so a machine without the fuzzer fails here, loudly, with the install command.
  schemathesisVersion();
  // The api role only: fuzzed destinations must not make a worker call out to fuzzed URLs.
  // The limit is lifted so the fuzzer's budget goes to the routes themselves (rate-limit.test.ts covers 429).
  service = await startService(serviceEnv(uniqueName('fuzz'), testBrokers(), { ROLES: 'api', API_BOOTSTRAP_TOKEN: token, API_RATE_LIMIT_PER_SECOND: '100000', API_RATE_LIMIT_BURST: '100000' }));
});

afterAll(async () => {
  await service?.stop();
});

it('schemathesis should find no server error and no response that contradicts the OpenAPI document', async () => {
  const url = (service as ServiceProcess).url;
  const seed = Number(process.env.FUZZ_SEED ?? 20261122);
  const result = await runSchemathesis({
    url,
    token,
    maxExamples: 15,
    seed,
    // A test event is delivered to the destination's target: fuzzed targets are hosts on the internet.
    excludePathRegex: 'test_event',
    timeoutMs: 240_000,
  });
  const summary = result.output.split('\n').slice(-25).join('\n');
  // A fuzz run that reached no operation would pass vacuously.
  const tested = Number(/Tested:\s+(\d+)/.exec(result.output)?.[1] ?? 0);
  const cases = /Test cases:\s*\n\s*(.+)/.exec(result.output)?.[1]?.trim() ?? 'no count printed';
  // One line, not schemathesis's own summary: its closing banner reads like a pytest run's last line, and a
  // reader of the suite's output (CI among them) would take it for the suite's. The whole text is in the
  // failure messages below.
  process.stdout.write(`schemathesis (seed ${seed}): ${tested} operations fuzzed; test cases: ${cases}; exit ${result.code}\n`);
  expect(tested, `schemathesis (seed ${seed}) printed:\n${summary}`).toBeGreaterThanOrEqual(30);
  expect(result.code, `schemathesis (seed ${seed}) failed:\n${result.output.slice(-12_000)}`).toBe(0);
  const errors = (service as ServiceProcess).logs.filter((l) => l.includes('An admin request failed.'));
  expect(errors, 'the service logged failed requests').toEqual([]);
}, 300_000);
