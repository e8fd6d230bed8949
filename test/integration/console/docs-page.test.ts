// The API's documentation page (/docs, Swagger UI) shares the console's origin, so it gets the console's
// security headers (SECURITY.md "Web console"): checked on the page and its static files, and in a real
// browser (Debian's chromium), where the page must still render the API's operations with no policy
// violation and fetch nothing from another origin.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DOCS_SECURITY_HEADERS } from '../../../src/admin/server.js';
import { PAGE_SECURITY_HEADERS } from '../../../src/console/console-routes.js';
import { launchBrowser, type Browser } from '../../support/browser.js';
import { startAdmin, type AdminHarness } from '../admin/admin-harness.js';

let admin: AdminHarness;
let browser: Browser;
beforeAll(async () => {
  admin = await startAdmin();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await admin?.stop();
});

it('/docs and its static files should carry the console\'s security headers, and the page should work under them', async () => {
  for (const path of ['/docs', '/docs/', '/docs/static/index.html', '/docs/static/swagger-ui-bundle.js', '/docs/static/swagger-initializer.js', '/docs/json']) {
    const res = await fetch(`${admin.url}${path}`, { redirect: 'manual' });
    expect(res.status, path).toBeLessThan(400);
    for (const [name, value] of Object.entries(DOCS_SECURITY_HEADERS)) expect(res.headers.get(name), `${path} ${name}`).toBe(value);
    await res.arrayBuffer();
  }
  // The console's policy but for inline styles: scripts from the page's own files alone, no framing.
  expect(DOCS_SECURITY_HEADERS['content-security-policy']).toBe(PAGE_SECURITY_HEADERS['content-security-policy'].replace("style-src 'self'", "style-src 'self' 'unsafe-inline'"));
  expect(DOCS_SECURITY_HEADERS['content-security-policy']).toContain("script-src 'self';");
  // The API's own answers are as they were.
  expect((await fetch(`${admin.url}/healthz`)).headers.get('content-security-policy')).toBeNull();

  const page = await browser.newPage();
  const problems: string[] = [];
  const elsewhere: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => {
    if (!r.url().startsWith(admin.url) && !r.url().startsWith('data:')) elsewhere.push(r.url());
  });
  await page.goto(`${admin.url}/docs/`);
  // Rendered from the OpenAPI document: an operation of the API is listed.
  await page.locator('.opblock-summary-path', { hasText: '/event_destinations' }).first().waitFor({ timeout: 20_000 });
  expect(problems).toEqual([]);
  expect(elsewhere).toEqual([]);
  await page.close();
});
