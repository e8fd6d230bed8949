// The console's Replay (web/src/pages/replay.tsx) as a person uses it, in Debian's chromium through
// playwright-core against the real service on the suite's broker: traffic sent, then a subscription made,
// then the last hour replayed from the subscription's Replay action to one of its two http receivers on
// 127.0.0.1; the bar reaching done, the events arriving, a second replay cancelled, axe-core at a phone's
// width and a desktop's.
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken } from '../../../src/admin/api-keys/tokens.js';
import { runCli } from '../../../src/cli/main.js';
import { launchBrowser, seriousViolations, type Browser } from '../../support/browser.js';
import { testBrokers, uniqueName } from '../../support/kafka.js';
import { closeNow, listenOnLoopback } from '../../support/loopback-server.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const prefix = uniqueName('replay-console');
const brokers = testBrokers();
const token = newToken();
/** TCP records sent before the subscription exists. */
const SENT = 500;
let service: ServiceProcess;
let browser: Browser;
let page: Page;
const receivers: Server[] = [];
/** The event ids each receiver got. */
const got = { chosen: new Set<string>(), left: new Set<string>() };
let subscription: string;

type Json = Record<string, unknown>;
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${service.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) }, ...(body !== undefined && { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, json: text === '' ? {} : (JSON.parse(text) as Json) };
}

async function receiver(into: Set<string>): Promise<string> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      for (const line of body.split('\n').filter((l) => l.trim() !== '')) into.add((JSON.parse(line) as { event_id: string }).event_id);
      res.writeHead(200).end();
    });
  });
  receivers.push(server);
  return `http://127.0.0.1:${await listenOnLoopback(server)}/events`;
}

/** Generated TCP traffic onto this service's raw topics; resolves when all is sent. */
async function produce(count: number): Promise<void> {
  const out = { write: () => true };
  const code = await runCli(['produce', '--brokers', brokers, '--tcp-topic', `${prefix}.tcp`, '--http-topic', `${prefix}.http`, '--http-share', '0', '--count', String(count), '--rate', '5000'], { stdout: out, stderr: out } as never);
  expect(code).toBe(0);
}

beforeAll(async () => {
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 150_000 });
  if (build.status !== 0) throw new Error(`npm run build failed (${build.status ?? build.signal}):\n${build.stdout}\n${build.stderr}`);
  // No clock allowance: what the receivers get was sent before the subscription, so only a replay sends it.
  // Replays read at most 200 records a second, so the second one is still running when it is cancelled.
  service = await startService(serviceEnv(prefix, brokers, { API_BOOTSTRAP_TOKEN: token, SUBSCRIPTION_CLOCK_SKEW_MS: '0', REPLAY_RECORDS_PER_SECOND: '200' }));
  await produce(SENT);
  const chosen = await call('POST', '/event_destinations', { description: 'refill me', target: { http: { url: await receiver(got.chosen), output_type: 'ndjson' } } });
  const left = await call('POST', '/event_destinations', { description: 'leave me out', target: { http: { url: await receiver(got.left), output_type: 'ndjson' } } });
  const s = await call('POST', '/event_subscriptions', {
    description: 'made after the traffic',
    destination_ids: [chosen.json.id, left.json.id],
    sources: [{ type: 'tcp_connection_closed.v0', fields: ['conn.client_ip', 'conn.server_port'] }],
  });
  expect(s.status).toBe(201);
  subscription = String(s.json.id);
  browser = await launchBrowser();
  page = await browser.newPage();
  page.on('pageerror', (err) => process.stderr.write(`console page error: ${err.message}\n`));
  await page.goto(`${service.url}/console/`);
  await page.getByLabel('API token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('[data-who]:not([data-who=""])').waitFor();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  for (const r of receivers) await closeNow(r);
  await service?.stop();
});

