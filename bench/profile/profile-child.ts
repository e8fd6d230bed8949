// The profiled process of profile-hotpath.ts: sets up one hot-path subject, warms it up, then profiles only the timed loop.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { prepareRoute, type RouteMode } from '../hotpath/route-measure.js';

const [out, mode = 'route', subs = '100', seconds = '4', ...flags] = process.argv.slice(2);
if (out === undefined) throw new Error('usage: profile-child.ts <profile file> [mode] [subscriptions] [seconds] [--validate-all] [--rare]');
const { fn, records } = prepareRoute({
  mode: mode as RouteMode,
  subscriptions: Number(subs),
  records: 4096,
  httpShare: 0.8,
  ...(flags.includes('--validate-all') && { decoder: { validateAll: true } }),
  ...(flags.includes('--rare') && { workload: 'rare' as const }),
});
const loop = (ms: number): number => {
  const end = performance.now() + ms;
  let n = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 256; i++) fn(records[(n + i) & (records.length - 1)] as (typeof records)[number]);
    n += 256;
  }
  return n;
};
loop(1000); // warm-up: let the JIT settle before sampling
const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 100 });
await session.post('Profiler.start');
const cpu = process.cpuUsage();
const n = loop(Number(seconds) * 1000);
const used = process.cpuUsage(cpu);
const { profile } = await session.post('Profiler.stop');
session.disconnect();
writeFileSync(out, JSON.stringify(profile));
process.stdout.write(`${mode} x ${subs}${flags.length > 0 ? ` ${flags.join(' ')}` : ''}: ${n} records, ${Math.round(((used.user + used.system) * 1000) / n)} CPU ns/record while profiled\n`);
