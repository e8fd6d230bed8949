// Secret fields at rest: AES-256-GCM with a key from the environment, so the config log never holds a
// cloud secret key or an HMAC secret in clear (ARCHITECTURE.md "Config store").
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('a secret key must be 32 bytes');
  }

  /** "v1.<iv>.<tag>.<ciphertext>", base64url parts; a fresh IV each time. */
  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  /** The clear text, or undefined when the sealed text is malformed or was sealed with another key. */
  open(sealed: string): string | undefined {
    const parts = sealed.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION) return undefined;
    const [, iv, tag, body] = parts.map((p) => Buffer.from(p, 'base64url'));
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv as Buffer);
      decipher.setAuthTag(tag as Buffer);
      return Buffer.concat([decipher.update(body as Buffer), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}
