// Unit tests of how the service serves the console's build: content types, caching (hashed assets
// immutable, the entry point revalidated), the security headers, and `/` leading only browsers there.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConsole, registerConsoleRoutes } from '../../../src/console/console-routes.js';

function build(): string {
  const dir = mkdtempSync(join(tmpdir(), 'console-dist-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(dir, 'assets', 'index-AbC123.js'), 'console.log(1)');
  writeFileSync(join(dir, 'assets', 'index-DeF456.css'), 'body{}');
  return dir;
}

let app: FastifyInstance;
async function serve(dir: string | undefined): Promise<FastifyInstance> {
  app = Fastify();
  registerConsoleRoutes(app, dir === undefined ? undefined : loadConsole(dir));
  // What the admin API answers a path it has no route for (its auth comes first): a program keeps getting it.
  app.setNotFoundHandler((_req, reply) => reply.code(401).send({ error_code: 'unauthorized' }));
  await app.ready();
  return app;
}
afterEach(async () => {
  await app?.close();
});

describe('the console routes', () => {
  it('should serve the entry point revalidated and the hashed assets immutable, each with its content type and the security headers', async () => {
    const http = await serve(build());
    const index = await http.inject({ url: '/console/' });
    expect(index.statusCode).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['cache-control']).toBe('no-cache');
    expect(index.headers['content-security-policy']).toContain("script-src 'self'");
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect(index.body).toContain('<title>console</title>');
    const js = await http.inject({ url: '/console/assets/index-AbC123.js' });
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const css = await http.inject({ url: '/console/assets/index-DeF456.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const missing = await http.inject({ url: '/console/assets/index-gone.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['cache-control']).toBe('no-store');
  });

  it('should send a browser asking for / to the console, and leave / to the API for a program', async () => {
    const http = await serve(build());
    const browser = await http.inject({ url: '/', headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(browser.statusCode).toBe(302);
    expect(browser.headers.location).toBe('/console/');
    for (const accept of [undefined, 'application/json', '*/*']) {
      const program = await http.inject({ url: '/', headers: accept === undefined ? {} : { accept } });
      expect(program.statusCode, String(accept)).toBe(401);
    }
    const post = await http.inject({ method: 'POST', url: '/', headers: { accept: 'text/html' } });
    expect(post.statusCode).toBe(401);
    const bare = await http.inject({ url: '/console' });
    expect(bare.statusCode).toBe(301);
    expect(bare.headers.location).toBe('/console/');
  });

  it('should say how to build the console when it was not built, rather than fail without a word', async () => {
    const http = await serve(undefined);
    const r = await http.inject({ url: '/console/' });
    expect(r.statusCode).toBe(503);
    expect(r.body).toContain('npm run build');
    expect(loadConsole(mkdtempSync(join(tmpdir(), 'console-empty-')))).toBeUndefined();
  });
});
