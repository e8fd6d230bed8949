// The web console (web/README.md) as a person uses it, in a real browser (Debian's chromium through
// playwright-core) against the real service on the suite's broker: the README walk through the forms
// with `produce` and the live tap, a filter refused at its column, a failing http destination, what a
// customer's key is offered, and axe-core's check of every page. The screenshots are taken here: to an
// ignored folder in the suite, to docs/console/ (shown by the README) by `npm run console:screenshots`.
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken } from '../../../src/admin/api-keys/tokens.js';
import { runCli } from '../../../src/cli/main.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import { seededRecord } from '../../../src/traffic/seeded-records.js';
import { launchBrowser, seriousViolations, type Browser } from '../../support/browser.js';
import { AzureContractReceiver } from '../../support/azure-contract-receiver.js';
import { DatadogContractReceiver } from '../../support/datadog-contract-receiver.js';
import { AZURITE_KEY, Azurite } from '../../support/azurite.js';
import { startDnsServer, type TestDnsServer } from '../../support/dns-server.js';
import { FakeGcs } from '../../support/fake-gcs.js';
import { BearerGate, GoogleTokenReceiver } from '../../support/google-token-receiver.js';
import { testBrokers, toolProducer, toolRecord, uniqueName } from '../../support/kafka.js';
import { closeNow, listenOnLoopback } from '../../support/loopback-server.js';
import { OpenSearchFront } from '../../support/opensearch/security-front.js';
import { searchAll, startOpenSearch } from '../../support/opensearch/opensearch-node.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { SplunkHecReceiver } from '../../support/splunk-hec-receiver.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** The README's screenshots, which `npm run console:screenshots` refreshes (CONSOLE_SCREENSHOTS=docs/console). */
const README_SHOTS = join(ROOT, 'docs', 'console');
/** Where this run's screenshots go: an ignored folder unless asked, so the suite leaves the checkout as it was. */
const SHOTS = process.env.CONSOLE_SCREENSHOTS === undefined ? join(ROOT, '.local', 'console-screenshots') : resolve(ROOT, process.env.CONSOLE_SCREENSHOTS);
/** The README walk's filter. */
const WALK_FILTER = 'ev.conn.server_port == 443 && cidr("10.0.0.0/8").containsIP(ev.conn.client_ip)';
const WALK_FIELDS = ['conn.client_ip', 'conn.server_name', 'conn.bytes_in'];
/** How long a destination's state may take to show: the workers report a change within a second or two, the page asks every 2 s. */
const STATE_DEADLINE_MS = 15_000;
const SIGNING_SECRET = 'console-test-signing-secret-0123456789';
const TCP = 'tcp_connection_closed.v0';

const prefix = uniqueName('console');
const brokers = testBrokers();
const token = newToken();
const fileRoot = mkdtempSync(join(tmpdir(), 'console-files-'));
let service: ServiceProcess;
/** The service's DNS resolver, for reserved domains' TXT records. */
let dns: TestDnsServer;
let browser: Browser;
let page: Page;
const receivers: Server[] = [];
const DD_KEY = '0123456789abcdef0123456789abcdef';
const AZURE_APP = { tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47', clientId: '00000000-1111-2222-3333-444444444444', clientSecret: 'Abc8Q~console-secret' };
const AZURE_RULE = 'dcr-0123456789abcdef0123456789abcdef';
const datadog = new DatadogContractReceiver(new Set([DD_KEY]));
const azure = new AzureContractReceiver([AZURE_APP], [{ ruleId: AZURE_RULE, streams: ['Custom-EdgeEvents'], publishers: [AZURE_APP.clientId] }]);
/** The Cloud Storage emulator behind a gate taking only the contract token receiver's tokens: the service's GCS_API_URL and GCS_TOKEN_URL. */
let gcs: FakeGcs;
const googleTokens = new GoogleTokenReceiver();
let gcsGate: BearerGate;

type Json = Record<string, unknown>;
async function call(method: string, path: string, body?: unknown, bearer = token): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text === '' ? {} : (JSON.parse(text) as Json) };
}

/** Generated traffic as the README's `produce` sends it, onto this service's raw topics; resolves when all is sent. */
async function produce(args: readonly string[]): Promise<void> {
  const out = { write: () => true };
  const code = await runCli(['produce', '--brokers', brokers, '--tcp-topic', `${prefix}.tcp`, '--http-topic', `${prefix}.http`, ...args], { stdout: out, stderr: out } as never);
  expect(code).toBe(0);
}

/** Traffic records with the Kafka times given (the events' times), onto this service's raw topic, in the order given. */
async function produceAt(times: readonly number[], seed: number): Promise<void> {
  const producer = toolProducer(brokers, 'console-live');
  try {
    const messages = times.map((timestamp, i) => {
      const encoded = encodeRecord(TCP, seededRecord(TCP, seed + i), 'avro');
      return toolRecord(`${prefix}.tcp`, { key: `live-${seed + i}`, value: encoded.value, headers: { ...encoded.headers } as Record<string, string>, timestamp });
    });
    await producer.send({ messages });
  } finally {
    await producer.close();
  }
}

async function signIn(p: Page, key: string): Promise<void> {
  await p.goto(`${service.url}/`);
  // A browser asking for / is sent to the console, which asks for the token first.
  expect(new URL(p.url()).pathname).toBe('/console/');
  await p.getByLabel('API token').fill(key);
  await p.getByRole('button', { name: 'Sign in' }).click();
  await p.locator('[data-who]:not([data-who=""])').waitFor();
}

/** Opens a page of the console afresh (a new document in the same tab, which keeps its sessionStorage). */
async function open(p: Page, route: string): Promise<void> {
  await p.goto('about:blank');
  await p.goto(`${service.url}/console/#/${route}`);
  await p.locator('main h1').waitFor();
  // Loaded: no placeholder left (a page may have several, e.g. a destination's status and its charts).
  await expect.poll(() => p.locator('[aria-busy="true"]').count(), { timeout: 30_000 }).toBe(0);
}

/** The header scrolls with the page in screenshots, so it covers nothing; carets do not blink. */
const STILL = '.top { position: static !important; } * { caret-color: transparent !important; }';
/** A whole page is taken from its top: scrolled down, the static header was drawn over the middle of it. */
async function shoot(p: Page, name: string, fullPage = false): Promise<Buffer> {
  if (fullPage) await p.evaluate('window.scrollTo(0, 0)');
  return p.screenshot({ path: join(SHOTS, `${name}.png`), fullPage, animations: 'disabled', style: STILL });
}

beforeAll(async () => {
  // The console as this checkout builds it (npm start does the same; a no-op when nothing changed).
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, encoding: 'utf8', timeout: 150_000 });
  if (build.status !== 0) throw new Error(`npm run build failed (${build.status ?? build.signal}):\n${build.stdout}\n${build.stderr}`);
  mkdirSync(SHOTS, { recursive: true });
  dns = await startDnsServer();
  await datadog.start();
  await azure.start();
  gcs = await FakeGcs.start();
  await googleTokens.start();
  gcsGate = new BearerGate(googleTokens, gcs.url);
  await gcsGate.start();
  service = await startService(
    serviceEnv(prefix, brokers, {
      API_BOOTSTRAP_TOKEN: token,
      FILE_DESTINATION_ROOT: fileRoot,
      DNS_RESOLVER: dns.address,
      DATADOG_BASE_URL: datadog.baseUrl,
      AZURE_AUTHORITY_URL: azure.authorityUrl,
      GCS_API_URL: gcsGate.url,
      GCS_TOKEN_URL: googleTokens.url,
      // History "minutes" of 3 s, so that a chart's points close within a test; an hour is then 1,200 of them.
      HISTORY_MINUTE_MS: '3000',
    }),
  );
  browser = await launchBrowser();
  page = await browser.newPage();
  // Every layout shift of the page, for the check that loading data moves nothing.
  await browser.context.addInitScript({
    content: `window.layoutShift = 0; new PerformanceObserver((list) => { for (const e of list.getEntries()) if (!e.hadRecentInput) window.layoutShift += e.value; }).observe({ type: 'layout-shift', buffered: true });`,
  });
  page.on('pageerror', (err) => process.stderr.write(`console page error: ${err.message}\n`));
}, 240_000);

