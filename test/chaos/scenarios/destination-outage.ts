// Scenario 3, destination outage: two http destinations receive the same events; one answers 503 (and,
// in the full run, then hangs, then answers slowly) for a while. Nothing may be missing at either; the
// healthy one's rate during the outage is what per-destination isolation (parking,
// src/delivery/README.md) is about.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkDestination, totals, type DestinationCheck } from '../harness/checker.js';
import { HttpSink, type Arrivals, type SinkMode } from '../harness/http-sink.js';
import type { Scenario, ScenarioContext, ScenarioResult } from '../harness/scenario.js';
import { ServiceFleet, chaosKafka, chaosPrefix, chaosTopics, createChaosTopics, destination, subscription, writeConfig } from '../harness/service-cluster.js';
import { sleep, waitFor } from '../harness/timing.js';
import { SEQ_FIELDS, VerifiableSource } from '../harness/verifiable-source.js';

interface Phase {
  readonly mode: SinkMode;
  /** Healthy time before this phase starts. */
  readonly afterMs: number;
  readonly durationMs: number;
}

// The retry budget is set below the outage's length, so the outage outlasts it and parking can
// take the failing destination's deliveries aside; the default budget (120 s) would outlast the outage.
const PARAMS: Record<'short' | 'full', { ratePerSec: number; phases: Phase[]; tailMs: number; settleMs: number; retryBudgetMs: number }> = {
  short: { retryBudgetMs: 1_000, ratePerSec: 500, phases: [{ mode: { kind: 'status', status: 503 }, afterMs: 3_000, durationMs: 6_000 }], tailMs: 2_000, settleMs: 120_000 },
  full: {
    retryBudgetMs: 10_000,
    ratePerSec: 1_000,
    phases: [
      { mode: { kind: 'status', status: 503 }, afterMs: 5_000, durationMs: 30_000 },
      { mode: { kind: 'hang' }, afterMs: 15_000, durationMs: 30_000 },
      // Slow, not failing: each write is delivered 8 s late, within the writer's 10 s timeout (src/delivery/README.md, "Waiting").
      { mode: { kind: 'slow', delayMs: 8_000 }, afterMs: 15_000, durationMs: 30_000 },
    ],
    tailMs: 10_000,
    settleMs: 300_000,
  },
};

const HTTP = 'http_request_complete.v0';
const TCP = 'tcp_connection_closed.v0';
const PARKING_DIR = fileURLToPath(new URL('../../../src/delivery/parking/', import.meta.url));

function countBetween(a: Arrivals, from: number, to: number): number {
  let n = 0;
  for (const t of a.at) if (t >= from && t < to) n++;
  return n;
}

function describe(mode: SinkMode): string {
  if (mode.kind === 'slow') return `answers 200 after ${mode.delayMs / 1000} s`;
  return mode.kind === 'hang' ? 'accepts the connection and never answers' : mode.kind === 'status' ? `answers ${mode.status}` : 'answers 200';
}

