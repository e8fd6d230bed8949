// Scenario 4, poison records: malformed records of every kind interleaved with valid ones, under a
// realistic subscription set (filters that leave many records unmatched). Every malformed record must
// reach the dead-letter topic with its headers, every valid one its destinations, and the worker must
// never restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolMessage as Message } from '../../support/kafka-tools.js';
import { checkDestination, totals, type DestinationCheck } from '../harness/checker.js';
import { DeadLetterReader, KafkaTopicReader, readFileDestination, type DeadLetterSeen } from '../harness/destination-readers.js';
import { HttpSink } from '../harness/http-sink.js';
import { POISON_KINDS, poisonRecord, tenMegabyteRecord, type PoisonKind, type PoisonRecord } from '../harness/poison.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../harness/scenario.js';
import { ServiceFleet, chaosKafka, chaosPrefix, chaosTopics, createChaosTopics, destination, subscription, writeConfig } from '../harness/service-cluster.js';
import { seededRandom, waitFor } from '../harness/timing.js';
import { SEQ_FIELDS, VerifiableSource, type RecordFacts } from '../harness/verifiable-source.js';

const PARAMS = {
  short: { valid: 5_000, malformed: 1_000, settleMs: 90_000 },
  full: { valid: 50_000, malformed: 10_000, settleMs: 300_000 },
} as const;

const HTTP = 'http_request_complete.v0';
const TCP = 'tcp_connection_closed.v0';

/**
 * Kafka's default max.message.bytes (1 MiB plus batch overhead) refuses a ten-megabyte record at produce
 * time, so it would never reach the service. The scenario's traffic topics take up to 12 MiB, and so does
 * the dead-letter topic: a dead letter carries the whole record, so it needs at least the same limit.
 */
export const POISON_TOPIC_CONFIG = { 'max.message.bytes': String(12 * 1024 * 1024) };

// The subscription set: the filters of a real deployment, under which many records match nothing.
const FILTERS = {
  https: 'ev.conn.server_port == 443',
  app: 'ev.conn.server_name == "app.example.org"',
  lowTcp: 'ev.conn.server_port < 15000',
};
const matchesHttps = (f: RecordFacts): boolean => f.type === HTTP && f.serverPort === 443;
const matchesApp = (f: RecordFacts): boolean => f.type === HTTP && f.serverName === 'app.example.org';
const matchesLowTcp = (f: RecordFacts): boolean => f.type === TCP && f.serverPort < 15000;
const matchesAny = (f: RecordFacts): boolean => matchesHttps(f) || matchesApp(f) || matchesLowTcp(f);

export interface PoisonOutcome {
  /** Malformed records produced, by kind. */
  readonly produced: Partial<Record<PoisonKind, number>>;
  /** Records the service must dead-letter under any reading: head damage, or tail damage a subscription matched. */
  readonly mustDeadLetter: number;
  readonly missingDeadLetters: Array<{ key: string; kind: PoisonKind }>;
  /** Tail damage that no subscription matched: the issue wants these dead-lettered too; see "Cheap reads". */
  readonly unmatchedTail: number;
  readonly unmatchedTailDeadLettered: number;
  /** Letters whose headers or bytes are wrong (source topic, partition, offset, code, message, own headers, value). */
  readonly badLetters: string[];
  readonly duplicateLetters: number;
}

