// Kafka clients' copies and workers side by side on one broker and the same records, in alternating rounds
// (fresh processes and consumer groups each round): records/s and CPU time a record.
// `npx tsx bench/profile/client-copies.ts <records> <rounds> <configuration>...`, configurations:
//   kcat          Debian's kcat copy (bench/e2e/kcat.ts)
//   platformatic  @platformatic/kafka's copy (bench/e2e/passthrough-platformatic.ts)
//   adapter       the copy through the service's seam on it (bench/e2e/passthrough-adapter.ts)
//   native        @confluentinc/kafka-javascript's native API (bench/e2e/passthrough-confluent-native.ts; CKJS_MODULE_DIR)
//   worker, fifth the service's worker, 100 subscriptions matching each about 1% / together about 20% of records
// A name ending in "@base" runs from the checkout BASE_ROOT names (a before-and-after comparison of the
// adapter or the worker in the same minutes). COPIES_INPUT=json preloads JSON records instead of Avro.
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { compare } from '../e2e/compare.js';
import { rootOf } from './base-root.js';
import { KafkaBenchSession, type Configuration } from '../e2e/session.js';
import type { WireForm } from '../../src/records/record-types.js';

const [records = '200000', rounds = '3', ...names] = process.argv.slice(2);
const progress = (m: string): void => void process.stderr.write(`[copies] ${m}\n`);
const input: WireForm = process.env.COPIES_INPUT === 'json' ? 'json' : 'avro';

function factory(session: KafkaBenchSession, name: string): (round: number) => Configuration {
  const root = rootOf(name);
  const what = name.replace(/@base$/, '');
  const label = name.replace(/[^a-zA-Z0-9-]/g, '-');
  const script = (file: string): string => join(root, 'bench/e2e', file);
  switch (what) {
    case 'kcat':
      return (r) => session.kcatCopy(`${label}-${r}`);
    case 'platformatic':
      return (r) => session.passthrough(`${label}-${r}`, script('passthrough-platformatic.ts'), { input });
    case 'adapter':
      return (r) => session.passthrough(`${label}-${r}`, script('passthrough-adapter.ts'), { input });
    case 'native':
      if (process.env.CKJS_MODULE_DIR === undefined) throw new Error('native needs CKJS_MODULE_DIR: a directory whose node_modules has @confluentinc/kafka-javascript');
      return (r) => session.passthrough(`${label}-${r}`, script('passthrough-confluent-native.ts'), { input });
    case 'worker':
    case 'fifth':
      return (r) => session.worker(`${label}-${r}`, 100, { kind: what === 'fifth' ? 'fifth-percent' : 'one-percent', root, input });
    default:
      throw new Error(`unknown configuration ${name}`);
  }
}

const loadBefore = loadavg()[0] ?? 0;
const session = await KafkaBenchSession.open('copies', progress);
try {
  await session.preload(Number(records), input);
  const results = await compare(
    session,
    names.map((name) => ({ name, make: factory(session, name) })),
    { rounds: Number(rounds), drainTimeoutMs: 1_200_000, latencySeconds: 0 },
  );
  const kcat = results.find((r) => r.name === 'kcat');
  const us = (cores: number, rate: number): number => (cores / rate) * 1e6;
  const lines = [
    `${Number(records).toLocaleString('en-US')} ${input} records, ${rounds} rounds; 1-minute load average ${loadBefore.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end`,
    '',
    '| configuration | best records/s | x kcat (best) | CPU µs a record (each round) | CPU µs a record (least) | events/record |',
    '| --- | ---: | ---: | --- | ---: | ---: |',
    ...results.map((r) => {
      const perRecord = r.rounds.map((d) => us(d.cores, d.recordsPerSecond));
      return `| ${r.name} | ${Math.round(r.best.recordsPerSecond).toLocaleString('en-US')} | ${kcat === undefined ? '' : (r.best.recordsPerSecond / kcat.best.recordsPerSecond).toFixed(2)} | ${perRecord.map((u) => u.toFixed(1)).join(', ')} | ${Math.min(...perRecord).toFixed(1)} | ${r.best.eventsPerRecord.toFixed(2)} |`;
    }),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await session.close();
}
