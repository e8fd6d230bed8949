// One Kafka benchmark session: a broker, preloaded raw topics, and configurations (passthrough clients or workers) measured on them.
import type { KafkaClient as Kafka } from '../../src/kafka/seam.js';
import type { WireForm } from '../../src/records/record-types.js';
import type { TrafficUniverse } from '../../src/traffic/generator.js';
import type { SubscriptionKind, SubscriptionWorkload } from '../workload/subscriptions.js';
import { startBenchBroker, type BenchBroker } from './broker.js';
import { serviceNodeFlags, startChild, startWorker, type BenchChild } from './child.js';
import { measureLatency, type LatencyResult } from './latency.js';
import { benchKafka, benchTopics, createTopics, preload, trafficSource, uniquePrefix, workerEnv, writeConfig, type BenchTopics } from './setup.js';
import { startKcatCopy } from './kcat.js';
import { endOffsets, watchDrain, watchOutputs, type DrainResult } from './watch.js';

export interface Configuration {
  readonly name: string;
  /** Topics its deliveries land in. */
  readonly outputs: readonly string[];
  readonly inputTime: 'envelope' | 'header';
  /** Creates its output topics and writes its config; safe to call again. */
  prepare(): Promise<void>;
  /** Starts its processes in `group` (after prepare()). */
  start(group: string): Promise<BenchChild[]>;
  /** Set for worker configurations once their subscriptions are written. */
  workload?: SubscriptionWorkload;
  /**
   * 'outputs': its progress is the records written to its outputs (a copy whose commits say nothing of
   * what it wrote), and it has no latency run. Default: its group's commits.
   */
  readonly measuredBy?: 'outputs';
  /** The raw topics it reads, when not the session's Avro ones (KafkaBenchSession.inputsOf). */
  readonly inputs?: readonly string[];
}

export interface DrainReport extends DrainResult {
  /** Delivered events per second over the same window (outputs written / records consumed x records/s). */
  readonly eventsPerSecond: number;
  readonly eventsPerRecord: number;
}

/** Seconds of records sent at a latency run's rate, and delivered, before the measured ones (measureLatency). */
export const LATENCY_WARMUP_SECONDS = 5;

function alive(children: readonly BenchChild[]): void {
  const dead = children.find((ch) => ch.child.signalCode !== null || (ch.child.exitCode !== null && !(ch.mayExit && ch.child.exitCode === 0)));
  if (dead !== undefined) throw new Error(`${dead.name} exited (${dead.child.exitCode ?? dead.child.signalCode})`);
}

/**
 * A broker and the same generated records in each wire form preloaded (preload): the Avro form in the
 * session's own raw topics, the JSON form in raw topics of their own. Copies and workers read one form.
 */
export class KafkaBenchSession {
  readonly topics: BenchTopics;
  readonly kafka: Kafka;
  readonly universe: TrafficUniverse;
  readonly source: ReturnType<typeof trafficSource>['next'];
  /** The raw topics of each form preloaded so far. */
  private readonly traffic = new Map<WireForm, BenchTopics['traffic']>();
  private readonly groups = new Map<Configuration, string>();
  private configCount = 0;

  private constructor(
    readonly name: string,
    readonly broker: BenchBroker,
    private readonly progress: (m: string) => void,
  ) {
    this.topics = benchTopics(uniquePrefix(name));
    this.kafka = benchKafka(broker.brokers);
    this.traffic.set('avro', this.topics.traffic);
    const t = trafficSource(1, 'avro');
    this.universe = t.universe;
    this.source = t.next;
  }

  /** A broker and the Avro raw topics. */
  static async open(name: string, progress: (m: string) => void): Promise<KafkaBenchSession> {
    const broker = await startBenchBroker(progress);
    try {
      const s = new KafkaBenchSession(name, broker, progress);
      await createTopics(s.kafka, s.topics, []);
      return s;
    } catch (err) {
      await broker.stop();
      throw err;
    }
  }

  /** The Avro raw topics. */
  get inputs(): string[] {
    return this.inputsOf('avro');
  }

  /** The raw topics of one wire form (preload it first). */
  trafficOf(form: WireForm): BenchTopics['traffic'] {
    const traffic = this.traffic.get(form);
    if (traffic === undefined) throw new Error(`no ${form} records were preloaded in this session`);
    return traffic;
  }

  inputsOf(form: WireForm): string[] {
    return Object.values(this.trafficOf(form)) as string[];
  }

