import { describe, expect, it } from 'vitest';
import { concealUrl, keepRedactedParts, revealUrl } from '../../../src/delivery/destinations/http/url-secrets.js';

describe('secrets in an http URL', () => {
  it('should take out the password and every non-empty query value, and give them back in place', () => {
    const url = 'https://u:p%40ss@hooks.example/in?token=a%2Fb&empty=&flag&token=second';
    const concealed = concealUrl(url);
    expect(concealed).toEqual({ url: 'https://u:REDACTED@hooks.example/in?token=REDACTED&empty=&flag&token=REDACTED', secrets: { password: 'p%40ss', query: ['a%2Fb', 'second'] } });
    expect(revealUrl(concealed.url, concealed.secrets!)).toBe(url);
    expect(revealUrl(concealed.url, { query: ['only-one'] })).toBeUndefined();
  });

  it('should store a URL without secrets as it was sent', () => {
    expect(concealUrl('https://Hooks.Example/in')).toEqual({ url: 'https://Hooks.Example/in', secrets: undefined });
  });

  it('should keep a REDACTED part from the stored URL by name, and name a part it cannot keep', () => {
    const stored = 'https://u:pw@h.example/a?token=t1&mode=m';
    expect(keepRedactedParts('https://u:REDACTED@h.example/b?mode=REDACTED&token=REDACTED', stored)).toEqual({ url: 'https://u:pw@h.example/b?mode=m&token=t1' });
    expect(keepRedactedParts('https://h.example/b?key=REDACTED', stored)).toEqual({ missing: 'the query parameter key' });
    expect(keepRedactedParts('https://u:REDACTED@h.example/', undefined)).toEqual({ missing: 'the password' });
  });
});
