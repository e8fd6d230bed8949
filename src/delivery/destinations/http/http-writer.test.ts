import { describe, expect, it } from 'vitest';
import { HttpWriter } from './http-writer.js';
import { parseHttpTarget } from './config.js';
import { OPERATOR } from '../../../accounts/account.js';
import { TEST_EGRESS } from '../../../../test/support/writer-deps.js';
import { item } from '../../../../test/unit/delivery/fakes.js';

describe('http writer', () => {
  it('should count a comma per record and leave room for the brackets in its limits', () => {
    const w = new HttpWriter({ url: 'http://127.0.0.1:1/hook' }, { egress: TEST_EGRESS });
    expect(w.limits.recordOverheadBytes).toBe(1);
    expect(w.limits.maxBytes).toBe(1024 * 1024 - 2);
  });

  it('should refuse writes after close', async () => {
    const w = new HttpWriter({ url: 'http://127.0.0.1:1/hook' }, { egress: TEST_EGRESS });
    await w.close();
    await expect(w.write([item()])).rejects.toMatchObject({ code: 'WRITER_CLOSED', retryable: true });
  });
});

describe('http target config', () => {
  it('should accept a url, a secret and a timeout', () => {
    expect(parseHttpTarget({ url: 'https://hooks.example/x', secret: 's'.repeat(16), timeout_ms: 5000 }, 'target.http', OPERATOR)).toEqual({
      ok: true,
      config: { url: 'https://hooks.example/x', secret: 's'.repeat(16), timeout_ms: 5000 },
    });
  });

  it('should report every problem at once and never echo the secret', () => {
    const result = parseHttpTarget({ url: 'ftp://x', secret: 'short-secret', timeout_ms: 5, extra: 1 }, 'target.http', OPERATOR);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.field).sort()).toEqual(
      ['target.http.extra', 'target.http.secret', 'target.http.timeout_ms', 'target.http.url'].sort(),
    );
    expect(JSON.stringify(result.problems)).not.toContain('short-secret');
  });
});
