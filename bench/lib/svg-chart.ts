// Small dependency-free SVG charts for benchmark results: lines (e.g. throughput against subscriptions) and grouped bars (e.g. latency percentiles).

export interface ChartSeries {
  readonly name: string;
  /** [x, y] points; for bar charts x is the index of the category. */
  readonly points: readonly (readonly [number, number])[];
}

export interface LineChart {
  readonly kind: 'line';
  /** File-name part: the chart is written to <bench>-<id>.svg. */
  readonly id: string;
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly ChartSeries[];
  /** A logarithmic x axis, for 10 / 100 / 1,000 / 10,000 subscriptions. */
  readonly logX?: boolean;
}

export interface BarChart {
  readonly kind: 'bar';
  readonly id: string;
  readonly title: string;
  readonly yLabel: string;
  /** One group of bars per category (e.g. a configuration). */
  readonly categories: readonly string[];
  /** One bar per series in each group (e.g. p50, p99); point [i, y] is category i. */
  readonly series: readonly ChartSeries[];
}

export type Chart = LineChart | BarChart;

const W = 720;
const H = 420;
const M = { left: 84, right: 24, top: 48, bottom: 92 };
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#17becf'];

const esc = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A short label: 1.2k, 35M. */
export function shortNumber(v: number): string {
  const a = Math.abs(v);
  const f = (x: number, unit: string): string => `${Number(x.toPrecision(3)).toString()}${unit}`;
  if (a >= 1e9) return f(v / 1e9, 'G');
  if (a >= 1e6) return f(v / 1e6, 'M');
  if (a >= 1e3) return f(v / 1e3, 'k');
  return Number(v.toPrecision(3)).toString();
}

/** About five round ticks from 0 to just above max. */
function niceTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? raw;
  const ticks: number[] = [];
  for (let t = 0; t <= max + step * 0.999; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

function frame(title: string, yLabel: string, xLabel: string, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="#ffffff"/>`,
    `<text x="${W / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`,
    `<text transform="translate(18 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`,
    `<text x="${(M.left + W - M.right) / 2}" y="${H - 52}" text-anchor="middle">${esc(xLabel)}</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

function yAxis(ticks: number[], y: (v: number) => number): string[] {
  return ticks.flatMap((t) => [
    `<line x1="${M.left}" x2="${W - M.right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#e3e3e3"/>`,
    `<text x="${M.left - 8}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${shortNumber(t)}</text>`,
  ]);
}

function legend(series: readonly ChartSeries[]): string[] {
  return series.flatMap((s, i) => {
    const x = M.left + (i % 4) * 160;
    const y = H - 28 + Math.floor(i / 4) * 16;
    return [
      `<rect x="${x}" y="${y - 9}" width="12" height="12" fill="${COLORS[i % COLORS.length]}"/>`,
      `<text x="${x + 18}" y="${y + 1}">${esc(s.name)}</text>`,
    ];
  });
}

function lineChart(c: LineChart): string {
  const xs = c.series.flatMap((s) => s.points.map(([x]) => x));
  const ys = c.series.flatMap((s) => s.points.map(([, y]) => y));
  const tx = (v: number): number => (c.logX ? Math.log10(Math.max(v, 1e-9)) : v);
  const x0 = Math.min(...xs.map(tx));
  const x1 = Math.max(...xs.map(tx));
  const ticks = niceTicks(Math.max(...ys, 0));
  const yMax = ticks[ticks.length - 1] as number;
  const x = (v: number): number => M.left + ((tx(v) - x0) / (x1 - x0 || 1)) * (W - M.left - M.right);
  const y = (v: number): number => H - M.bottom - (v / (yMax || 1)) * (H - M.top - M.bottom);
  const xTicks = [...new Set(xs)].sort((a, b) => a - b);
  const body = [
    ...yAxis(ticks, y),
    ...xTicks.map((t) => `<text x="${x(t).toFixed(1)}" y="${H - M.bottom + 18}" text-anchor="middle">${shortNumber(t)}</text>`),
    `<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#333"/>`,
    ...c.series.flatMap((s, i) => {
      const color = COLORS[i % COLORS.length] as string;
      const pts = s.points.map(([px, py]) => `${x(px).toFixed(1)},${y(py).toFixed(1)}`);
      return [
        `<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts.join(' ')}"/>`,
        ...s.points.map(([px, py]) => `<circle cx="${x(px).toFixed(1)}" cy="${y(py).toFixed(1)}" r="3.5" fill="${color}"><title>${esc(`${s.name}: ${shortNumber(py)} at ${shortNumber(px)}`)}</title></circle>`),
      ];
    }),
    ...legend(c.series),
  ];
  return frame(c.title, c.yLabel, c.xLabel + (c.logX ? ' (log scale)' : ''), body);
}

function barChart(c: BarChart): string {
  const ys = c.series.flatMap((s) => s.points.map(([, v]) => v));
  const ticks = niceTicks(Math.max(...ys, 0));
  const yMax = ticks[ticks.length - 1] as number;
  const y = (v: number): number => H - M.bottom - (v / (yMax || 1)) * (H - M.top - M.bottom);
  const groupW = (W - M.left - M.right) / Math.max(1, c.categories.length);
  const barW = (groupW * 0.8) / Math.max(1, c.series.length);
  const body = [
    ...yAxis(ticks, y),
    ...c.categories.map((name, i) => `<text x="${(M.left + groupW * (i + 0.5)).toFixed(1)}" y="${H - M.bottom + 18}" text-anchor="middle">${esc(name)}</text>`),
    ...c.series.flatMap((s, si) =>
      s.points.map(([i, v]) => {
        const bx = M.left + groupW * i + groupW * 0.1 + barW * si;
        return `<rect x="${bx.toFixed(1)}" y="${y(v).toFixed(1)}" width="${(barW - 2).toFixed(1)}" height="${(H - M.bottom - y(v)).toFixed(1)}" fill="${COLORS[si % COLORS.length]}"><title>${esc(`${c.categories[i] ?? ''} ${s.name}: ${shortNumber(v)}`)}</title></rect>`;
      }),
    ),
    `<line x1="${M.left}" x2="${W - M.right}" y1="${H - M.bottom}" y2="${H - M.bottom}" stroke="#333"/>`,
    ...legend(c.series),
  ];
  return frame(c.title, c.yLabel, '', body);
}

export function renderChart(c: Chart): string {
  return c.kind === 'line' ? lineChart(c) : barChart(c);
}
