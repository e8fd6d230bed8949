// The web console (web/README.md): the files `npm run build` writes to web/dist, served at /console/
// beside the API. Hashed assets are immutable, index.html is revalidated on every load, and a browser
// that asks for `/` (Accept: text/html) is sent to the console; a program asking for `/` gets the API's
// answer as before. The console talks to the public API only, with the key's token it keeps in the tab.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

export const CONSOLE_PATH = '/console/';

/** Where the console build lands: web/dist beside src/ and dist/ alike. */
export const CONSOLE_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** Vite names every asset by its content's hash, so a name never changes meaning. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The entry point names the assets of the current build: checked with the server on every load. */
const REVALIDATE = 'no-cache';

/**
 * Scripts, styles and requests to this origin only, and no framing: the token lives in the tab's
 * sessionStorage, where only the console's own script may read it. Every page of the origin is served
 * with them (the API's own page, /docs, too: src/admin/server.ts), since a page of the origin could read it.
 */
export const PAGE_SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

interface Asset {
  readonly body: Buffer;
  readonly type: string;
  readonly cache: string;
}

/** The built files by their path under /console/, read once at start (a few hundred kB). */
export function loadConsole(dir: string = CONSOLE_DIST): ReadonlyMap<string, Asset> | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const assets = new Map<string, Asset>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const rel = join(entry.parentPath, entry.name).slice(dir.length).replaceAll('\\', '/').replace(/^\//, '');
    assets.set(rel, {
      body: readFileSync(join(entry.parentPath, entry.name)),
      type: CONTENT_TYPES[extname(entry.name)] ?? 'application/octet-stream',
      cache: rel.startsWith('assets/') ? IMMUTABLE : REVALIDATE,
    });
  }
  return assets;
}

const wantsHtml = (accept: string | undefined): boolean => accept !== undefined && accept.includes('text/html');

/** `assets` from loadConsole(): undefined when the console was not built, which its pages then say. */
export function registerConsoleRoutes(app: FastifyInstance, assets: ReadonlyMap<string, Asset> | undefined): void {
  // Before routing, so the admin API's own answer for `/` (its auth, its 404) stays for programs.
  app.addHook('onRequest', async (req, reply) => {
    if ((req.method === 'GET' || req.method === 'HEAD') && req.url === '/' && wantsHtml(req.headers.accept)) {
      return reply.redirect(CONSOLE_PATH, 302);
    }
  });
  const send = (reply: FastifyReply, path: string): FastifyReply => {
    if (assets === undefined) {
      return reply.code(503).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send('The console is not built: run `npm run build` (npm start does), then reload.\n');
    }
    const asset = assets.get(path === '' ? 'index.html' : path);
    if (asset === undefined) return reply.code(404).type('text/plain; charset=utf-8').header('cache-control', 'no-store').send('Not found.\n');
    return reply.headers(PAGE_SECURITY_HEADERS).header('cache-control', asset.cache).type(asset.type).send(asset.body);
  };
  app.get('/console', { schema: { hide: true } }, (_req, reply) => reply.redirect(CONSOLE_PATH, 301));
  app.get('/console/*', { schema: { hide: true } }, (req, reply) => send(reply, (req.params as { '*': string })['*']));
}