export function judgeDeadLetters(poison: readonly PoisonRecord[], topics: { http: string; tcp: string }, letters: readonly DeadLetterSeen[]): PoisonOutcome {
  const byKey = new Map<string, DeadLetterSeen[]>();
  for (const l of letters) if (l.key !== null) byKey.set(l.key, [...(byKey.get(l.key) ?? []), l]);
  const produced: Partial<Record<PoisonKind, number>> = {};
  const missingDeadLetters: Array<{ key: string; kind: PoisonKind }> = [];
  const badLetters: string[] = [];
  let mustDeadLetter = 0;
  let unmatchedTail = 0;
  let unmatchedTailDeadLettered = 0;
  let duplicateLetters = 0;
  for (const p of poison) {
    produced[p.kind] = (produced[p.kind] ?? 0) + 1;
    const must = p.damage === 'head' || (p.facts !== undefined && matchesAny(p.facts));
    const got = byKey.get(p.message.key) ?? [];
    if (must) mustDeadLetter++;
    else unmatchedTail++;
    if (got.length === 0) {
      if (must) missingDeadLetters.push({ key: p.message.key, kind: p.kind });
      continue;
    }
    if (!must) unmatchedTailDeadLettered++;
    duplicateLetters += got.length - 1;
    const letter = got[0] as DeadLetterSeen;
    const h = letter.headers;
    const topic = p.type === HTTP ? topics.http : topics.tcp;
    const wrong: string[] = [];
    if (h['x-source-topic'] !== topic) wrong.push(`x-source-topic ${h['x-source-topic']}`);
    if (!/^\d+$/.test(h['x-source-partition'] ?? '')) wrong.push('x-source-partition');
    if (!/^\d+$/.test(h['x-source-offset'] ?? '')) wrong.push('x-source-offset');
    if (!p.codes.includes(h['x-error-code'] ?? '')) wrong.push(`x-error-code ${h['x-error-code']} (expected ${p.codes.join('|')})`);
    if ((h['x-error-message'] ?? '') === '') wrong.push('x-error-message');
    for (const [name, value] of Object.entries(p.message.headers ?? {})) if (h[name] !== String(value)) wrong.push(`own header ${name}`);
    if (letter.sha256 !== p.sha256) wrong.push(`value (${letter.size} bytes, not the record's ${p.message.value.length})`);
    if (wrong.length > 0) badLetters.push(`${p.message.key} (${p.kind}): ${wrong.join(', ')}`);
  }
  return { produced, mustDeadLetter, missingDeadLetters, unmatchedTail, unmatchedTailDeadLettered, badLetters, duplicateLetters };
}

