import { describe, expect, it } from 'vitest';
import { createRootLogger } from '../../../src/telemetry/logger.js';

function capture(level = 'debug') {
  const lines: string[] = [];
  const logger = createRootLogger({ write: (s: string) => void lines.push(s) }, level);
  return { logger, lines };
}

describe('logger', () => {
  it('should redact tokens, authorization headers and cloud secret keys wherever the API puts them', () => {
    const { logger, lines } = capture();
    logger.info({ token: 'eek_top', req: { headers: { authorization: 'Bearer eek_hdr' } } }, 'one');
    logger.info({ body: { target: { log_service: { auth: { creds: { cloud_secret_access_key: 'wJalrXUt' } } } } } }, 'two');
    logger.info({ target: { delivery_stream: { auth: { creds: { cloud_secret_access_key: 'wJalrXUu' } } } } }, 'three');
    const text = lines.join('');
    for (const secret of ['eek_top', 'eek_hdr', 'wJalrXUt', 'wJalrXUu']) expect(text).not.toContain(secret);
    expect(text.match(/\[redacted\]/g)).toHaveLength(4);
  });

  it('should log objects holding Buffers at debug level without throwing', () => {
    const { logger, lines } = capture('debug');
    expect(() => logger.debug({ request: { payload: Buffer.from('abc'), parts: [Buffer.alloc(3)] }, a: { b: { c: { d: Buffer.alloc(1) } } } }, 'kafkajs-like')).not.toThrow();
    expect(lines).toHaveLength(1);
  });
});