  output(name: string): string {
    return `${this.topics.prefix}.out.${name}`;
  }

  /** A copy's one output topic, created by the first prepare of its configuration. */
  private copyOutput(name: string): { readonly out: string; readonly prepare: () => Promise<void> } {
    const out = this.output(name);
    let created = false;
    const prepare = async (): Promise<void> => {
      if (!created) await createTopics(this.kafka, this.topics, [out]);
      created = true;
    };
    return { out, prepare };
  }

  /**
   * Preloads `count` records in `form`: Avro into the session's raw topics, JSON (the same records'
   * content, with content-type: application/json) into raw topics of their own.
   */
  async preload(count: number, form: WireForm = 'avro'): Promise<number> {
    let topics = this.topics;
    let source = this.source;
    if (form !== 'avro') {
      const traffic = { 'http_request_complete.v0': `${this.topics.prefix}.${form}.http`, 'tcp_connection_closed.v0': `${this.topics.prefix}.${form}.tcp` };
      topics = { ...this.topics, traffic };
      source = trafficSource(1, form).next;
      await createTopics(this.kafka, topics, []);
    }
    const started = Date.now();
    const rate = await preload(this.broker.brokers, topics, count, source, this.progress);
    this.progress(`preloaded ${count.toLocaleString('en-US')} ${form} records in ${((Date.now() - started) / 1000).toFixed(1)} s (${Math.round(rate).toLocaleString('en-US')}/s)`);
    this.traffic.set(form, topics.traffic);
    return rate;
  }

  /** The configuration's `inputs` for a form other than the session's Avro topics. */
  private inputsField(form: WireForm): Pick<Configuration, 'inputs'> {
    return form === 'avro' ? {} : { inputs: this.inputsOf(form) };
  }

  /** A client's passthrough child process copying the records of `input` (Avro unless told) to one output topic. */
  passthrough(name: string, script: string, opts: { nodeArgs?: readonly string[]; input?: WireForm } = {}): Configuration {
    const { out, prepare } = this.copyOutput(name);
    const inputs = this.inputsOf(opts.input ?? 'avro');
    return {
      name,
      outputs: [out],
      inputTime: 'header',
      ...this.inputsField(opts.input ?? 'avro'),
      prepare,
      start: async (group) => {
        const env = { BENCH_BROKERS: this.broker.brokers, BENCH_IN_TOPICS: inputs.join(','), BENCH_OUT_TOPIC: out, BENCH_GROUP: group };
        return [await startChild(name, script, env, 'passthrough ready', { nodeArgs: opts.nodeArgs })];
      },
    };
  }

  /** Debian's kcat copying the raw topics to one output topic (kcat.ts), the baseline nothing written in JavaScript beats. */
  kcatCopy(name: string): Configuration {
    const { out, prepare } = this.copyOutput(name);
    return {
      name,
      outputs: [out],
      inputTime: 'header',
      measuredBy: 'outputs',
      prepare,
      start: async (group) => [await startKcatCopy(this.broker.brokers, this.inputs, out, group)],
    };
  }

  /**
   * `processes` service workers with `subscriptions` subscriptions delivering to `destinations` kafka
   * destinations, run with the Node flags of `npm start` unless `nodeArgs` are given, from `root` (another
   * checkout) when given.
   */
  worker(
    name: string,
    subscriptions: number,
    opts: {
      processes?: number;
      destinations?: number;
      kind?: SubscriptionKind;
      env?: Record<string, string>;
      nodeArgs?: readonly string[];
      compiled?: boolean;
      root?: string;
      /** The wire form of the records it reads (preloaded first); Avro unless told. */
      input?: WireForm;
    } = {},
  ): Configuration {
    const outputs = Array.from({ length: opts.destinations ?? 1 }, (_, i) => this.output(`${name}-${i}`));
    const traffic = this.trafficOf(opts.input ?? 'avro');
    const topics = { ...this.topics, traffic, config: `${this.topics.prefix}.config.${++this.configCount}` };
    let written = false;
    const c: Configuration = {
      name,
      outputs,
      inputTime: 'envelope',
      ...this.inputsField(opts.input ?? 'avro'),
      prepare: async () => {
        if (written) return;
        await createTopics(this.kafka, topics, outputs);
        this.progress(`${name}: writing ${subscriptions.toLocaleString('en-US')} subscriptions to the config log`);
        c.workload = await writeConfig(this.kafka, topics, outputs, this.universe, { count: subscriptions, kind: opts.kind ?? 'one-percent' });
        written = true;
      },
      start: async (group) => {
        const env = { ...workerEnv(this.broker.brokers, topics, group), ...opts.env };
        const children: BenchChild[] = [];
        try {
          for (let i = 0; i < (opts.processes ?? 1); i++) children.push(await startWorker(`${name} #${i + 1}`, env, opts.nodeArgs ?? serviceNodeFlags(), opts.compiled, opts.root));
        } catch (err) {
          await Promise.allSettled(children.map((ch) => ch.stop()));
          throw err;
        }
        return children;
      },
    };
    return c;
  }