export const poisonRecords: Scenario = {
  name: 'poison-records',
  summary: 'Interleave malformed records of every kind with valid ones; every malformed one must be dead-lettered, every valid one delivered, and the worker must not restart.',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const p = PARAMS[ctx.scale];
    const started = Date.now();
    const prefix = chaosPrefix('poison');
    const topics = chaosTopics(prefix);
    const kafka = chaosKafka(ctx.broker.brokers, 'chaos-poison');
    const fileRoot = mkdtempSync(join(tmpdir(), 'edge-chaos-files-'));
    const filePath = 'poison/low-tcp.ndjson';
    const sink = new HttpSink();
    const reader = new KafkaTopicReader(kafka, topics.out('kafka'), `${prefix}-reader`);
    const dlq = new DeadLetterReader(kafka, topics.dlq, `${prefix}-dlq-reader`);
    const source = new VerifiableSource(kafka, topics);
    const fleet = new ServiceFleet(ServiceFleet.env(prefix, ctx.broker.brokers, { FILE_DESTINATION_ROOT: fileRoot }));
    try {
      await sink.start();
      await createChaosTopics(kafka, topics, { config: POISON_TOPIC_CONFIG, extra: [{ topic: topics.out('kafka'), partitions: 2 }] });
      const dKafka = destination({ kafka: { topic: topics.out('kafka') } }, 'kafka');
      const dFile = destination({ file: { path: filePath } }, 'file');
      const dHttp = destination({ http: { url: sink.url('app') } }, 'http');
      await writeConfig(kafka, topics.config, [dKafka, dFile, dHttp], [
        subscription('https', [{ type: HTTP, fields: [...SEQ_FIELDS[HTTP]], filter: FILTERS.https }], [dKafka.id]),
        subscription('low tcp ports', [{ type: TCP, fields: [...SEQ_FIELDS[TCP]], filter: FILTERS.lowTcp }], [dFile.id]),
        subscription('the app host', [{ type: HTTP, fields: [...SEQ_FIELDS[HTTP]], filter: FILTERS.app }], [dHttp.id]),
      ]);
      await Promise.all([reader.start(), dlq.start()]);
      const worker = await fleet.start();

      // Malformed records ride in every chunk of valid ones; the ten-megabyte one comes half-way.
      const random = seededRandom(ctx.seed);
      const poison: PoisonRecord[] = [];
      const chunk = 500;
      const perChunk = Math.ceil((p.malformed * chunk) / p.valid);
      const interleave = (first: number): Array<{ topic: string; message: Message }> => {
        const out: PoisonRecord[] = [];
        while (out.length < perChunk && poison.length < p.malformed) {
          const bad = poisonRecord(poison.length, random);
          poison.push(bad);
          out.push(bad);
        }
        if (first === Math.floor(p.valid / 2 / chunk) * chunk) {
          const huge = tenMegabyteRecord(0);
          poison.push(huge);
          out.push(huge);
        }
        return out.map((b) => ({ topic: b.type === HTTP ? topics.http : topics.tcp, message: b.message }));
      };
      await source.produce(0, p.valid, { chunk, interleave });
      ctx.log(`${source.produced} valid and ${poison.length} malformed records produced`);

      const expected = {
        kafka: source.select(matchesHttps),
        file: source.select(matchesLowTcp),
        http: source.select(matchesApp),
      };
      const mustLetters = poison.filter((b) => b.damage === 'head' || (b.facts !== undefined && matchesAny(b.facts))).length;
      let corruptLines = 0;
      const checks = (): DestinationCheck[] => {
        const file = readFileDestination(join(fileRoot, filePath));
        corruptLines = file.corruptLines;
        return [
          checkDestination('kafka topic (https)', expected.kafka, reader.arrivals.seqs),
          checkDestination('file (tcp ports below 15000)', expected.file, file.seqs),
          checkDestination('http (host app.example.org)', expected.http, sink.of('app').seqs),
        ];
      };
      await waitFor(
        'every valid event delivered and every required dead letter written',
        () => checks().every((c) => c.missing === 0) && judgeDeadLetters(poison, topics, dlq.letters).missingDeadLetters.length === 0,
        p.settleMs,
        500,
      ).catch((err: unknown) => ctx.log(err instanceof Error ? err.message : String(err)));
      // Letters of unmatched records, if the service writes them, come with the rest; a last look after a pause.
      await new Promise((r) => setTimeout(r, 2_000));
      const outcome = judgeDeadLetters(poison, topics, dlq.letters);
      const crashes = fleet.consumerCrashes();
      const destinations = checks();
      const problems = [
        ...fleet.diagnose(totals(destinations).missing + outcome.missingDeadLetters.length),
        ...fleet.unexpectedExits.map((e) => `worker ${e.pid} exited (code ${e.code}, signal ${e.signal}): ${e.lastLogs.slice(-3).join(' | ')}`),
        ...(crashes.length > 0 ? [`the consumer crashed ${crashes.length} times (the client started it again)`] : []),
        ...(fleet.processes.length !== 1 || fleet.processes[0] !== worker ? ['the worker process did not survive'] : []),
        ...(outcome.missingDeadLetters.length > 0
          ? [`${outcome.missingDeadLetters.length} malformed records missing from the dead-letter topic, e.g. ${outcome.missingDeadLetters.slice(0, 5).map((m) => `${m.key} (${m.kind})`).join(', ')}`]
          : []),
        ...outcome.badLetters.slice(0, 10).map((b) => `dead letter with wrong headers or bytes: ${b}`),
        ...(outcome.unmatchedTail > outcome.unmatchedTailDeadLettered
          ? [
              `GAP: ${outcome.unmatchedTail - outcome.unmatchedTailDeadLettered} of ${outcome.unmatchedTail} malformed records whose damage is past the filterable fields and that no subscription matched were dropped without a dead letter (docs/record-formats.md, "Cheap reads")`,
            ]
          : []),
        ...(corruptLines > 0 ? [`${corruptLines} corrupt lines in the file destination`] : []),
      ];
      return {
        scenario: this.name,
        scale: ctx.scale,
        durationMs: Date.now() - started,
        injected: [
          `${poison.length} malformed records interleaved with ${source.produced} valid ones: ${POISON_KINDS.map((k) => `${outcome.produced[k] ?? 0} ${k}`).join(', ')}, ${outcome.produced.ten_megabytes ?? 0} of ten megabytes`,
          `subscriptions: http "${FILTERS.https}", http "${FILTERS.app}", tcp "${FILTERS.lowTcp}"`,
        ],
        records: source.produced,
        destinations,
        figures: {
          'malformed records': poison.length,
          'dead letters written': dlq.letters.length,
          'malformed records that must be dead-lettered (head damage, or tail damage a subscription matched)': mustLetters,
          'of those missing from the dead-letter topic': outcome.missingDeadLetters.length,
          'malformed records with tail damage no subscription matched': outcome.unmatchedTail,
          'of those dead-lettered': outcome.unmatchedTailDeadLettered,
          'dead letters with wrong headers or bytes': outcome.badLetters.length,
          'duplicate dead letters': outcome.duplicateLetters,
          'worker processes started': 1 + fleet.unexpectedExits.length,
          'consumer crashes logged': crashes.length,
          'topic max.message.bytes (traffic and dead-letter topics)': POISON_TOPIC_CONFIG['max.message.bytes'],
        },
        problems,
      };
    } finally {
      await fleet.stopAll('SIGKILL');
      await Promise.allSettled([reader.stop(), dlq.stop(), sink.stop(), source.close()]);
      rmSync(fileRoot, { recursive: true, force: true });
    }
  },
};
