// The API's http(s) URL rule must never take a URL that the WHATWG URL parser (what fetch and the
// writers use) refuses or reads with another scheme or with credentials.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HTTP_URL_MAX_LENGTH, isHttpUrl } from '../../../src/net/http-url.js';

const label = fc.stringMatching(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,8}[A-Za-z0-9])?$/);
const host = fc.oneof(
  fc.tuple(fc.array(label, { maxLength: 3 }), fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,6}$/)).map(([ls, last]) => [...ls, last].join('.')),
  fc.tuple(fc.nat(300), fc.nat(300), fc.nat(255), fc.nat(255)).map((o) => o.join('.')),
  fc.ipV6().map((a) => `[${a}]`),
  fc.constantFrom('a.1', '1.2.3', '0x10', 'xn--a.com', 'a_b.com', '-a.com', 'a..b', 'u:p@a.com'),
);
const port = fc.oneof(fc.constant(''), fc.nat(70_000).map((p) => `:${p}`), fc.constantFrom(':', ':080', ':+1'));
const rest = fc.oneof(fc.constant(''), fc.string({ unit: 'binary-ascii', maxLength: 20 }).map((s) => `/${s}`), fc.constantFrom('?q=1', '#f', '/a b', '/%zz'));
const scheme = fc.constantFrom('http://', 'https://', 'HTTPS://', 'ftp://', 'http:/', 'http:');

describe('isHttpUrl', () => {
  it('should take only URLs the WHATWG parser reads as http or https without credentials', () => {
    let taken = 0;
    fc.assert(
      fc.property(scheme, host, port, rest, (s, h, p, r) => {
        const text = `${s}${h}${p}${r}`;
        if (!isHttpUrl(text)) return;
        taken++;
        const url = new URL(text);
        expect(['http:', 'https:'], text).toContain(url.protocol);
        expect([url.username, url.password], text).toEqual(['', '']);
      }),
      { numRuns: 5000 },
    );
    // Most generated URLs are near misses; enough of them must be taken for the check to mean something.
    expect(taken).toBeGreaterThan(500);
  });

  it.each(['https://hooks.example.com/edge-events', 'http://127.0.0.1:8080/in?x=1', 'HTTP://[2001:db8::1]:443/', 'https://a/'])('should take %s', (u) =>
    expect(isHttpUrl(u)).toBe(true),
  );

  it.each(['ftp://example.com/', 'https://u:p@example.com/', 'https://a.1/', 'https://999.1.1.1/', 'https://example.com:0/', 'https://example.com/ b', `https://${'a'.repeat(254)}/`, `https://a.com/${'x'.repeat(HTTP_URL_MAX_LENGTH)}`])(
    'should refuse %s',
    (u) => expect(isHttpUrl(u)).toBe(false),
  );
});
