// A destination's delivery history (GET /event_destinations/{id}/history) as charts: delivered per
// period, failed attempts by code, latency p50 and p99, parked and dead-lettered, over 1 h, 24 h or 7 d;
// and the card's sparkline of delivered events. The API lists only periods with activity: a period
// it does not list is a gap in every series, never a zero.
import { useState } from 'preact/hooks';
import { api, must, type DestinationHistory, type HistoryPoint } from '../api/client.ts';
import { Chart, type ChartColor } from './chart.tsx';
import { useLoad } from './hooks.ts';
import { Problem } from './parts.tsx';

export const HISTORY_RANGES = { '1 h': 3_600_000, '24 h': 86_400_000, '7 d': 7 * 86_400_000 } as const;
export type HistoryRange = keyof typeof HISTORY_RANGES;
/** How often the charts ask again: a point is published when its period closes. */
const HISTORY_REFRESH_MS = 30_000;
/** Failure codes drawn apart; the rest are summed as "other". */
const CODES_DRAWN = 3;
const CODE_COLORS: readonly ChartColor[] = ['--bad', '--warn', '--info', '--muted'];
/** The charts' titles that do not depend on the resolution, drawn while the history loads. */
const CHART_TITLES = ['Delivered', 'Failed attempts by code', 'Latency, record to acknowledgement', 'Parked and dead-lettered'] as const;

export async function loadHistory(id: string, rangeMs: number): Promise<DestinationHistory> {
  return must(api.GET('/event_destinations/{id}/history', { params: { path: { id }, query: { from: new Date(Date.now() - rangeMs).toISOString() } } }));
}

/** Every period of the range, and the point of each the API listed (undefined for a gap). */
export function periods(h: DestinationHistory): { times: number[]; points: (HistoryPoint | undefined)[] } {
  const from = Date.parse(h.from);
  const count = Math.round((Date.parse(h.to) - from) / h.resolution_ms);
  const byStart = new Map(h.points.map((p) => [Date.parse(p.start), p]));
  const times = Array.from({ length: count }, (_, i) => from + i * h.resolution_ms);
  return { times, points: times.map((t) => byStart.get(t)) };
}

const sum = (points: readonly (HistoryPoint | undefined)[], of: (p: HistoryPoint) => number): number => points.reduce((n, p) => n + (p === undefined ? 0 : of(p)), 0);
const per = (h: DestinationHistory): string => (h.resolution === 'minute' ? 'minute' : 'hour');

/** The failure codes of the range, most attempts first. */
function codesOf(points: readonly (HistoryPoint | undefined)[]): string[] {
  const totals = new Map<string, number>();
  for (const p of points) for (const f of p?.failures ?? []) totals.set(f.code, (totals.get(f.code) ?? 0) + f.count);
  return [...totals].sort((a, b) => b[1] - a[1]).map(([code]) => code);
}

export function HistoryCharts({ id }: { id: string }) {
  const [range, setRange] = useState<HistoryRange>('1 h');
  const history = useLoad(() => loadHistory(id, HISTORY_RANGES[range]), [id, range], HISTORY_REFRESH_MS);
  const h = history.data;
  return (
    <section class="history" aria-labelledby="history-title">
      <div class="page-header">
        <h2 id="history-title">Delivery history</h2>
        <div class="actions" role="group" aria-label="Range">
          {(Object.keys(HISTORY_RANGES) as HistoryRange[]).map((r) => (
            <button type="button" key={r} aria-pressed={r === range} class={r === range ? 'primary' : undefined} onClick={() => setRange(r)}>
              Last {r}
            </button>
          ))}
        </div>
      </div>
      <Problem failure={history.failure} />
      {h === undefined ? (
        // The four cards at their own height while the history loads, so nothing moves when it comes.
        <div class="charts" aria-busy="true" aria-label="Loading">
          {CHART_TITLES.map((title) => (
            <div class="card" key={title}>
              <figure class="chart">
                <figcaption>{title}</figcaption>
                <div class="chart-canvas" />
                <p class="chart-summary muted">Loading…</p>
              </figure>
            </div>
          ))}
        </div>
      ) : (
        <Charts h={h} range={range} />
      )}
    </section>
  );
}

