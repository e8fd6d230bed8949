// The methods each path of the admin API takes, so a request with another method on a known path is
// answered 405 with an Allow header (RFC 9110 15.5.6) rather than 404. Fastify's router answers only
// "no route", so the scope records its routes as they are added and matches paths against them.
import type { FastifyInstance, RouteOptions } from 'fastify';

interface Template {
  readonly pattern: RegExp;
  readonly methods: Set<string>;
}

export class AllowedMethods {
  private readonly templates = new Map<string, Template>();

  /** Records every route the scope adds from now on. Call it before the routes are added. */
  watch(app: FastifyInstance): void {
    app.addHook('onRoute', (route: RouteOptions) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      this.add(route.url, methods);
    });
  }

  add(url: string, methods: readonly string[]): void {
    let t = this.templates.get(url);
    if (t === undefined) {
      t = { pattern: toPattern(url), methods: new Set() };
      this.templates.set(url, t);
    }
    for (const m of methods) t.methods.add(m.toUpperCase());
  }

  /** The methods the path takes, sorted; empty when no route has the path. */
  of(path: string): string[] {
    const out = new Set<string>();
    for (const t of this.templates.values()) if (t.pattern.test(path)) for (const m of t.methods) out.add(m);
    return [...out].sort();
  }
}

/** "/edges/tcp/:id/ip_restriction" -> a regex where each parameter is one path segment; "*" is any rest. */
function toPattern(url: string): RegExp {
  const parts = url.split('/').map((segment) => {
    if (segment.startsWith(':')) return '[^/]+';
    if (segment === '*') return '.*';
    return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  return new RegExp(`^${parts.join('/')}$`);
}
