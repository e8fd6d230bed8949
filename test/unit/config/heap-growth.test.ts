// The worker's heap growth (src/config/heap-growth.ts): the growth the budget gives a live heap, and, in
// processes of their own, that the growth sized from the live heap takes effect: a process promoting the
// same garbage runs fewer full collections than under the fixed 30% it replaced.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MAX_GROWTH_PERCENT, MIN_GROWTH_PERCENT, OLD_GENERATION_BUDGET_BYTES, growthPercentFor } from '../../../src/config/heap-growth.js';

const MIB = 2 ** 20;
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHURN = fileURLToPath(new URL('../../support/heap-churn.ts', import.meta.url));

describe('growthPercentFor', () => {
  it('should let the old generation fill a budget of 144 MiB', () => {
    expect(OLD_GENERATION_BUDGET_BYTES).toBe(144 * MIB);
    // 72 MiB live may grow by 72 MiB more; 96 MiB by 48 MiB, half of it.
    expect(growthPercentFor(72 * MIB)).toBe(100);
    expect(growthPercentFor(96 * MIB)).toBe(50);
    expect(growthPercentFor(60 * MIB, 90 * MIB)).toBe(50);
  });

  it('should grow by at least 30% however much is live, and by at most 300%', () => {
    expect([MIN_GROWTH_PERCENT, MAX_GROWTH_PERCENT]).toEqual([30, 300]);
    expect(growthPercentFor(120 * MIB)).toBe(30);
    expect(growthPercentFor(400 * MIB)).toBe(30);
    expect(growthPercentFor(20 * MIB)).toBe(300);
    expect(growthPercentFor(0)).toBe(300);
    expect(growthPercentFor(Number.NaN)).toBe(300);
  });
});

/** Runs test/support/heap-churn.ts with a fixed 30% growth or the sized one; its full collections and last growth. */
function churn(mode: 'fixed' | 'sized'): Promise<{ major: number; percent: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--max-semi-space-size=16', '--import', 'tsx', CHURN, mode], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`heap-churn.ts ${mode} exited with ${code}: ${err}`));
      else resolve(JSON.parse(out) as { major: number; percent: number });
    });
  });
}

describe('startHeapGrowth', () => {
  it('should run at most half the full collections of a fixed 30% when it sizes the growth from a live heap of about 50 MiB', { timeout: 60_000 }, async () => {
    const fixed = await churn('fixed');
    const sized = await churn('sized');
    expect(fixed.percent).toBe(30);
    // Set again after the full collections from about 50 MiB live (at start-up, with less live, it was 300%).
    expect(sized.percent).toBeGreaterThan(100);
    expect(sized.percent).toBeLessThan(MAX_GROWTH_PERCENT);
    expect(fixed.major).toBeGreaterThanOrEqual(10);
    expect(sized.major).toBeLessThanOrEqual(fixed.major / 2);
  });
});
