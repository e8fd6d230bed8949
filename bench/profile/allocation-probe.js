// Loaded into a worker with `--import` by profile-worker.ts (PROFILE_ALLOCATIONS=<file>): samples every
// allocation, the objects the young generation's collections freed included (the garbage the collector
// pays for, which `--heap-prof` leaves out), and writes V8's sampling heap profile to that file at exit,
// and beside it (<file>.gc.json) the count and milliseconds of each kind of garbage collection.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { PerformanceObserver, constants } from 'node:perf_hooks';

const GC_KINDS = { [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor (scavenge)', [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major (mark-compact)', [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks' };

const file = process.env.PROFILE_ALLOCATIONS;
if (file !== undefined && file !== '') {
  const session = new Session();
  session.connect();
  // An in-process inspector session answers synchronously, so the profile can be taken in an exit handler.
  session.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMinorGC: true, includeObjectsCollectedByMajorGC: true });
  const gc = {};
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = GC_KINDS[entry.detail?.kind] ?? String(entry.detail?.kind);
      gc[kind] ??= { count: 0, ms: 0 };
      gc[kind].count += 1;
      gc[kind].ms += entry.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  process.on('exit', () => {
    writeFileSync(`${file}.gc.json`, JSON.stringify(gc));
    session.post('HeapProfiler.stopSampling', (err, result) => {
      if (err === null) writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}
