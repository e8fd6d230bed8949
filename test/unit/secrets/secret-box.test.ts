import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../../src/secrets/secret-box.js';

describe('secret box', () => {
  const box = new SecretBox(randomBytes(32));

  it('should open what it sealed and never show the clear text in the sealed form', () => {
    const sealed = box.seal('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY');
    expect(sealed).not.toContain('wJalrXUtnFEMI');
    expect(box.open(sealed)).toBe('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY');
  });

  it('should seal the same text differently each time', () => {
    expect(box.seal('s')).not.toBe(box.seal('s'));
  });

  it('should refuse a text sealed with another key or tampered with', () => {
    const other = new SecretBox(randomBytes(32));
    const sealed = box.seal('secret');
    expect(other.open(sealed)).toBeUndefined();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('xxxxxx').toString('base64url');
    expect(box.open(parts.join('.'))).toBeUndefined();
    expect(box.open('garbage')).toBeUndefined();
  });
});