function Charts({ h, range }: { h: DestinationHistory; range: HistoryRange }) {
  const { times, points } = periods(h);
  const value = (of: (p: HistoryPoint) => number | null): (number | null)[] => points.map((p) => (p === undefined ? null : of(p)));
  const codes = codesOf(points);
  const drawn = codes.slice(0, CODES_DRAWN);
  const others = codes.slice(CODES_DRAWN);
  const failureSeries = [
    ...drawn.map((code, i) => ({ label: code, color: CODE_COLORS[i] ?? '--muted', values: value((p) => p.failures.find((f) => f.code === code)?.count ?? 0) })),
    ...(others.length > 0 ? [{ label: 'other', color: '--muted' as const, values: value((p) => p.failures.filter((f) => others.includes(f.code)).reduce((n, f) => n + f.count, 0)) }] : []),
  ];
  const delivered = sum(points, (p) => p.delivered);
  const failed = sum(points, (p) => p.failed_attempts);
  const latencies = points.filter((p) => p?.latency_ms !== null && p?.latency_ms !== undefined).map((p) => p?.latency_ms?.p99 ?? 0);
  const gaps = points.filter((p) => p === undefined).length;
  const gapText = gaps === 0 ? '' : ` ${gaps} of the ${points.length} ${per(h)}s had no activity (gaps).`;
  return (
    <div class="charts" data-resolution={h.resolution} data-from={h.from} data-to={h.to}>
      <div class="card">
        <Chart title={`Delivered per ${per(h)}`} times={times} bars unit="events" series={[{ label: 'delivered', values: value((p) => p.delivered), color: '--ok' }]}
          summary={`${delivered} events delivered in the last ${range}.${gapText}`} />
      </div>
      <div class="card">
        <Chart title="Failed attempts by code" times={times} bars unit="attempts" series={failureSeries.length > 0 ? failureSeries : [{ label: 'failed', values: value((p) => p.failed_attempts), color: '--bad' }]}
          summary={failed === 0 ? `No failed attempts in the last ${range}.` : `${failed} failed attempts in the last ${range}: ${codes.map((c) => `${c} ${sum(points, (p) => p.failures.find((f) => f.code === c)?.count ?? 0)}`).join(', ')}.`} />
      </div>
      <div class="card">
        <Chart title="Latency, record to acknowledgement" times={times} unit="ms" series={[{ label: 'p50', values: value((p) => p.latency_ms?.p50 ?? null), color: '--accent' }, { label: 'p99', values: value((p) => p.latency_ms?.p99 ?? null), color: '--warn' }]}
          summary={latencies.length === 0 ? `Nothing delivered in the last ${range}, so no latency.` : `The p99 latency was at most ${Math.max(...latencies)} ms a ${per(h)} in the last ${range}.`} />
      </div>
      <div class="card">
        <Chart title="Parked and dead-lettered" times={times} bars unit="events" series={[{ label: 'parked', values: value((p) => p.parked), color: '--warn' }, { label: 'dead-lettered', values: value((p) => p.dead_lettered), color: '--bad' }]}
          summary={`${sum(points, (p) => p.parked)} events parked and ${sum(points, (p) => p.dead_lettered)} dead-lettered in the last ${range}.`} />
      </div>
    </div>
  );
}

/** The card's sparkline: delivered events a period over the last hour. */
export function DeliveredSpark({ id, name }: { id: string; name: string }) {
  const history = useLoad(() => loadHistory(id, HISTORY_RANGES['1 h']), [id], HISTORY_REFRESH_MS);
  const h = history.data;
  // The sparkline's own height while it loads, so that the card does not grow under the reader.
  if (h === undefined) return <div class="chart spark" aria-hidden="true"><div class="chart-canvas" /></div>;
  const { times, points } = periods(h);
  const delivered = sum(points, (p) => p.delivered);
  return (
    <Chart title={`Delivered by ${name}`} times={times} spark bars unit="events" series={[{ label: 'delivered', values: points.map((p) => (p === undefined ? null : p.delivered)), color: '--ok' }]}
      summary={`${delivered} events delivered in the last hour.`} />
  );
}