describe("the console's Replay", () => {
  it('should replay the last hour to the chosen destination from the Replay action, the bar reaching done and the events arriving', async () => {
    await page.goto(`${service.url}/console/#/subscriptions`);
    await page.getByRole('link', { name: 'Replay: made after the traffic' }).click();
    await page.getByRole('heading', { name: 'Replay: made after the traffic' }).waitFor();
    // The presets, the last hour first; every destination checked at first.
    expect(await page.getByLabel('Last hour').isChecked()).toBe(true);
    for (const label of ['Last 24 hours', 'Since the subscription was created', 'Custom range']) await page.getByLabel(label).waitFor();
    expect([await page.getByLabel('refill me').isChecked(), await page.getByLabel('leave me out').isChecked()]).toEqual([true, true]);
    await page.getByText('No replay yet').waitFor();
    await page.getByLabel('leave me out').uncheck();
    await page.getByRole('button', { name: 'Start replay' }).click();
    const progress = page.locator('.replay-progress[data-replay]');
    // The bar moves: seen running part way (about 2.5 s of reading at 200 records/s), then done at 100%.
    await progress.locator('[data-replay-state="running"]').waitFor({ timeout: 20_000 });
    await progress.locator('[data-replay-state="done"]').waitFor({ timeout: 30_000 });
    const bar = progress.getByRole('progressbar', { name: 'Replay progress' });
    expect(await bar.getAttribute('aria-valuenow')).toBe('100');
    expect(await progress.locator('[data-fraction]').textContent()).toBe('100%');
    const delivered = Number((await progress.locator('[data-delivered]').textContent())?.replaceAll(/\D/g, ''));
    expect(delivered).toBe(SENT);
    await expect.poll(() => got.chosen.size, { timeout: 15_000 }).toBe(SENT);
    expect(got.left.size).toBe(0);
    // The API agrees, and names only the chosen destination.
    const id = await progress.getAttribute('data-replay');
    const r = await call('GET', `/event_subscriptions/${subscription}/replays/${String(id)}`);
    expect(r.json.state).toBe('done');
    expect((r.json.destinations as Json[]).map((d) => d.id)).toHaveLength(1);
    // It is listed among the past replays with its outcome.
    await page.getByRole('listitem', { name: `Replay ${String(id)}: done` }).waitFor();
  }, 90_000);

  it('should cancel a running replay with Cancel, and list it as cancelled', async () => {
    // More records in the range, so this replay runs for seconds at 200 a second, long enough to be cancelled.
    await produce(2000);
    await page.getByLabel('Last 24 hours').check();
    await page.getByRole('button', { name: 'Start replay' }).click();
    const progress = page.locator('.replay-progress[data-state="running"]');
    await progress.waitFor({ timeout: 20_000 });
    // Its rate and estimated end are shown while it runs.
    await expect.poll(async () => progress.getByText(/records\/s$/).count(), { timeout: 10_000 }).toBe(1);
    const id = await progress.getAttribute('data-replay');
    await progress.getByRole('button', { name: 'Cancel replay' }).click();
    await page.getByRole('listitem', { name: `Replay ${String(id)}: cancelled` }).waitFor({ timeout: 15_000 });
    expect((await call('GET', `/event_subscriptions/${subscription}/replays/${String(id)}`)).json.state).toBe('cancelled');
  }, 60_000);

  it("should show the API's sentence for an empty custom range", async () => {
    await page.getByLabel('Custom range').check();
    await page.getByLabel('From', { exact: true }).fill('2026-01-02T10:00');
    await page.getByLabel('To', { exact: true }).fill('2026-01-02T09:00');
    await page.getByRole('button', { name: 'Start replay' }).click();
    const problem = page.locator('#replay-problem');
    await problem.waitFor();
    expect(await problem.getAttribute('data-error-code')).toBe('replay_range_invalid');
    expect(await problem.textContent()).toMatch(/^The replay range is empty/);
  });

  it('should pass axe-core at a phone’s width and a desktop’s, nothing wider than the screen', async () => {
    const found: string[] = [];
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 860 });
      await page.goto('about:blank');
      await page.goto(`${service.url}/console/#/subscriptions/${subscription}/replay`);
      await page.locator('.replays').waitFor();
      const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
      if (overflow > 0) found.push(`at ${width} px: ${overflow} px wider than the screen`);
      for (const v of await seriousViolations(page)) found.push(`at ${width} px: ${v}`);
      await page.getByLabel('Custom range').check();
      for (const v of await seriousViolations(page)) found.push(`at ${width} px, custom range: ${v}`);
    }
    expect(found).toEqual([]);
  }, 60_000);
});