export const destinationOutage: Scenario = {
  name: 'destination-outage',
  summary: 'One http destination answers 503 or hangs while a second stays healthy; expect 0 missing on both and report the healthy rate.',
  async run(ctx: ScenarioContext): Promise<ScenarioResult> {
    const p = PARAMS[ctx.scale];
    const started = Date.now();
    const prefix = chaosPrefix('outage');
    const topics = chaosTopics(prefix);
    const kafka = chaosKafka(ctx.broker.brokers, 'chaos-outage');
    const sink = new HttpSink();
    const source = new VerifiableSource(kafka, topics);
    const fleet = new ServiceFleet(ServiceFleet.env(prefix, ctx.broker.brokers, { RETRY_MAX_ELAPSED_MS: String(p.retryBudgetMs) }));
    try {
      await sink.start();
      await createChaosTopics(kafka, topics);
      const failing = destination({ http: { url: sink.url('failing') } }, 'failing');
      const healthy = destination({ http: { url: sink.url('healthy') } }, 'healthy');
      const sources = [
        { type: HTTP, fields: [...SEQ_FIELDS[HTTP]] },
        { type: TCP, fields: [...SEQ_FIELDS[TCP]] },
      ];
      await writeConfig(kafka, topics.config, [failing, healthy], [
        subscription('everything to the failing destination', sources, [failing.id]),
        subscription('everything to the healthy destination', sources, [healthy.id]),
      ]);
      await fleet.start();
      const totalMs = p.phases.reduce((t, ph) => t + ph.afterMs + ph.durationMs, 0) + p.tailMs;
      const records = Math.round((p.ratePerSec * totalMs) / 1000);
      ctx.log(`producing ${records} records at ${p.ratePerSec}/s for ${totalMs / 1000} s`);
      const producing = source.produce(0, records, { ratePerSec: p.ratePerSec, chunk: 100 });
      producing.catch(() => undefined);

      const good = sink.of('healthy');
      const bad = sink.of('failing');
      const figures: Record<string, number | string> = {
        'produce rate, records/s': p.ratePerSec,
        'parking present in the tree': existsSync(PARKING_DIR) ? 'yes' : 'no',
        'retry budget (RETRY_MAX_ELAPSED_MS), ms': p.retryBudgetMs,
      };
      const injected: string[] = [];
      const windows: Array<{ label: string; before: number; from: number; to: number }> = [];
      let healthySince = Date.now();
      for (const [i, phase] of p.phases.entries()) {
        await sleep(phase.afterMs);
        const from = Date.now();
        sink.setMode('failing', phase.mode);
        ctx.log(`outage ${i + 1}: the failing destination ${describe(phase.mode)} for ${phase.durationMs} ms`);
        await sleep(phase.durationMs);
        const to = Date.now();
        sink.setMode('failing', { kind: 'ok' });
        injected.push(`the failing destination ${describe(phase.mode)} for ${((to - from) / 1000).toFixed(1)} s`);
        windows.push({ label: `outage ${i + 1} (${describe(phase.mode)})`, before: healthySince, from, to });
        healthySince = to;
      }
      await producing;
      ctx.log(`all ${source.produced} records produced; waiting for both destinations`);

      const all = source.select(() => true);
      const checks = (): DestinationCheck[] => [checkDestination('failing http destination', all, bad.seqs), checkDestination('healthy http destination', all, good.seqs)];
      await waitFor('every event at both destinations', () => checks().every((c) => c.missing === 0), p.settleMs, 500).catch((err: unknown) =>
        ctx.log(err instanceof Error ? err.message : String(err)),
      );
      for (const w of windows) {
        // The first second after a switch is left out of "before": the previous outage's backlog drains there.
        const quiet = Math.min(w.before + 1_000, w.from);
        figures[`${w.label}: healthy destination before, events/s`] = (countBetween(good, quiet, w.from) * 1000) / Math.max(1, w.from - quiet);
        figures[`${w.label}: healthy destination during, events/s`] = (countBetween(good, w.from, w.to) * 1000) / (w.to - w.from);
        const back = bad.at.find((t) => t > w.to);
        figures[`${w.label}: failing destination, first delivery after the outage, ms`] = back === undefined ? 'none' : back - w.to;
      }
      figures['failing destination, requests refused or held in all'] = bad.refused;
      const destinations = checks();
      return {
        scenario: this.name,
        scale: ctx.scale,
        durationMs: Date.now() - started,
        injected,
        records: source.produced,
        destinations,
        figures,
        problems: [...fleet.diagnose(totals(destinations).missing), ...fleet.unexpectedExits.map((e) => `worker ${e.pid} exited on its own (code ${e.code}, signal ${e.signal})`)],
      };
    } finally {
      await fleet.stopAll('SIGKILL');
      await Promise.allSettled([sink.stop(), source.close()]);
    }
  },
};