  groupOf(c: Configuration): string {
    let g = this.groups.get(c);
    if (g === undefined) this.groups.set(c, (g = `${this.topics.prefix}-${c.name.replace(/[^a-zA-Z0-9._-]/g, '-')}`));
    return g;
  }

  /** Starts the configuration, waits until it has committed everything in the raw topics, stops it. */
  async drain(c: Configuration, timeoutMs: number): Promise<DrainReport> {
    await c.prepare();
    const inputs = c.inputs ?? this.inputs;
    const target = await endOffsets(this.kafka, inputs);
    const outBefore = await endOffsets(this.kafka, c.outputs);
    this.progress(`${c.name}: starting; it must commit ${target.toLocaleString('en-US')} records`);
    const children = await c.start(this.groupOf(c));
    try {
      const pids = children.flatMap((ch) => ch.pids ?? [ch.pid]);
      const watch = { timeoutMs, progress: this.progress, check: () => alive(children) };
      const r =
        c.measuredBy === 'outputs'
          ? await watchOutputs(this.kafka, c.outputs, outBefore, target, pids, watch)
          : await watchDrain(this.kafka, this.groupOf(c), inputs, target, pids, watch);
      const delivered = (await endOffsets(this.kafka, c.outputs)) - outBefore;
      if (c.measuredBy === 'outputs' && delivered !== target) throw new Error(`${c.name} wrote ${delivered} records for ${target}`);
      const eventsPerRecord = delivered / target;
      this.progress(`${c.name}: ${Math.round(r.recordsPerSecond).toLocaleString('en-US')} records/s, ${eventsPerRecord.toFixed(2)} events/record, ${r.cores.toFixed(2)} cores, peak RSS ${Math.round(r.peakRssMiB)} MiB`);
      return { ...r, eventsPerRecord, eventsPerSecond: r.recordsPerSecond * eventsPerRecord };
    } catch (err) {
      throw new Error(`${c.name} failed: ${err instanceof Error ? err.message : String(err)}\n${children.map((ch) => `--- ${ch.name}:\n${ch.tail()}`).join('\n')}`, { cause: err });
    } finally {
      await Promise.allSettled(children.map((ch) => ch.stop()));
    }
  }

  /**
   * Starts the configuration again (its group resumes), lets it catch up, sends LATENCY_WARMUP_SECONDS of
   * records at `rate` and lets it deliver them, then measures latency at `rate` for `seconds`.
   */
  async latency(c: Configuration, rate: number, seconds: number, timeoutMs: number): Promise<LatencyResult> {
    await c.prepare();
    if (c.measuredBy === 'outputs' || c.inputs !== undefined) throw new Error(`${c.name} has no latency run`);
    const children = await c.start(this.groupOf(c));
    try {
      const pids = children.map((ch) => ch.pid);
      await watchDrain(this.kafka, this.groupOf(c), this.inputs, await endOffsets(this.kafka, this.inputs), pids, { timeoutMs, progress: this.progress, check: () => alive(children) });
      this.progress(`${c.name}: measuring latency at ${Math.round(rate).toLocaleString('en-US')} records/s for ${seconds} s, after ${LATENCY_WARMUP_SECONDS} s not measured`);
      return await measureLatency(this.kafka, {
        brokers: this.broker.brokers,
        topics: this.topics,
        outputs: c.outputs,
        group: this.groupOf(c),
        pids,
        rate,
        count: Math.round(rate * seconds),
        warmupCount: Math.round(rate * LATENCY_WARMUP_SECONDS),
        source: this.source,
        inputTime: c.inputTime,
        timeoutMs,
        progress: this.progress,
      });
    } finally {
      await Promise.allSettled(children.map((ch) => ch.stop()));
    }
  }

  async close(): Promise<void> {
    await this.broker.stop();
  }
}
