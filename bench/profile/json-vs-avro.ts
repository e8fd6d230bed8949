// The same records in Avro and in JSON through the service's decoder and route, in one process, the subjects
// interleaved round by round (CPU time, the fastest round of each): `npx tsx bench/profile/json-vs-avro.ts [rounds]`.
// A quick check while working; `npm run bench -- hotpath` has the same rows measured in fresh processes.
import { measure } from '../lib/measure.js';
import { prepareRoute, type RouteArgs } from '../hotpath/route-measure.js';

const rounds = Number(process.argv[2] ?? 3);
const base = { records: 4096, httpShare: 0.8 } as const;
const subjects: Record<string, RouteArgs> = {};
for (const [form, fastJson] of [['avro', true], ['json', true], ['json', false]] as const) {
  const name = form === 'avro' ? 'avro' : fastJson ? 'json' : 'json (exact decoder)';
  const decoder = { validateAll: true, fastJson };
  subjects[`${name}: validate only`] = { ...base, form, mode: 'filterable', subscriptions: 0, decoder };
  subjects[`${name}: route, 100 subscriptions`] = { ...base, form, mode: 'route', subscriptions: 100, decoder };
  subjects[`${name}: route, 100 subscriptions matching about 1%`] = { ...base, form, mode: 'route', subscriptions: 100, decoder, workload: 'rare' };
}
const prepared = Object.entries(subjects).map(([name, args]) => ({ name, ...prepareRoute(args) }));
const best = new Map<string, number>();
for (let r = 0; r < rounds; r++) {
  for (const p of prepared) {
    const m = measure(p.fn, p.records, { runs: 5, runMs: 100, warmupMs: 150 });
    best.set(p.name, Math.min(best.get(p.name) ?? Infinity, m.nsPerOp));
  }
}
for (const p of prepared) console.log(`${p.name}\t${Math.round(best.get(p.name) as number)} ns\t${Math.round(p.stats.meanRecordBytes)} bytes a record\t${(p.stats.matchedRecordShare * 100).toFixed(1)}% matched`);
