// What one generated HTTP exchange looks like: method, path, status code, and normalized request and response headers.
import { WeightedChoice, intBetween, logNormalInt, pick, type Random } from './random.js';
import type { HttpHost } from './hosts.js';

export interface HttpExchange {
  readonly method: string;
  readonly path: string;
  readonly query: string | null;
  readonly status: number;
  readonly userAgent: string | null;
  /** docs/events.md: keys capitalized, values lowercased. */
  readonly requestHeaders: Record<string, string[]>;
  readonly responseHeaders: Record<string, string[]>;
  readonly requestBytes: number;
  readonly responseBytes: number;
  readonly compressed: boolean;
}

const BROWSERS = [
  'mozilla/5.0 (windows nt 10.0; win64; x64) applewebkit/537.36 (khtml, like gecko) chrome/126.0.0.0 safari/537.36',
  'mozilla/5.0 (macintosh; intel mac os x 10_15_7) applewebkit/605.1.15 (khtml, like gecko) version/17.5 safari/605.1.15',
  'mozilla/5.0 (iphone; cpu iphone os 17_5 like mac os x) applewebkit/605.1.15 (khtml, like gecko) version/17.5 mobile/15e148 safari/604.1',
  'mozilla/5.0 (linux; android 14; pixel 8) applewebkit/537.36 (khtml, like gecko) chrome/126.0.6478.71 mobile safari/537.36',
  'mozilla/5.0 (x11; linux x86_64; rv:127.0) gecko/20100101 firefox/127.0',
  'mozilla/5.0 (windows nt 10.0; win64; x64) applewebkit/537.36 (khtml, like gecko) chrome/125.0.0.0 safari/537.36 edg/125.0.2535.92',
];
const CLIENTS = ['curl/8.7.1', 'python-requests/2.32.3', 'go-http-client/2.0', 'okhttp/4.12.0', 'axios/1.7.2', 'node', 'java/17.0.11', 'postmanruntime/7.39.0'];
const BOTS = ['mozilla/5.0 (compatible; googlebot/2.1; +http://www.google.com/bot.html)', 'mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', 'uptimerobot/2.0'];
const LANGUAGES = ['en-us,en;q=0.9', 'en-gb,en;q=0.8', 'de-de,de;q=0.9,en;q=0.8', 'fr-fr,fr;q=0.9', 'ja-jp,ja;q=0.9', 'pt-br,pt;q=0.9,en;q=0.7', 'es-es,es;q=0.9'];
const WEBHOOK_SENDERS = ['stripe/1.0 (+https://stripe.com/docs/webhooks)', 'github-hookshot/9a3c1f2', 'shopify-captain-hook', 'twilio.twiml'];

const API_PATHS = ['/v1/users', '/v1/users/{id}', '/v1/orders', '/v1/orders/{id}', '/v1/orders/{id}/items', '/v2/search', '/v1/sessions', '/graphql', '/oauth/token', '/healthz'];
const WEB_PATHS = ['/', '/login', '/logout', '/account', '/products', '/products/{id}', '/cart', '/checkout', '/blog/{slug}', '/about', '/favicon.ico', '/robots.txt'];
const STATIC_PATHS = ['/js/app.{hash}.js', '/js/vendor.{hash}.js', '/css/main.{hash}.css', '/img/{slug}.webp', '/img/{slug}.png', '/fonts/inter-var.woff2'];
const HOOK_PATHS = ['/webhooks/payments', '/webhooks/github', '/webhooks/orders', '/hooks/{id}'];

const API_METHODS = new WeightedChoice([['get', 62], ['post', 20], ['put', 5], ['patch', 4], ['delete', 3], ['options', 6]] as const);
const WEB_METHODS = new WeightedChoice([['get', 90], ['post', 6], ['head', 3], ['options', 1]] as const);

const SUCCESS = new WeightedChoice([[200, 80], [201, 3], [204, 4], [301, 2], [302, 3], [304, 8]] as const);
const FAILURE = new WeightedChoice([[400, 18], [401, 16], [403, 10], [404, 30], [405, 2], [408, 1], [413, 1], [429, 8], [500, 6], [502, 4], [503, 3], [504, 1]] as const);

const CONTENT_TYPE: Record<HttpHost['kind'], string> = {
  api: 'application/json; charset=utf-8',
  web: 'text/html; charset=utf-8',
  static: 'application/javascript',
  webhook: 'application/json',
};

function fill(r: Random, template: string): string {
  return template
    .replace('{id}', String(intBetween(r, 1, 999_999)))
    .replace('{hash}', Math.floor(r() * 0xffffffff).toString(16).padStart(8, '0'))
    .replace('{slug}', pick(r, ['hero', 'summer-sale', 'team', 'release-notes', 'pricing', 'logo', 'banner-2']));
}

function hex(r: Random, chars: number): string {
  let s = '';
  while (s.length < chars) s += Math.floor(r() * 0x100000000).toString(16).padStart(8, '0');
  return s.slice(0, chars);
}

