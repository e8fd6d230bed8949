// Scenario 1, kill -9: records flow to a kafka, a file and an http destination while the only worker is
// killed with SIGKILL at random points and restarted each time. Nothing may be missing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkDestination, totals, type DestinationCheck } from '../harness/checker.js';
import { KafkaTopicReader, readFileDestination } from '../harness/destination-readers.js';
import { HttpSink } from '../harness/http-sink.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../harness/scenario.js';
import { ServiceFleet, chaosKafka, chaosPrefix, chaosTopics, createChaosTopics, destination, subscription, writeConfig } from '../harness/service-cluster.js';
import { seededRandom, sleep, waitFor } from '../harness/timing.js';
import { SEQ_FIELDS, VerifiableSource, type RecordFacts } from '../harness/verifiable-source.js';

const PARAMS = {
  // The stream must outlast the kills: each kill costs a restart plus the group's session timeout.
  short: { records: 20_000, ratePerSec: 600, kills: 3, settleMs: 90_000 },
  full: { records: 200_000, ratePerSec: 2_000, kills: 5, settleMs: 300_000 },
} as const;

const HTTP = 'http_request_complete.v0';
const TCP = 'tcp_connection_closed.v0';

export const killWorker: Scenario = {
  name: 'kill-9',
  summary: 'SIGKILL the worker at random points while records flow, restart it each time; expect 0 missing.',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const p = PARAMS[ctx.scale];
    const started = Date.now();
    const prefix = chaosPrefix('kill');
    const topics = chaosTopics(prefix);
    const kafka = chaosKafka(ctx.broker.brokers, 'chaos-kill');
    const fileRoot = mkdtempSync(join(tmpdir(), 'edge-chaos-files-'));
    const filePath = 'kill/tcp.ndjson';
    const sink = new HttpSink();
    const reader = new KafkaTopicReader(kafka, topics.out('kafka'), `${prefix}-reader`);
    const source = new VerifiableSource(kafka, topics);
    const fleet = new ServiceFleet(ServiceFleet.env(prefix, ctx.broker.brokers, { FILE_DESTINATION_ROOT: fileRoot }));
    try {
      await sink.start();
      await createChaosTopics(kafka, topics, { extra: [{ topic: topics.out('kafka'), partitions: 2 }] });
      const dKafka = destination({ kafka: { topic: topics.out('kafka') } }, 'kafka');
      const dFile = destination({ file: { path: filePath } }, 'file');
      const dHttp = destination({ http: { url: sink.url('all') } }, 'http');
      await writeConfig(kafka, topics.config, [dKafka, dFile, dHttp], [
        subscription('https to kafka', [{ type: HTTP, fields: [...SEQ_FIELDS[HTTP]], filter: 'ev.conn.server_port == 443' }], [dKafka.id]),
        subscription('tcp to a file', [{ type: TCP, fields: [...SEQ_FIELDS[TCP]] }], [dFile.id]),
        subscription('everything to http', [{ type: HTTP, fields: [...SEQ_FIELDS[HTTP]] }, { type: TCP, fields: [...SEQ_FIELDS[TCP]] }], [dHttp.id]),
      ]);
      await reader.start();
      let worker = await fleet.start();
      ctx.log(`worker ${worker.child.pid} running; producing ${p.records} records at ${p.ratePerSec}/s`);

      const producing = source.produce(0, p.records, { ratePerSec: p.ratePerSec });
      producing.catch(() => undefined);
      const http = sink.of('all');
      const random = seededRandom(ctx.seed);
      const pauses: number[] = [];
      for (let k = 1; k <= p.kills; k++) {
        // A random point while the worker is delivering: after its first delivery, plus 0.5-3 s.
        const before = http.seqs.length;
        await waitFor(`deliveries from worker ${worker.child.pid}`, () => http.seqs.length > before, 120_000);
        await sleep(500 + random() * 2_500);
        const killedAt = Date.now();
        const deliveredAtKill = http.seqs.length;
        await fleet.kill(worker);
        ctx.log(`kill ${k}: SIGKILL worker ${worker.child.pid} after ${deliveredAtKill} http deliveries (${source.produced} records produced)`);
        // A request the dead worker had already sent can still arrive just after the kill; the new worker
        // needs well over half a second to boot, so its deliveries are the ones after that.
        const fromNewWorker = Date.now() + 500;
        worker = await fleet.start();
        await waitFor(`deliveries to resume after kill ${k}`, () => (http.at[http.at.length - 1] ?? 0) > fromNewWorker, 120_000);
        const resumedAt = http.at.find((t) => t > fromNewWorker) ?? Date.now();
        pauses.push(resumedAt - killedAt);
        ctx.log(`kill ${k}: worker ${worker.child.pid} delivering again ${resumedAt - killedAt} ms after the kill`);
      }
      await producing;
      ctx.log(`all ${source.produced} records produced; waiting for every destination`);

      const expected = {
        kafka: source.select((f: RecordFacts) => f.type === HTTP && f.serverPort === 443),
        file: source.select((f) => f.type === TCP),
        http: source.select(() => true),
      };
      let corruptLines = 0;
      const checks = (): DestinationCheck[] => {
        const file = readFileDestination(join(fileRoot, filePath));
        corruptLines = file.corruptLines;
        return [
          checkDestination('kafka topic (https records)', expected.kafka, reader.arrivals.seqs),
          checkDestination('file (tcp records)', expected.file, file.seqs),
          checkDestination('http (every record)', expected.http, http.seqs),
        ];
      };
      await waitFor('every event at every destination', () => checks().every((c) => c.missing === 0), p.settleMs, 1_000).catch((err: unknown) =>
        ctx.log(err instanceof Error ? err.message : String(err)),
      );
      const destinations = checks();
      const problems = [
        ...fleet.diagnose(totals(destinations).missing),
        ...fleet.unexpectedExits.map((e) => `worker ${e.pid} exited on its own (code ${e.code}, signal ${e.signal})`),
        ...(corruptLines > 0 ? [`${corruptLines} corrupt lines in the file destination`] : []),
        ...(sink.unreadable + reader.unreadable > 0 ? [`${sink.unreadable + reader.unreadable} delivered events carried no sequence number`] : []),
      ];
      return {
        scenario: this.name,
        scale: ctx.scale,
        durationMs: Date.now() - started,
        injected: [`${fleet.kills} x SIGKILL of the only worker at random points mid-stream (seed ${ctx.seed}), each followed by a restart`],
        records: source.produced,
        destinations,
        figures: {
          'kills': fleet.kills,
          'delivery pause after each kill, ms': pauses.join(', '),
          'longest delivery pause, ms': Math.max(...pauses),
          'consumer session timeout, ms': Number(fleet.env.CONSUMER_SESSION_TIMEOUT_MS),
          'consumer crashes logged': fleet.consumerCrashes().length,
          'produce rate, records/s': p.ratePerSec,
        },
        problems,
      };
    } finally {
      await fleet.stopAll('SIGKILL');
      await Promise.allSettled([reader.stop(), sink.stop(), source.close()]);
      rmSync(fileRoot, { recursive: true, force: true });
    }
  },
};
