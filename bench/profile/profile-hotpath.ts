// Profiles the hot path: `npx tsx bench/profile/profile-hotpath.ts [mode] [subscriptions] [seconds] [--validate-all] [--rare] [--no-inlining]`.
// The child samples only the timed loop (V8's CPU profiler, as node --cpu-prof uses it) and this prints the top frames.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { areasTable, framesTable, selfTimeByArea, topFrames } from './top-frames.js';

const args = process.argv.slice(2);
// --no-inlining attributes the time of inlined callees to themselves (slower, but the frames say where it goes).
const v8Flags = args.includes('--no-inlining') ? ['--no-turbo-inlining'] : [];
const rest = args.filter((a) => a !== '--no-inlining');
const [mode = 'route', subs = '100', seconds = '4'] = rest;
const dir = mkdtempSync(join(tmpdir(), 'edge-prof-'));
const file = join(dir, 'hotpath.cpuprofile');
const child = fileURLToPath(new URL('./profile-child.ts', import.meta.url));
const run = spawnSync(process.execPath, [...v8Flags, '--import', 'tsx', child, file, ...rest], { stdio: ['ignore', 'inherit', 'inherit'] });
if (run.status !== 0) process.exit(run.status ?? 1);
process.stdout.write(`\nTop self-time frames, ${mode} with ${subs} subscriptions${v8Flags.length > 0 ? ' (no inlining)' : ''}, ${seconds} s of the loop:\n\n`);
process.stdout.write(`${areasTable(selfTimeByArea(file))}\n\n${framesTable(topFrames(file, 20))}\n`);
rmSync(dir, { recursive: true, force: true });