function statusFor(r: Random, kind: HttpHost['kind'], method: string): number {
  // About 7% of requests fail; bots and scanners make most 404s.
  if (r() < 0.07) return FAILURE.draw(r);
  const s = SUCCESS.draw(r);
  if (method === 'post' && s === 200 && r() < 0.4) return 201;
  if (s === 304 && (method !== 'get' || kind === 'api' || kind === 'webhook')) return 200;
  if ((s === 301 || s === 302) && kind === 'static') return 200;
  return s;
}

function userAgentFor(r: Random, kind: HttpHost['kind']): string | null {
  if (kind === 'webhook') return pick(r, WEBHOOK_SENDERS);
  const u = r();
  if (u < 0.01) return null;
  if (kind === 'api') return u < 0.6 ? pick(r, CLIENTS) : pick(r, BROWSERS);
  return u < 0.08 ? pick(r, BOTS) : u < 0.15 ? pick(r, CLIENTS) : pick(r, BROWSERS);
}

/** One exchange with `host`; `date` is the HTTP date of the response, already lowercased. */
export function httpExchange(r: Random, host: HttpHost, clientIp: string, date: string): HttpExchange {
  const kind = host.kind;
  const method = kind === 'api' ? API_METHODS.draw(r) : kind === 'webhook' ? 'post' : WEB_METHODS.draw(r);
  const path = fill(r, pick(r, kind === 'api' ? API_PATHS : kind === 'static' ? STATIC_PATHS : kind === 'webhook' ? HOOK_PATHS : WEB_PATHS));
  const query = kind === 'static' ? (r() < 0.2 ? `v=${hex(r, 6)}` : null) : r() < 0.3 ? `page=${intBetween(r, 1, 40)}&limit=${pick(r, [10, 20, 50, 100])}` : null;
  const status = statusFor(r, kind, method);
  const userAgent = userAgentFor(r, kind);
  const sendsBody = method === 'post' || method === 'put' || method === 'patch';
  const requestBytes = sendsBody ? logNormalInt(r, kind === 'webhook' ? 2_500 : 600, 1.0, 2, 5_000_000) : 0;
  const noBody = status === 204 || status === 304 || method === 'head' || method === 'options';
  const responseBytes = noBody ? 0 : logNormalInt(r, kind === 'static' ? 40_000 : kind === 'web' ? 18_000 : status >= 400 ? 120 : 1_800, 1.1, 0, 50_000_000);
  const compressed = responseBytes > 1_000 && !path.endsWith('.webp') && !path.endsWith('.png') && !path.endsWith('.woff2');

  const req: Record<string, string[]> = {
    Host: [host.name],
    Accept: [kind === 'api' ? 'application/json' : kind === 'static' ? '*/*' : 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'],
    'Accept-Encoding': ['gzip, deflate, br'],
  };
  if (userAgent !== null) req['User-Agent'] = [userAgent];
  if (kind === 'web' || (kind === 'static' && r() < 0.7)) req['Accept-Language'] = [pick(r, LANGUAGES)];
  if (kind === 'web' && r() < 0.6) req.Cookie = [`session=${hex(r, 32)}`, ...(r() < 0.5 ? ['consent=1'] : [])];
  if (kind === 'api' && r() < 0.8) req.Authorization = [`bearer ${hex(r, 40)}`];
  if (kind !== 'api' && r() < 0.4) req.Referer = [`https://${host.name}/`];
  if (sendsBody) {
    req['Content-Type'] = [kind === 'web' ? 'application/x-www-form-urlencoded' : 'application/json'];
    req['Content-Length'] = [String(requestBytes)];
  }
  if (status === 304) req['If-None-Match'] = [`"${hex(r, 16)}"`];
  if (r() < 0.25) req['X-Forwarded-For'] = [clientIp];
  if (kind === 'webhook') req['X-Signature'] = [`t=${intBetween(r, 1.7e9, 1.8e9)},v1=${hex(r, 64)}`];
  if (r() < 0.3) req['X-Request-Id'] = [hex(r, 32)];

  const res: Record<string, string[]> = { Date: [date] };
  if (!noBody) {
    res['Content-Type'] = [status >= 400 && kind !== 'api' ? 'text/html; charset=utf-8' : CONTENT_TYPE[kind]];
    if (compressed) res['Content-Encoding'] = ['gzip'];
    else res['Content-Length'] = [String(responseBytes)];
  }
  if (kind === 'static') {
    res['Cache-Control'] = ['public, max-age=31536000, immutable'];
    res.Etag = [`"${hex(r, 16)}"`];
  } else {
    res['Cache-Control'] = ['no-store'];
  }
  if (compressed) res.Vary = ['accept-encoding'];
  if (status === 301 || status === 302) res.Location = [`https://${host.name}${status === 301 ? path : '/login'}`];
  if (status === 429 || status === 503) res['Retry-After'] = [String(intBetween(r, 1, 120))];
  if (kind === 'web' && status === 200 && r() < 0.2) res['Set-Cookie'] = [`session=${hex(r, 32)}; path=/; secure; httponly; samesite=lax`];
  if (host.plainShare < 0.5) res['Strict-Transport-Security'] = ['max-age=63072000; includesubdomains; preload'];
  if (kind === 'api') res['X-Ratelimit-Remaining'] = [String(intBetween(r, 0, 999))];
  return { method, path, query, status, userAgent, requestHeaders: req, responseHeaders: res, requestBytes, responseBytes, compressed };
}
