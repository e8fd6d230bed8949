// The targets table `npm run bench` prints and keeps in bench/results/targets.md (bench/lib/report.ts), and the
// helper the benchmarks build their targets with (bench/lib/targets.ts).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { targetsTable, writeTargets, type MeasuredTarget } from '../../../bench/lib/report.js';
import { benchTarget } from '../../../bench/lib/targets.js';

const hot = (figure: string, met: boolean): MeasuredTarget => ({ bench: 'hotpath', name: 'route, 100 subscriptions', target: '>= 500,000 records/s', figure, met, ...(met ? {} : { why: 'see PROFILE.md' }) });
const mem: MeasuredTarget = { bench: 'memory', name: 'peak RSS', target: '<= 300 MB', figure: '240 MB', met: true };

interface Stored {
  readonly targets: (MeasuredTarget & { readonly date: string })[];
}

describe('targetsTable', () => {
  it('prints a row per target with its bound, figure, verdict, benchmark and why', () => {
    const table = targetsTable([hot('315,743 records/s', false), mem, { bench: 'memory', name: 'flat over 60 minutes', target: '|slope| <= 0.1', figure: '0.4 MiB/min', met: null, why: 'the soak lasted 120 s' }]);
    const lines = table.split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[2]).toBe('| route, 100 subscriptions | >= 500,000 records/s | 315,743 records/s | **missed** | hotpath | see PROFILE.md |');
    expect(lines[3]).toBe('| peak RSS | <= 300 MB | 240 MB | met | memory |  |');
    // A "|" inside a cell is escaped so the row keeps its columns.
    expect(lines[4]).toBe('| flat over 60 minutes | \\|slope\\| <= 0.1 | 0.4 MiB/min | not measured | memory | the soak lasted 120 s |');
  });
});

describe('writeTargets', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'bench-targets-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a re-run replaces only the rows of the benchmarks it ran, and keeps the others with their date', async () => {
    await writeTargets(dir, [hot('300,000 records/s', false), mem]);
    const first = (JSON.parse(await readFile(join(dir, 'targets.json'), 'utf8')) as Stored).targets;
    const memoryDate = first.find((t) => t.bench === 'memory')?.date;
    expect(memoryDate).toMatch(/^\d{4}-\d\d-\d\dT/);

    await new Promise((r) => setTimeout(r, 5));
    const md = await readFile(await writeTargets(dir, [hot('520,000 records/s', true)]), 'utf8');
    const stored = (JSON.parse(await readFile(join(dir, 'targets.json'), 'utf8')) as Stored).targets;
    expect(stored.map((t) => [t.bench, t.figure])).toEqual([
      ['memory', '240 MB'],
      ['hotpath', '520,000 records/s'],
    ]);
    expect(stored.find((t) => t.bench === 'memory')?.date).toBe(memoryDate);
    expect(stored.find((t) => t.bench === 'hotpath')?.date).not.toBe(memoryDate);
    expect(md).toContain('2 of 2 met');
    expect(md).toContain('| route, 100 subscriptions | >= 500,000 records/s | 520,000 records/s | met | hotpath |  |');
    expect(md).not.toContain('300,000');
  });

  it('starts afresh from an unreadable targets.json', async () => {
    await writeFile(join(dir, 'targets.json'), 'not json');
    const md = await readFile(await writeTargets(dir, [mem]), 'utf8');
    expect(md).toContain('1 of 1 met');
    expect((JSON.parse(await readFile(join(dir, 'targets.json'), 'utf8')) as Stored).targets).toHaveLength(1);
  });
});

describe('benchTarget', () => {
  it('keeps the why of a missed target only', () => {
    expect(benchTarget('a', '>= 1', '2', true, 'because')).toEqual({ name: 'a', target: '>= 1', figure: '2', met: true });
    expect(benchTarget('a', '>= 1', '0.5', false, 'because')).toEqual({ name: 'a', target: '>= 1', figure: '0.5', met: false, why: 'because' });
  });
});