afterAll(async () => {
  await browser?.close();
  for (const r of receivers) await closeNow(r);
  await service?.stop();
  await dns?.stop();
  await datadog.stop();
  await azure.stop();
  await gcsGate?.stop();
  await googleTokens.stop();
  await gcs?.stop();
  rmSync(fileRoot, { recursive: true, force: true });
});

describe('the web console', () => {
  it("should take its screenshots to a folder git ignores, unless asked to refresh the README's", () => {
    const ignored = spawnSync('git', ['check-ignore', '-q', join(SHOTS, 'live.png')], { cwd: ROOT }).status === 0;
    expect(SHOTS === README_SHOTS || ignored).toBe(true);
  });

  it('should leave the API, its document and its docs page as they were, and serve the console with its caching', async () => {
    const program = await fetch(`${service.url}/`);
    expect(program.status).toBe(401);
    expect(((await program.json()) as Json).error_code).toBe('unauthorized');
    expect((await fetch(`${service.url}/openapi.json`)).headers.get('content-type')).toMatch(/^application\/json/);
    expect((await fetch(`${service.url}/docs/`)).status).toBe(200);
    const index = await fetch(`${service.url}/console/`);
    expect(index.headers.get('cache-control')).toBe('no-cache');
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(await index.text())?.[1];
    const asset = await fetch(`${service.url}${String(script)}`);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('should walk the README in the browser: token, file destination and subscription through the forms, events arriving live while produce runs, the destination turning ok', async () => {
    const signInPage = await browser.newPage();
    await signInPage.goto(`${service.url}/`);
    await signInPage.getByLabel('API token').waitFor();
    await shoot(signInPage, 'sign-in');
    await signInPage.close();

    await signIn(page, token);
    await page.getByRole('link', { name: 'New destination' }).click();
    await page.getByLabel('Description').fill('archive');
    await page.getByLabel('Kind (required)').selectOption('file');
    await page.getByLabel('Path (required)').fill('archive/events.ndjson');
    // A nullable choice offers its values and "(default)", never a literal null.
    expect(await page.getByLabel('Output type').locator('option').allTextContents()).toEqual(['(default)', 'ndjson', 'csv']);
    await shoot(page, 'destination-form');
    await page.getByRole('button', { name: 'Create destination' }).click();
    const card = page.getByRole('listitem', { name: 'archive' });
    await card.locator('[data-state="unknown"]').waitFor();

    await page.getByRole('link', { name: 'Subscriptions' }).click();
    await page.getByRole('link', { name: 'New subscription' }).click();
    await page.getByLabel('Description').fill('TLS from 10/8');
    await page.getByLabel('archive (file)').check();
    await page.getByLabel('Event type (required)').selectOption('tcp_connection_closed.v0');
    for (const field of WALK_FIELDS) await page.getByLabel(field, { exact: true }).check();
    await page.getByLabel('Filter (CEL)').fill(WALK_FILTER);
    await shoot(page, 'subscription-form', true);
    await page.getByRole('button', { name: 'Create subscription' }).click();
    const subCard = page.getByRole('listitem', { name: 'TLS from 10/8' });
    await subCard.waitFor();
    const subId = await subCard.getAttribute('data-subscription');

    await page.getByRole('link', { name: 'Watch live: TLS from 10/8' }).click();
    // The tap is open once a worker listens; then the traffic starts, as the README's `produce &`.
    await page.locator('.notes li', { hasText: 'listening on' }).waitFor({ timeout: 20_000 });
    const started = Date.now();
    const producing = produce(['--rate', '200', '--count', '2000', '--http-share', '0', '--client-network', '10.0.0.0/8', '--tcp-port', '443']);
    await page.locator('.event-row').nth(4).waitFor({ timeout: 30_000 });
    const firstFiveMs = Date.now() - started;
    // A column per field the subscription delivers, after the time and the type.
    const delivered = ((await call('GET', `/event_subscriptions/${String(subId)}`)).json.sources as { fields: string[] }[])[0]?.fields ?? [];
    expect([...delivered].sort()).toEqual([...WALK_FIELDS].sort());
    expect(await page.locator('.event-table thead th').allTextContents()).toEqual(['Open', 'Time', 'Type', ...delivered]);
    expect(new Set(await page.locator('.event-row td:nth-child(3)').allTextContents())).toEqual(new Set(['tcp_connection_closed.v0']));
    for (const ip of await page.locator('.event-row td[data-field="conn.client_ip"]').allTextContents()) expect(ip).toMatch(/^10\./);
    await shoot(page, 'live');
    await producing;

    await page.getByRole('link', { name: 'Destinations' }).click();
    await card.locator('[data-state="ok"]').waitFor({ timeout: STATE_DEADLINE_MS });
    expect(await card.locator('.facts time').first().getAttribute('datetime')).not.toBeNull();
    expect(subId).toMatch(/^esb_/);

    // Pause and resume, as the API then answers.
    await page.getByRole('link', { name: 'Subscriptions' }).click();
    await subCard.getByRole('button', { name: 'Pause TLS from 10/8' }).click();
    await subCard.getByText('paused', { exact: true }).waitFor();
    expect((await call('GET', `/event_subscriptions/${String(subId)}`)).json.enabled).toBe(false);
    await subCard.getByRole('button', { name: 'Resume TLS from 10/8' }).click();
    await subCard.getByText('enabled', { exact: true }).waitFor();
    expect((await call('GET', `/event_subscriptions/${String(subId)}`)).json.enabled).toBe(true);
    process.stderr.write(`console walk: 5 events shown live ${firstFiveMs} ms after produce started.\n`);
  });

  it('should show Live as a log viewer: rows in event-time order however they arrive, held still while paused, searched, opened, and downloaded as NDJSON', async () => {
    const fields = ['conn.client_ip', 'conn.server_port'];
    const dest = await call('POST', '/event_destinations', { description: 'live viewer', target: { file: { path: 'live/viewer.ndjson' } } });
    const sub = await call('POST', '/event_subscriptions', { description: 'live viewer', destination_ids: [dest.json.id], sources: [{ type: 'tcp_connection_closed.v0', fields }] });
    expect([dest.status, sub.status]).toEqual([201, 201]);
    // A tab of its own, signed in, so that the test passes alone too (-t).
    const page = await browser.newPage();
    await signIn(page, token);
    await open(page, `live/${String(sub.json.id)}`);
    await page.locator('.notes li', { hasText: 'listening on' }).waitFor({ timeout: 20_000 });
    const rows = page.locator('.event-row');
    const times = async (): Promise<number[]> => (await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-time')))));
    // Records of a minute ago first, then records of five minutes before them (their Kafka time is the
    // event time): the earlier events go above the ones that arrived first.
    const later = Date.now() - 60_000;
    const earlier = later - 5 * 60_000;
    await produceAt(Array.from({ length: 60 }, (_, i) => later + i * 10), 7_000);
    await rows.nth(59).waitFor({ timeout: 30_000 });
    await produceAt(Array.from({ length: 40 }, (_, i) => earlier + i * 10), 8_000);
    await rows.nth(99).waitFor({ timeout: 30_000 });
    const ordered = await times();
    expect(ordered).toEqual([...ordered].sort((a, b) => a - b));
    expect(ordered.slice(0, 40).every((t) => t < later)).toBe(true);
    expect(ordered.slice(40).every((t) => t >= later)).toBe(true);
    // The rate chart is drawn on its canvas, with its words beside it.
    const rate = page.locator('figure[data-chart="Events per second"]');
    expect(await rate.locator('canvas').count()).toBeGreaterThan(0);
    expect(await rate.getAttribute('aria-describedby')).not.toBeNull();

    // Paused, the table holds still while the tap goes on; resumed, it shows what came meanwhile.
    await page.getByRole('button', { name: 'Pause', exact: true }).click();
    await produce(['--rate', '40', '--count', '20', '--http-share', '0', '--seed', '9']);
    const status = page.locator('.tap-status');
    await expect.poll(async () => Number(await status.getAttribute('data-waiting')), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(await rows.count()).toBe(100);
    await shoot(page, 'live-paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    const arrived = async (): Promise<number> => Number(await page.locator('.count').getAttribute('data-count'));
    await expect.poll(async () => (await rows.count()) === (await arrived()) && (await arrived()) > 100).toBe(true);

    // The download holds what was tapped, in the table's order.
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download NDJSON' }).click()]);
    const saved = readFileSync(String(await file.path()), 'utf8').trimEnd().split('\n');
    const events = saved.map((line) => JSON.parse(line) as { event_id: string; event_timestamp: string; object: { conn: { client_ip: string } } });
    expect(events.map((e) => e.event_id)).toEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-event-id'))));
    expect(events.map((e) => Date.parse(e.event_timestamp))).toEqual(await times());

    // A search shows the rows whose text holds it, and nothing else.
    const needle = String(events[7]?.object.conn.client_ip);
    await page.getByRole('searchbox', { name: 'Search the events' }).fill(needle);
    const matching = saved.filter((line) => line.toLowerCase().includes(needle.toLowerCase())).length;
    await expect.poll(() => rows.count()).toBe(matching);
    expect(matching).toBeLessThan(saved.length);
    for (const ip of await rows.locator('td[data-field="conn.client_ip"]').allTextContents()) expect(ip).toContain(needle);

    // A row opens to the event, pretty-printed.
    await rows.first().getByRole('button', { name: /^Open the event at / }).click();
    const first = events.find((e) => e.object.conn.client_ip.includes(needle));
    expect(await page.locator('.event-detail pre').textContent()).toBe(JSON.stringify(first, null, 2));
    await page.getByRole('button', { name: 'Copy event' }).waitFor();
    await shoot(page, 'live-search');
    for (const v of await seriousViolations(page)) throw new Error(`Live with an open row: ${v}`);

    // Clear empties the table.
    await page.getByRole('searchbox', { name: 'Search the events' }).fill('');
    await page.getByRole('button', { name: 'Clear' }).click();
    expect(await rows.count()).toBe(0);
    await page.close();
  });

  it('should mark a filter with a syntax error at the line and column the API reports, and keep the form with the API\'s message when saving is refused', async () => {
    const dest = await call('POST', '/event_destinations', { description: 'audit log', target: { file: { path: 'audit/events.ndjson' } } });
    expect(dest.status).toBe(201);
    const filter = 'ev.conn.server_port == 443 &&\n  ev.conn.client_ip == = "10.0.0.1"';
    await open(page, 'subscriptions/new');
    await page.getByLabel('Description').fill('broken filter');
    await page.getByLabel('audit log (file)').check();
    await page.getByLabel('conn.client_ip', { exact: true }).check();
    await page.getByLabel('Filter (CEL)').fill(filter);
    await page.getByRole('button', { name: 'Create subscription' }).click();
    const marked = page.locator('.cel-error');
    await marked.waitFor();

    // What the API says of the same subscription, asked directly.
    const refused = await call('POST', '/event_subscriptions', { description: 'broken filter', enabled: true, destination_ids: [dest.json.id], sources: [{ type: 'tcp_connection_closed.v0', fields: ['conn.client_ip'], filter }] });
    expect(refused.status).toBe(400);
    expect(refused.json.error_code).toBe('invalid_filter');
    const details = refused.json.details as { line: number; column: number };
    expect(details.line).toBe(2);
    expect(await marked.getAttribute('data-line')).toBe(String(details.line));
    expect(await marked.getAttribute('data-column')).toBe(String(details.column));
    expect((await marked.locator('p').textContent())?.trim()).toBe(refused.json.msg);
    // The caret stands under the column of the reported line.
    const [lineText, caret] = ((await marked.locator('.cel-marker code').textContent()) ?? '').split('\n');
    expect(lineText).toBe(filter.split('\n')[1]);
    expect(caret).toBe(`${' '.repeat(details.column - 1)}^`);
    expect(await page.getByLabel('Filter (CEL)').getAttribute('aria-invalid')).toBe('true');
    // Nothing was saved, and the form is still there with what was typed.
    expect(new URL(page.url()).hash).toBe('#/subscriptions/new');
    expect(await page.getByLabel('Filter (CEL)').inputValue()).toBe(filter);
    const list = await call('GET', '/event_subscriptions');
    expect((list.json.event_subscriptions as Json[]).map((s) => s.description)).not.toContain('broken filter');
    await page.locator('.field.cel').screenshot({ path: join(SHOTS, 'filter-error.png'), style: STILL });

    // The playground checks a filter the same way when it opens its tap, then shows the tap's notes.
    await open(page, 'live');
    await page.getByLabel('Filter (CEL)').fill(filter);
    await page.getByRole('button', { name: 'Watch matching traffic' }).click();
    const playError = page.locator('.cel-error');
    await playError.waitFor();
    const tapRefused = await call('POST', '/tap?seconds=1', { type: 'tcp_connection_closed.v0', fields: ['conn.client_ip', 'conn.server_name', 'conn.server_port'], filter });
    expect(await playError.getAttribute('data-column')).toBe(String((tapRefused.json.details as { column: number }).column));
    await page.getByLabel('Filter (CEL)').fill('ev.conn.server_port == 22');
    await page.getByRole('button', { name: 'Watch matching traffic' }).click();
    await page.locator('.notes li', { hasText: 'listening on' }).waitFor({ timeout: 20_000 });
    expect(await page.locator('.cel-error').count()).toBe(0);
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.locator('.notes li', { hasText: 'you stopped the tap' }).waitFor();
  });

  it("should show each address's own resource: an edit form followed by another id or by a new one shows that one, and saving changes only it", async () => {
    const x = await call('POST', '/event_destinations', { description: 'form x', target: { file: { path: 'forms/x.ndjson' } } });
    const y = await call('POST', '/event_destinations', { description: 'form y', target: { file: { path: 'forms/y.ndjson' } } });
    const sub = await call('POST', '/event_subscriptions', {
      description: 'form sub',
      destination_ids: [x.json.id],
      sources: [{ type: 'tcp_connection_closed.v0', fields: ['conn.client_ip'], filter: 'ev.conn.server_port == 22' }],
    });
    expect([x.status, y.status, sub.status]).toEqual([201, 201, 201]);
    // In one tab, the address changed as a link or a pasted address changes it (no new document).
    const go = async (route: string): Promise<void> => void (await page.evaluate(`location.hash = ${JSON.stringify(`#/${route}`)}`));

    await open(page, `destinations/${String(x.json.id)}`);
    expect(await page.getByLabel('Description').inputValue()).toBe('form x');
    await go(`destinations/${String(y.json.id)}`);
    await expect.poll(() => page.getByLabel('Description').inputValue()).toBe('form y');
    expect(await page.getByLabel('Path (required)').inputValue()).toBe('forms/y.ndjson');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('listitem', { name: 'form y' }).waitFor();
    const [afterX, afterY] = await Promise.all([call('GET', `/event_destinations/${String(x.json.id)}`), call('GET', `/event_destinations/${String(y.json.id)}`)]);
    expect([afterX.json.description, (afterX.json.target as { file: Json }).file.path]).toEqual(['form x', 'forms/x.ndjson']);
    expect([afterY.json.description, (afterY.json.target as { file: Json }).file.path]).toEqual(['form y', 'forms/y.ndjson']);

    await open(page, `subscriptions/${String(sub.json.id)}`);
    expect(await page.getByLabel('Description').inputValue()).toBe('form sub');
    await go('subscriptions/new');
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('New subscription');
    expect(await page.getByLabel('Description').inputValue()).toBe('');
    expect(await page.getByLabel('form x (file)').isChecked()).toBe(false);
    expect(await page.getByLabel('Filter (CEL)').inputValue()).toBe('');

    // A filter indented with tabs: the caret keeps the line's tabs, so it stands under the reported column.
    await page.getByLabel('Description').fill('tabs');
    await page.getByLabel('form x (file)').check();
    await page.getByLabel('conn.client_ip', { exact: true }).check();
    const tabbed = 'ev.conn.server_port == 443 &&\n\t\tev.conn.nope == 1';
    await page.getByLabel('Filter (CEL)').fill(tabbed);
    await page.getByRole('button', { name: 'Create subscription' }).click();
    const marked = page.locator('.cel-error');
    await marked.waitFor();
    expect(await marked.getAttribute('data-line')).toBe('2');
    const column = Number(await marked.getAttribute('data-column'));
    expect(column).toBe(3);
    const [, caret] = ((await marked.locator('.cel-marker code').textContent()) ?? '').split('\n');
    expect(caret).toBe('\t\t^');
  });

  it('should warn before saving a subscription with no destination, and save it on the second click only', async () => {
    await open(page, 'subscriptions/new');
    await page.getByLabel('Description').fill('nowhere');
    await page.getByLabel('conn.client_ip', { exact: true }).check();
    await page.getByRole('button', { name: 'Create subscription' }).click();
    const warning = page.locator('#no-destination');
    await warning.waitFor();
    expect(await warning.getAttribute('role')).toBe('alert');
    const names = async (): Promise<unknown[]> => ((await call('GET', '/event_subscriptions')).json.event_subscriptions as Json[]).map((x) => x.description);
    expect(await names()).not.toContain('nowhere');
    await page.getByRole('button', { name: 'Save without a destination' }).click();
    await page.getByRole('listitem', { name: 'nowhere' }).waitFor();
    expect(await names()).toContain('nowhere');
  });

  it('should show every problem of a refused subscription at once, each beside its field, its source\'s included', async () => {
    const dest = await call('POST', '/event_destinations', { description: 'problems', target: { file: { path: 'problems.ndjson' } } });
    expect(dest.status).toBe(201);
    const p = await browser.newPage();
    await signIn(p, token);
    await open(p, 'subscriptions/new');
    const description = 'd'.repeat(300);
    await p.getByLabel('Description').fill(description);
    await p.getByLabel('problems (file)').check();
    await p.locator('#source-0-fields input[type="checkbox"]').first().check();
    await p.locator('#source-0-rate').fill('5');
    await p.getByRole('button', { name: 'Create subscription' }).click();
    await p.locator('#form-problem').waitFor();
    // What the API says of the same request, asked directly.
    const source = { type: await p.locator('#source-0-type').inputValue(), fields: [await p.locator('#source-0-fields input[type="checkbox"]').first().getAttribute('value')], sample_rate: 5 };
    const refused = await call('POST', '/event_subscriptions', { description, enabled: true, destination_ids: [dest.json.id], sources: [source] });
    expect(refused.status).toBe(400);
    const problems = (refused.json.details as { problems: { path: string; message: string }[] }).problems;
    // The source's problem is not the first: the source editor showed only the first before.
    expect(problems.map((x) => x.path)).toEqual(['description', 'sources[0].sample_rate']);
    const at: Record<string, [string, string]> = { description: ['#f-description', 'Description'], 'sources[0].sample_rate': ['#source-0-rate', 'Sample rate'] };
    for (const problem of problems) {
      const [control, label] = at[problem.path] ?? ['', ''];
      expect(problem.message.startsWith(`The field ${problem.path} `)).toBe(true);
      expect(await p.locator(`${control}-error`).textContent()).toBe(`${label} ${problem.message.slice(`The field ${problem.path} `.length)}API field ${problem.path}`);
      expect(await p.locator(control).getAttribute('aria-invalid')).toBe('true');
    }
    expect(await p.locator('#form-problem').textContent()).toBe('Not saved: 2 fields need a change, each marked below.');
    for (const v of await seriousViolations(p)) throw new Error(`a refused subscription form: ${v}`);
    await p.close();
  });

  it("should show a TCP edge's IP restriction as the API holds it, also after its removal", async () => {
    const policy = await call('POST', '/ip_policies', { description: 'edge form policy' });
    const edge = await call('POST', '/edges/tcp', { description: 'edge form', hostports: ['2.tcp.example.com:20023'] });
    expect((await call('PUT', `/edges/tcp/${String(edge.json.id)}/ip_restriction`, { enabled: false, ip_policy_ids: [policy.json.id] })).status).toBe(200);
    await open(page, 'edges');
    const card = page.getByRole('listitem', { name: 'edge form' });
    const apply = card.getByLabel('Apply it to traffic');
    const chosen = card.getByLabel('edge form policy');
    expect([await apply.isChecked(), await chosen.isChecked()]).toEqual([false, true]);
    await card.getByRole('button', { name: 'Remove IP restriction' }).click();
    await card.getByText('no IP restriction').waitFor();
    // No restriction: the form offers a new one from scratch, applied, with no policy chosen.
    await expect.poll(async () => [await apply.isChecked(), await chosen.isChecked()]).toEqual([true, false]);
  });

  it('should show an http destination whose receiver answers 500 as failing, with the reason, within seconds of its first event', async () => {
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500, { 'content-type': 'text/plain' }).end('receiver down'));
    });
    receivers.push(receiver);
    const port = await listenOnLoopback(receiver);
    await open(page, 'destinations/new');
    await page.getByLabel('Description').fill('webhook');
    await page.getByLabel('Kind (required)').selectOption('http');
    // An internal address the service may not call (only 127.0.0.0/8 is opened here): refused before any
    // connection, with the API's message beside the URL field.
    // A form with three wrong fields: all three are shown at once, each beside its field, in a person's
    // words (named by the field's label), with the API's path on a details line.
    await page.getByLabel('URL (required)').fill('http://10.1.2.3/events');
    await page.getByLabel('Secret', { exact: true }).fill('short');
    await page.getByLabel('Timeout ms').fill('5');
    await page.getByRole('button', { name: 'Create destination' }).click();
    const urlError = page.locator('#f-target-http-url-error');
    await urlError.waitFor();
    const refusal = await call('POST', '/event_destinations', { target: { http: { url: 'http://10.1.2.3/events', secret: 'short', timeout_ms: 5 } } });
    expect(refusal.status).toBe(400);
    const problems = (refusal.json.details as { problems: { path: string; message: string }[] }).problems;
    expect(problems.map((p) => p.path).sort()).toEqual(['target.http.secret', 'target.http.timeout_ms', 'target.http.url']);
    const labels: Record<string, string> = { 'target.http.url': 'URL', 'target.http.secret': 'Secret', 'target.http.timeout_ms': 'Timeout ms' };
    for (const p of problems) {
      const shown = page.locator(`#f-${p.path.replaceAll('.', '-')}-error`);
      await shown.waitFor();
      // "The field target.http.url is refused: …" reads "URL is refused: …", its path below.
      expect(p.message.startsWith(`The field ${p.path} `)).toBe(true);
      expect(await shown.textContent()).toBe(`${labels[p.path]} ${p.message.slice(`The field ${p.path} `.length)}API field ${p.path}`);
      expect(await page.locator(`#f-${p.path.replaceAll('.', '-')}`).getAttribute('aria-invalid')).toBe('true');
    }
    expect(await page.locator('#form-problem').textContent()).toBe('Not saved: 3 fields need a change, each marked below.');
    // Another kind is another form: nothing of the refused one is left, and back on http neither.
    await page.getByLabel('Kind (required)').selectOption('file');
    expect(await page.locator('.field-error, #form-problem').count()).toBe(0);
    await page.getByLabel('Kind (required)').selectOption('http');
    expect(await page.locator('.field-error, #form-problem').count()).toBe(0);
    await page.getByLabel('URL (required)').fill(`http://127.0.0.1:${port}/events`);
    await page.getByLabel('Secret', { exact: true }).fill(SIGNING_SECRET);
    await page.getByLabel('Timeout ms').fill('');
    await page.getByRole('button', { name: 'Create destination' }).click();
    const card = page.getByRole('listitem', { name: 'webhook' });
    await card.waitFor();
    const id = await card.getAttribute('data-destination');
    const sub = await call('POST', '/event_subscriptions', { description: 'everything to the webhook', destination_ids: [id], sources: [{ type: 'tcp_connection_closed.v0', fields: ['conn.client_ip'] }] });
    expect(sub.status).toBe(201);

    const started = Date.now();
    await produce(['--rate', '100', '--count', '100', '--http-share', '0']);
    await card.locator('[data-state="failing"]').waitFor({ timeout: STATE_DEADLINE_MS });
    const failingMs = Date.now() - started;
    const reason = (await card.locator('.last-error').textContent()) ?? '';
    expect(reason).toMatch(/500/);
    expect(reason).not.toMatch(/none/);
    // The API says the same.
    const status = (await call('GET', `/event_destinations/${id}`)).json.status as { state: string; last_error: { code: string; message: string } };
    expect(status.state).toBe('failing');
    expect(reason).toContain(status.last_error.code);
    await shoot(page, 'destinations');

    // A destination no event has reached yet: a failed test event is its last error on the card, not "none".
    const idle = await call('POST', '/event_destinations', { description: 'spare receiver', target: { http: { url: `http://127.0.0.1:${port}/idle` } } });
    expect(idle.status).toBe(201);
    const idleCard = page.getByRole('listitem', { name: 'spare receiver' });
    await idleCard.locator('[data-state="unknown"]').waitFor();
    await idleCard.getByRole('button', { name: 'Send test event to spare receiver' }).click();
    const onCard = idleCard.locator('.last-error [data-from="test-event"]');
    await onCard.waitFor();
    expect(await onCard.textContent()).toContain('answer 500');
    expect(await idleCard.locator('.last-error').textContent()).not.toContain('none');

    // A test event, and the receiver's answer.
    await card.getByRole('button', { name: 'Send test event to webhook' }).click();
    const answer = card.locator('[data-delivered]');
    await answer.waitFor();
    expect(await answer.getAttribute('data-delivered')).toBe('false');
    expect(await answer.textContent()).toContain('answer 500');

    // Its edit form shows the URL back, and never the secret.
    await page.getByRole('link', { name: 'Edit webhook' }).click();
    await page.getByRole('button', { name: 'Save changes' }).waitFor();
    expect(await page.getByLabel('URL (required)').inputValue()).toBe(`http://127.0.0.1:${port}/events`);
    expect(await page.getByLabel('Secret', { exact: true }).inputValue()).toBe('');
    expect(await page.content()).not.toContain(SIGNING_SECRET);
    // Above the form, its status: the reason beside the fields that may fix it.
    const statusCard = page.getByRole('region', { name: 'Status' });
    await statusCard.locator('[data-state="failing"]').waitFor();
    expect(await statusCard.locator('.last-error').textContent()).toContain(status.last_error.code);
    process.stderr.write(`console: the http destination showed failing ${failingMs} ms after produce started.\n`);
  });

  it('should create a splunk_hec destination through its form, checked against the HEC contract receiver, deliver traffic and a test event to it, and never show the token back', async () => {
    const hecToken = '11111111-2222-3333-4444-555555555555';
    const hec = new SplunkHecReceiver([{ token: hecToken, indexes: ['edge_events'] }]);
    await hec.start();
    // A page of its own, signed in afresh: the test does not lean on the walk's sign-in.
    const page = await browser.newPage();
    try {
      await signIn(page, token);
      await open(page, 'destinations/new');
      await page.getByLabel('Description').fill('splunk');
      await page.getByLabel('Kind (required)').selectOption('splunk_hec');
      await page.getByLabel('URL (required)').fill(hec.url);
      await page.getByLabel('Token (required)').fill('not-the-token');
      await page.getByLabel('Index', { exact: true }).fill('edge_events');
      await page.getByLabel('Sourcetype', { exact: true }).fill('_json');
      // The create-time check refuses the wrong token, with the API's message beside the token field.
      await page.getByRole('button', { name: 'Create destination' }).click();
      const tokenError = page.locator('#f-target-splunk_hec-token-error');
      await tokenError.waitFor();
      expect(await tokenError.textContent()).toContain('HEC code 4');
      await page.getByLabel('Token (required)').fill(hecToken);
      await page.getByRole('button', { name: 'Create destination' }).click();
      const card = page.getByRole('listitem', { name: 'splunk' });
      await card.waitFor();
      const id = await card.getAttribute('data-destination');
      const view = (await call('GET', `/event_destinations/${id}`)).json.target as { splunk_hec: Json };
      expect(view.splunk_hec).toMatchObject({ url: hec.url, token: null, index: 'edge_events', sourcetype: '_json' });
      expect(hec.events.map((e) => (e.event as { event_type: string }).event_type)).toEqual(['edge_events_check']);
      const sub = await call('POST', '/event_subscriptions', { description: 'everything to splunk', destination_ids: [id], sources: [{ type: 'tcp_connection_closed.v0', fields: ['conn.client_ip'] }] });
      expect(sub.status).toBe(201);
      await produce(['--rate', '200', '--count', '50', '--http-share', '0']);
      await card.locator('[data-state="ok"]').waitFor({ timeout: STATE_DEADLINE_MS });
      expect(hec.events.filter((e) => (e.event as { event_type: string }).event_type === 'tcp_connection_closed.v0').every((e) => e.index === 'edge_events' && e.sourcetype === '_json')).toBe(true);
      await card.getByRole('button', { name: 'Send test event to splunk' }).click();
      const answer = card.locator('[data-delivered]');
      await answer.waitFor();
      expect(await answer.getAttribute('data-delivered')).toBe('true');
      await page.getByRole('link', { name: 'Edit splunk' }).click();
      await page.getByRole('button', { name: 'Save changes' }).waitFor();
      expect(await page.getByLabel('Token', { exact: false }).inputValue()).toBe('');
      expect(await page.content()).not.toContain(hecToken);
    } finally {
      await page.close();
      await hec.stop();
    }
  });

  it('should create datadog and azure_logs_ingestion destinations through their forms, a refused key shown beside its field in the API\'s words', async () => {
    await open(page, 'destinations/new');
    await page.getByLabel('Description').fill('datadog logs');
    await page.getByLabel('Kind (required)').selectOption('datadog');
    expect(await page.getByLabel('Ddsite').locator('option').allTextContents()).toEqual(expect.arrayContaining(['(default)', 'datadoghq.com', 'datadoghq.eu', 'ddog-gov.com']));
    await page.getByLabel('API key (required)').fill('ffffffffffffffffffffffffffffffff');
    await page.getByLabel('Service').fill('edge-console');
    await page.getByRole('button', { name: 'Create destination' }).click();
    const keyError = page.locator('#f-target-datadog-api_key-error');
    await keyError.waitFor();
    expect(await keyError.textContent()).toContain('refused the API key');
    await page.getByLabel('API key (required)').fill(DD_KEY);
    await page.getByRole('button', { name: 'Create destination' }).click();
    await page.getByRole('listitem', { name: 'datadog logs' }).waitFor();

    await open(page, 'destinations/new');
    await page.getByLabel('Description').fill('azure logs');
    await page.getByLabel('Kind (required)').selectOption('azure_logs_ingestion');
    await page.getByLabel('Tenant ID (required)').fill(AZURE_APP.tenantId);
    await page.getByLabel('Client ID (required)').fill(AZURE_APP.clientId);
    await page.getByLabel('Client secret (required)').fill(AZURE_APP.clientSecret);
    await page.getByLabel('Logs ingestion URI (required)').fill(azure.ingestionUri);
    await page.getByLabel('Data collection rule ID (required)').fill(AZURE_RULE);
    await page.getByLabel('Data collection stream name (required)').fill('Custom-EdgeEvents');
    await page.getByRole('button', { name: 'Create destination' }).click();
    const card = page.getByRole('listitem', { name: 'azure logs' });
    await card.waitFor();
    const id = await card.getAttribute('data-destination');
    const view = (await call('GET', `/event_destinations/${id}`)).json.target as Record<string, Json>;
    expect(view.azure_logs_ingestion).toMatchObject({ client_secret: null, data_collection_stream_name: 'Custom-EdgeEvents' });
    for (const v of await seriousViolations(page)) expect.fail(`destinations with datadog and azure cards: ${v}`);
  });

  it('should create elasticsearch, azure_blob and gcs destinations through their forms, and deliver traffic read back from OpenSearch by search and from Azurite and the GCS emulator by their objects', async () => {
    const [node, azurite] = await Promise.all([startOpenSearch(), Azurite.start()]);
    // The node runs without security; the front plays it for the user the form names.
    const front = new OpenSearchFront(node.url);
    front.rules = { credentials: [`Basic ${Buffer.from('edge:search-secret').toString('base64')}`] };
    const account = googleTokens.addAccount('console@edge-events-test.iam.gserviceaccount.com');
    const [index, container, bucket] = ['edge-console-events', 'console-events', 'console-events'];
    // A page of its own, signed in afresh, as the splunk_hec test's.
    const page = await browser.newPage();
    try {
      await signIn(page, token);
      await front.start();
      await gcs.createBucket(bucket);
      await open(page, 'destinations/new');
      await page.getByLabel('Description').fill('search');
      await page.getByLabel('Kind (required)').selectOption('elasticsearch');
      await page.getByLabel('URL (required)').fill(front.url);
      await page.getByLabel('Index (required)').fill(index);
      await page.getByLabel('Username (required)').fill('edge');
      await page.getByLabel('Password (required)').fill('search-secret');
      await page.getByRole('button', { name: 'Create destination' }).click();
      await page.getByRole('listitem', { name: 'search' }).waitFor();

      await open(page, 'destinations/new');
      await page.getByLabel('Description').fill('blobs');
      await page.getByLabel('Kind (required)').selectOption('azure_blob');
      await page.getByLabel('Account URL').fill(azurite.accountUrl);
      await page.getByLabel('Container (required)').fill(container);
      await page.getByLabel('Account key (required)').fill(AZURITE_KEY);
      await page.getByLabel('Max upload interval seconds').fill('1');
      // The create-time check finds no container, and says so beside its field.
      await page.getByRole('button', { name: 'Create destination' }).click();
      const containerError = page.locator('#f-target-azure_blob-container-error');
      await containerError.waitFor();
      expect(await containerError.textContent()).toMatch(/container does not exist/);
      await azurite.createContainer(container);
      await page.getByRole('button', { name: 'Create destination' }).click();
      await page.getByRole('listitem', { name: 'blobs' }).waitFor();

      await open(page, 'destinations/new');
      await page.getByLabel('Description').fill('cloud storage');
      await page.getByLabel('Kind (required)').selectOption('gcs');
      await page.getByLabel('Bucket (required)').fill(bucket);
      await page.getByLabel('Service account key (required)').fill(account.keyJson);
      await page.getByLabel('Max upload interval seconds').fill('1');
      await page.getByRole('button', { name: 'Create destination' }).click();
      await page.getByRole('listitem', { name: 'cloud storage' }).waitFor();
      for (const v of await seriousViolations(page)) expect.fail(`destinations with the store cards: ${v}`);

      const cards = ['search', 'blobs', 'cloud storage'].map((name) => page.getByRole('listitem', { name, exact: true }));
      const ids = await Promise.all(cards.map((c) => c.getAttribute('data-destination')));
      const views = await Promise.all(ids.map(async (id) => (await call('GET', `/event_destinations/${id}`)).json.target as Record<string, Json>));
      expect(JSON.stringify(views)).not.toMatch(/search-secret|PRIVATE KEY|Eby8vdM02x/);
      const sub = await call('POST', '/event_subscriptions', { description: 'everything to the stores', destination_ids: ids, sources: [{ type: 'tcp_connection_closed.v0', fields: ['conn.client_ip'] }] });
      expect(sub.status).toBe(201);
      await produce(['--rate', '200', '--count', '50', '--http-share', '0']);
      const traffic = (events: readonly { event_type: string; event_id: string }[]) => new Set(events.filter((e) => e.event_type === 'tcp_connection_closed.v0').map((e) => e.event_id)).size;
      const [docs, blobs, objects] = await Promise.all([
        (async () => {
          const deadline = Date.now() + 30_000;
          let got = await searchAll(node.url, index);
          while (got.length < 50 && Date.now() < deadline) got = (await new Promise((r) => setTimeout(r, 500)), await searchAll(node.url, index));
          return got.map((d) => d._source as { event_type: string; event_id: string });
        })(),
        azurite.eventsAtLeast(container, 50, 30_000),
        gcs.eventsAtLeast(bucket, 50, 30_000),
      ]);
      expect([traffic(docs), traffic(blobs), traffic(objects)]).toEqual([50, 50, 50]);
      for (const card of cards) await card.locator('[data-state="ok"]').waitFor({ timeout: STATE_DEADLINE_MS });
    } finally {
      await page.close();
      await front.stop();
      await Promise.allSettled([node.stop(), azurite.stop()]);
    }
  });

  it("should offer a customer's key only its account's resources, and the operator's pages to the operator alone", async () => {
    const account = await call('POST', '/accounts', { description: 'Example Shop' });
    expect(account.status).toBe(201);
    // The operator makes the customer's key in the console: its token is shown once, with a copy button.
    await open(page, 'accounts');
    const accountCard = page.getByRole('listitem', { name: 'Example Shop' });
    await accountCard.getByLabel('New key’s description').fill('Example Shop admin');
    await accountCard.getByRole('button', { name: 'Create API key' }).click();
    const shownToken = ((await page.locator('[data-token]').textContent()) ?? '').trim();
    expect(shownToken).toMatch(/^eek_/);
    await page.getByRole('button', { name: 'Copy token' }).waitFor();
    await shoot(page, 'accounts');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.locator('[data-token]').count()).toBe(0);

    const own = await call('POST', '/event_destinations', { description: 'shop archive', target: { file: { path: 'shop.ndjson' } } }, shownToken);
    expect(own.status).toBe(201);
    // One without a description is named by where it delivers, not by its id.
    expect((await call('POST', '/event_destinations', { target: { file: { path: 'shop-raw.ndjson' } } }, shownToken)).status).toBe(201);
    const customer = await browser.newPage();
    await signIn(customer, shownToken);
    expect(await customer.locator('[data-who]').getAttribute('data-who')).toBe('customer');
    const nav = customer.getByRole('navigation', { name: 'Console' });
    expect(await nav.getByRole('link').allTextContents()).toEqual(['Destinations', 'Subscriptions', 'Live', 'Reserved domains', 'TCP addresses', 'TCP edges', 'IP policies']);
    await open(customer, 'destinations');
    const names = await customer.locator('.cards > li .card-head h2').allTextContents();
    expect([...names].sort()).toEqual(['shop archive', 'shop-raw.ndjson']);
    // A delete asks first: Cancel keeps it, the confirmation deletes it.
    const ownCard = customer.getByRole('listitem', { name: 'shop archive' });
    await ownCard.getByRole('button', { name: 'Delete shop archive' }).click();
    const confirm = customer.getByRole('dialog', { name: 'Delete shop archive?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect((await call('GET', `/event_destinations/${String(own.json.id)}`, undefined, shownToken)).status).toBe(200);
    await ownCard.getByRole('button', { name: 'Delete shop archive' }).click();
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
    await ownCard.waitFor({ state: 'detached' });
    expect((await call('GET', `/event_destinations/${String(own.json.id)}`, undefined, shownToken)).status).toBe(404);
    await open(customer, 'subscriptions');
    expect(await customer.locator('.cards > li').count()).toBe(0);
    // The operator's page named in the address is not offered: the destinations are shown instead.
    await open(customer, 'accounts');
    expect(await customer.locator('main h1').textContent()).toBe('Destinations');

    // The customer reserves a domain: pending, with the TXT record to publish; Verify says what is missing
    // until the record is there (on the service's DNS server), then the reservation is verified.
    const base = `shop${prefix.toLowerCase().replace(/[^a-z0-9]/g, '')}.test`;
    await open(customer, 'domains');
    expect(await customer.locator('main p.empty').textContent()).toBe('No reserved domains yet.');
    await customer.getByLabel('Domain (required)').fill(`*.${base}`);
    await customer.getByRole('button', { name: 'Reserve domain' }).click();
    const domainCard = customer.getByRole('listitem', { name: `*.${base}` });
    await customer.locator(`[data-status="pending"][aria-label="*.${base}"]`).waitFor();
    const reserved = ((await call('GET', '/reserved_domains', undefined, shownToken)).json.reserved_domains as Json[])[0] as { id: string; verification: { record_name: string; record_value: string } };
    expect(await domainCard.locator('[data-record-name]').textContent()).toBe(reserved.verification.record_name);
    expect(await domainCard.locator('[data-record-value]').textContent()).toBe(reserved.verification.record_value);
    expect(await domainCard.getByRole('button', { name: `Verify by hand *.${base}` }).count()).toBe(0);
    await domainCard.getByRole('button', { name: `Verify *.${base}`, exact: true }).click();
    const notYet = domainCard.locator('[data-error-code="domain_not_verified"]');
    await notYet.waitFor();
    expect(await notYet.textContent()).toContain(reserved.verification.record_name);
    dns.txt.set(reserved.verification.record_name, [[reserved.verification.record_value]]);
    await domainCard.getByRole('button', { name: `Verify *.${base}`, exact: true }).click();
    await customer.locator(`[data-status="verified"][aria-label="*.${base}"]`).waitFor();
    expect((await call('GET', `/reserved_domains/${reserved.id}`, undefined, shownToken)).json.status).toBe('verified');
    // It reserves a TCP address (the service picks it from its pool) and lists it on an edge; an address it
    // has not reserved is refused, in the form, with the API's words.
    await open(customer, 'tcp-addresses');
    expect(await customer.locator('main p.empty').textContent()).toBe('No reserved TCP addresses yet.');
    await customer.getByRole('button', { name: 'Reserve TCP address' }).click();
    const addr = customer.locator('ul[aria-label="Reserved TCP addresses"] [data-addr]').first();
    await addr.waitFor();
    const reservedAddr = ((await call('GET', '/reserved_addrs', undefined, shownToken)).json.reserved_addrs as Json[])[0] as { addr: string };
    expect(await addr.textContent()).toBe(reservedAddr.addr);
    await open(customer, 'edges');
    await customer.getByLabel('Host and port').fill('198.51.100.7:5432');
    await customer.getByRole('button', { name: 'Create TCP edge' }).click();
    await customer.getByText('The hostport 198.51.100.7:5432 is not this account').first().waitFor();
    await customer.getByLabel('Host and port').fill(reservedAddr.addr);
    await customer.getByRole('button', { name: 'Create TCP edge' }).click();
    await customer.locator('ul[aria-label="TCP edges"] > li').first().waitFor();
    expect(((await call('GET', '/edges/tcp', undefined, shownToken)).json.tcp_edges as Json[]).map((e) => e.hostports)).toEqual([[reservedAddr.addr]]);
    // Its key deleted while signed in: the next answer is a 401, and the sign-in page says why it is back.
    const keys = (await call('GET', '/api_keys')).json.api_keys as Json[];
    const keyId = String(keys.find((k) => k.description === 'Example Shop admin')?.id);
    expect((await call('DELETE', `/api_keys/${keyId}`)).status).toBe(204);
    await customer.evaluate('location.hash = "#/subscriptions"');
    await customer.getByText('This token is not accepted: check that it is whole and that its key still exists.').waitFor();
    await customer.close();

    // The operator sees every page, and is not offered to delete its own account (which the API refuses).
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents()).toEqual(['Destinations', 'Subscriptions', 'Live', 'Accounts', 'Reserved domains', 'TCP addresses', 'TCP edges', 'IP policies']);
    await open(page, 'accounts');
    const cards = page.locator('ul[aria-label="Accounts"] > li');
    expect(await page.getByRole('button', { name: 'Delete account Example Shop and everything it owns' }).count()).toBe(1);
    expect(await cards.count()).toBeGreaterThan(1);
    expect(await cards.getByRole('button', { name: /^Delete account/ }).count()).toBe((await cards.count()) - 1);
    // With none of its own reserved, its list says so, and where a customer's are; one reserved is verified by hand.
    await open(page, 'domains');
    expect(await page.locator('main p.empty').textContent()).toContain('No reserved domains yet');
    // (Not under the customer's verified *.<base>, which another account may not reserve.)
    const ops = `ops${base}`;
    await page.getByLabel('Domain (required)').fill(ops);
    await page.getByRole('button', { name: 'Reserve domain' }).click();
    await page.getByRole('button', { name: `Verify by hand ${ops}` }).click();
    await page.locator(`[data-status="verified"][aria-label="${ops}"]`).waitFor();
    expect(await page.locator(`[aria-label="${ops}"]`).textContent()).toContain('by the operator, by hand');
  });

  it("should chart a destination's real history: deliveries, a window of refusals by their code and dead letters, latency, the subscriptions using it, and the card's sparkline", async () => {
    let failing = false;
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(failing ? 400 : 200, { 'content-type': 'text/plain' }).end(failing ? 'not this' : 'ok'));
    });
    receivers.push(receiver);
    const port = await listenOnLoopback(receiver);
    const dest = await call('POST', '/event_destinations', { description: 'charted', target: { http: { url: `http://127.0.0.1:${port}/in`, secret: SIGNING_SECRET } } });
    expect(dest.status).toBe(201);
    const id = String(dest.json.id);
    const sub = await call('POST', '/event_subscriptions', { description: 'charted traffic', destination_ids: [id], sources: [{ type: TCP, fields: ['conn.client_ip'] }] });
    expect(sub.status).toBe(201);
    type Point = { start: string; delivered: number; failed_attempts: number; dead_lettered: number; failures: { code: string; count: number }[] };
    const history = async (): Promise<{ from: string; points: Point[] }> => (await call('GET', `/event_destinations/${id}/history?from=${new Date(Date.now() - 3_600_000).toISOString()}`)).json as never;
    const total = (points: Point[], of: (p: Point) => number): number => points.reduce((n, p) => n + of(p), 0);
    // Delivered, then refused for good (a 400 is dead-lettered at once, no retry), then delivered again.
    await produce(['--rate', '100', '--count', '30', '--http-share', '0']);
    await expect.poll(async () => total((await history()).points, (p) => p.delivered), { timeout: 30_000 }).toBeGreaterThanOrEqual(30);
    failing = true;
    await produce(['--rate', '100', '--count', '20', '--http-share', '0']);
    await expect.poll(async () => total((await history()).points, (p) => p.dead_lettered), { timeout: 30_000 }).toBeGreaterThanOrEqual(20);
    failing = false;
    await produce(['--rate', '100', '--count', '20', '--http-share', '0']);
    await expect.poll(async () => total((await history()).points, (p) => p.delivered), { timeout: 30_000 }).toBeGreaterThanOrEqual(50);
    // The last period closed (two 3 s minutes): nothing changes while the page is read.
    await new Promise((r) => setTimeout(r, 7_000));
    const { points } = await history();

    const p = await browser.newPage();
    await signIn(p, token);
    await open(p, `destinations/${id}`);
    await p.locator('.charts').waitFor();
    const delivered = p.locator('figure[data-chart="Delivered per minute"]');
    expect(await delivered.locator('canvas').count()).toBeGreaterThan(0);
    // The table of the points is the chart's data: each period the API lists, with its count, and no other.
    // (Forced: the page redraws its charts with every status refresh, which playwright takes for movement.)
    await delivered.getByText('Table of the points').click({ force: true });
    for (const point of points) expect(await delivered.locator(`tr[data-start="${point.start}"] td[data-series="delivered"]`).textContent()).toBe(String(point.delivered));
    expect(await delivered.locator('tbody tr').count()).toBe(points.length);
    expect(await delivered.locator('.chart-summary').textContent()).toContain(`${total(points, (x) => x.delivered)} events delivered in the last 1 h.`);
    // The failure window by its code, as the workers reported it.
    const failures = p.locator('figure[data-chart="Failed attempts by code"]');
    const codes = [...new Set(points.flatMap((x) => x.failures.map((f) => f.code)))];
    expect(codes).toEqual(['DESTINATION_REJECTED']);
    await failures.getByText('Table of the points').click({ force: true });
    expect(await failures.locator('thead th').allTextContents()).toEqual(['Time', ...codes]);
    for (const point of points.filter((x) => x.failed_attempts > 0)) {
      expect(await failures.locator(`tr[data-start="${point.start}"] td[data-series="DESTINATION_REJECTED"]`).textContent()).toBe(String(point.failures.find((f) => f.code === 'DESTINATION_REJECTED')?.count ?? 0));
    }
    expect(await p.locator('figure[data-chart="Latency, record to acknowledgement"] canvas').count()).toBeGreaterThan(0);
    expect(await p.locator('figure[data-chart="Parked and dead-lettered"] canvas').count()).toBeGreaterThan(0);
    // The subscriptions that use it, each a link.
    await p.locator('.used-by').getByRole('link', { name: 'charted traffic' }).waitFor();
    await shoot(p, 'destination-history', true);
    for (const v of await seriousViolations(p)) throw new Error(`#/destinations/${id}: ${v}`);
    // (24 h and 7 d are not asked here: with this suite's 3 s minutes they span more periods than the API answers.)
    // The card's sparkline on the list.
    await open(p, 'destinations');
    const card = p.getByRole('listitem', { name: 'charted' });
    await card.locator('figure[data-chart="Delivered by charted"] canvas').first().waitFor();
    expect(await card.locator('figure[data-chart="Delivered by charted"]').getAttribute('aria-describedby')).not.toBeNull();
    await p.close();
    expect((await call('DELETE', `/event_subscriptions/${String(sub.json.id)}`)).status).toBe(204);
  });

  it('should search, sort and page the destination and subscription lists', async () => {
    // One after another, so that newest first is the reverse of this order.
    const made: { status: number; json: Json }[] = [];
    for (let i = 0; i < 23; i++) made.push(await call('POST', '/event_destinations', { description: `shelf ${String(i).padStart(2, '0')}`, target: { file: { path: `shelf/${i}.ndjson` } } }));
    expect(made.every((m) => m.status === 201)).toBe(true);
    const sub = await call('POST', '/event_subscriptions', { description: 'shelf reader', destination_ids: [made[3]?.json.id], sources: [{ type: 'http_request_complete.v0', fields: ['http.request.method'] }] });
    expect(sub.status).toBe(201);
    const all = ((await call('GET', '/event_destinations')).json.event_destinations as Json[]).length;
    expect(all).toBeGreaterThan(20);
    const p = await browser.newPage();
    await signIn(p, token);
    await open(p, 'destinations');
    const names = (): Promise<string[]> => p.locator('ul[aria-label="Destinations"] > li .card-head h2').allTextContents();
    const count = p.locator('.list-count');
    // Twenty a page, newest first: the shelves made last come first.
    expect((await names()).length).toBe(20);
    expect(await count.textContent()).toBe(`1–20 of ${all}`);
    await p.getByRole('button', { name: 'Next page' }).click();
    expect((await names()).length).toBe(all - 20);
    // A search keeps what holds every word, in any case: here the files shelf/1 and shelf/10 to shelf/19.
    await p.getByRole('searchbox', { name: 'Search the destinations' }).fill('NDJSON shelf/1');
    const eleven = ['shelf 19', 'shelf 18', 'shelf 17', 'shelf 16', 'shelf 15', 'shelf 14', 'shelf 13', 'shelf 12', 'shelf 11', 'shelf 10', 'shelf 01'];
    await expect.poll(names).toEqual(eleven);
    expect(await count.textContent()).toBe(`1–11 of 11 (of ${all})`);
    await p.getByLabel('Sort by').selectOption('name');
    await expect.poll(names).toEqual([...eleven].reverse());
    await p.getByRole('searchbox', { name: 'Search the destinations' }).fill('no such shelf');
    await p.getByText('No destinations match.').waitFor();
    for (const v of await seriousViolations(p)) throw new Error(`#/destinations with a search: ${v}`);

    // The subscriptions list reads the names of the destinations too.
    await open(p, 'subscriptions');
    await p.getByRole('searchbox', { name: 'Search the subscriptions' }).fill('shelf 03');
    await expect.poll(() => p.locator('ul[aria-label="Subscriptions"] > li .card-head h2').allTextContents()).toEqual(['shelf reader']);
    await p.close();
    // The pages' check below watches the newest subscription live: it is left as it was.
    expect((await call('DELETE', `/event_subscriptions/${String(sub.json.id)}`)).status).toBe(204);
  });

  it('should pass axe-core with no serious or critical violation on every page, and move nothing while their data loads', async () => {
    const policy = await call('POST', '/ip_policies', { description: 'office networks' });
    await call('POST', '/ip_policy_rules', { ip_policy_id: policy.json.id, cidr: '192.0.2.0/24', action: 'allow', description: 'head office' });
    const edge = await call('POST', '/edges/tcp', { description: 'ssh bastion', hostports: ['1.tcp.example.com:20022'] });
    await call('PUT', `/edges/tcp/${String(edge.json.id)}/ip_restriction`, { enabled: true, ip_policy_ids: [policy.json.id] });
    await call('POST', '/reserved_domains', { domain: '*.shop.example.com', description: 'Example Shop' });
    const subs = (await call('GET', '/event_subscriptions')).json.event_subscriptions as Json[];
    const routes = ['destinations', 'destinations/new', `destinations/${String(((await call('GET', '/event_destinations')).json.event_destinations as Json[])[0]?.id)}`, 'subscriptions', 'subscriptions/new', `subscriptions/${String(subs[0]?.id)}`, 'live', `live/${String(subs[0]?.id)}`, 'accounts', 'domains', 'tcp-addresses', 'edges', 'ip-policies'];
    const found: string[] = [];
    for (const route of routes) {
      await open(page, route);
      await page.waitForTimeout(300);
      for (const v of await seriousViolations(page)) found.push(`#/${route}: ${v}`);
      const shift = (await page.evaluate('window.layoutShift')) as number;
      if (shift > 0.1) found.push(`#/${route}: cumulative layout shift ${shift.toFixed(3)} while loading`);
      if (route === 'edges' || route === 'ip-policies') await shoot(page, route);
    }
    // The live list with more events than its height holds, which it scrolls: a keyboard must reach it.
    await open(page, `live/${String(subs[0]?.id)}`);
    await page.locator('.notes li', { hasText: 'listening on' }).waitFor({ timeout: 20_000 });
    const producing = produce(['--rate', '200', '--count', '400', '--http-share', '0', '--client-network', '10.0.0.0/8', '--tcp-port', '443']);
    const scrolls = "(() => { const list = document.querySelector('.events'); return list !== null && list.scrollHeight > list.clientHeight; })()";
    for (const deadline = Date.now() + 30_000; !((await page.evaluate(scrolls)) as boolean); await page.waitForTimeout(100)) {
      if (Date.now() > deadline) throw new Error('the live list never grew past its height');
    }
    for (const v of await seriousViolations(page)) found.push(`#/live/${String(subs[0]?.id)} with a list that scrolls: ${v}`);
    await producing;
    // Every kind the API offers is drawn from its schema, with labelled fields and their help.
    await open(page, 'destinations/new');
    // The options are named by the kinds' names.
    const kinds = await page.getByLabel('Kind (required)').locator('option').allTextContents();
    expect(kinds).toEqual(expect.arrayContaining(['file', 'http', 'kafka']));
    for (const kind of kinds) {
      await page.getByLabel('Kind (required)').selectOption(kind);
      const controls = page.locator(`[id^="f-target-${kind}-"]:is(input, select, textarea)`);
      if ((await controls.count()) === 0) found.push(`destinations/new: the ${kind} kind shows no fields`);
      for (const v of await seriousViolations(page)) found.push(`destinations/new (${kind}): ${v}`);
    }
    const signInPage = await browser.newPage();
    await signInPage.goto(`${service.url}/console/`);
    await signInPage.getByLabel('API token').waitFor();
    for (const v of await seriousViolations(signInPage)) found.push(`sign-in: ${v}`);
    await signInPage.close();
    // A phone's width and a desktop's: nothing cut off (a long Live heading neither), the header in two rows at most.
    const headerRows = `(() => {
      const tops = [...document.querySelectorAll('.top .brand, .top nav a, .top .who > *')].map((e) => e.getBoundingClientRect().top);
      const rows = [];
      for (const t of tops.sort((a, b) => a - b)) if (rows.length === 0 || t - rows[rows.length - 1] > 12) rows.push(t);
      return rows.length;
    })()`;
    const headingOverflow = "(() => { const h = document.querySelector('main h1'); return h === null ? 0 : h.scrollWidth - h.clientWidth; })()";
    const longName = 'TLS connections from the 10.0.0.0/8 network of the head office';
    expect((await call('PATCH', `/event_subscriptions/${String(subs[0]?.id)}`, { description: longName })).status).toBe(200);
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 860 });
      for (const route of ['destinations', `live/${String(subs[0]?.id)}`]) {
        await open(page, route);
        const overflow = (await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
        if (overflow > 0) found.push(`#/${route} at ${width} px: ${overflow} px wider than the screen`);
        const heading = (await page.evaluate(headingOverflow)) as number;
        if (heading > 0) found.push(`#/${route} at ${width} px: its heading runs ${heading} px past its box`);
        const rows = (await page.evaluate(headerRows)) as number;
        if (rows > 2) found.push(`#/${route} at ${width} px: the header takes ${rows} rows`);
        for (const v of await seriousViolations(page)) found.push(`#/${route} at ${width} px: ${v}`);
        if (width === 390 && route === 'destinations') await shoot(page, 'phone');
        if (width === 390 && route !== 'destinations') await shoot(page, 'phone-live');
      }
    }
    expect(found).toEqual([]);
  });
});
