// Charts through uPlot (a canvas; its stylesheet is bundled, and it styles elements through the CSSOM,
// which the console's Content-Security-Policy allows). Each chart is a figure named by its title, with
// a sentence that says what it shows for a screen reader and a table of its points behind a disclosure.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef, useState } from 'preact/hooks';

export interface ChartSeries {
  readonly label: string;
  /** One value a point, null for a gap (no point there, never a zero). */
  readonly values: readonly (number | null)[];
  /** A colour of the stylesheet, e.g. "--accent". */
  readonly color: ChartColor;
}

export type ChartColor = '--accent' | '--bad' | '--warn' | '--ok' | '--muted' | '--info';

export interface ChartProps {
  /** The figure's accessible name and caption. */
  readonly title: string;
  /** Times of the points, in ms since the epoch. */
  readonly times: readonly number[];
  readonly series: readonly ChartSeries[];
  /** A line per series (default) or bars (counts per interval). */
  readonly bars?: boolean;
  /** The unit of the values, for the axis and the table, e.g. "events" or "ms". */
  readonly unit: string;
  /** What the chart shows, in a sentence (its text alternative). */
  readonly summary: string;
  /** A sparkline: no axes, no table, the summary alone. */
  readonly spark?: boolean;
  /** The table of the points behind a disclosure (default true; a sparkline has none). */
  readonly table?: boolean;
}

const colorOf = (name: ChartColor | '--line'): string => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#0b5cad';

/** The plot's size is its box's: the stylesheet gives each kind of chart its height, so the page keeps its place before the canvas is drawn. */
function options(p: ChartProps, width: number, height: number): uPlot.Options {
  const muted = colorOf('--muted');
  const axis = { stroke: muted, grid: { stroke: colorOf('--line'), width: 1 }, ticks: { stroke: colorOf('--line') } };
  return {
    width,
    height,
    legend: { show: false },
    cursor: p.spark === true ? { show: false } : { drag: { x: false, y: false } },
    scales: { x: { time: true }, y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
    axes: p.spark === true ? [{ show: false }, { show: false }] : [axis, { ...axis, size: 52, label: p.unit, labelSize: 18 }],
    series: [
      {},
      ...p.series.map((s) => {
        const color = colorOf(s.color);
        return {
          label: s.label,
          stroke: color,
          width: p.spark === true ? 1.5 : 2,
          ...(p.bars === true && { paths: uPlot.paths.bars?.({ size: [0.8, 12] }), fill: color }),
          points: { show: false },
          spanGaps: false,
        };
      }),
    ],
  };
}

/** A time chart of one or more series; the table of its points is the text alternative beside it. */
export function Chart(props: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const data: uPlot.AlignedData = [props.times.map((t) => t / 1000), ...props.series.map((s) => [...s.values])];
  const shape = `${props.series.map((s) => s.label).join('|')}|${String(props.bars)}|${String(props.spark)}`;
  useEffect(() => {
    const el = box.current;
    if (el === null) return;
    const made = new uPlot(options(props, Math.max(120, Math.floor(el.clientWidth)), Math.max(24, Math.floor(el.clientHeight))), data, el);
    plot.current = made;
    // Only a change of the box's width redraws: a redraw that moved the box would otherwise loop.
    const resize = new ResizeObserver(() => {
      const width = Math.max(120, Math.floor(el.clientWidth));
      if (Math.abs(width - made.width) > 1) made.setSize({ width, height: made.height });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      made.destroy();
      plot.current = undefined;
    };
    // A new plot only for a new set of series; new points go through setData below.
  }, [shape]);
  useEffect(() => {
    plot.current?.setData(data);
  });
  const id = `chart-${props.title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <figure class={props.spark === true ? 'chart spark' : 'chart'} aria-labelledby={`${id}-title`} aria-describedby={`${id}-summary`} data-chart={props.title} data-points={props.times.length}>
      <figcaption id={`${id}-title`} class={props.spark === true ? 'visually-hidden' : undefined}>
        {props.title}
      </figcaption>
      {/* The canvas is drawn for the eye; its words are the summary and the table. */}
      <div class="chart-canvas" ref={box} aria-hidden="true" />
      <p class={props.spark === true ? 'visually-hidden' : 'chart-summary muted'} id={`${id}-summary`}>
        {props.summary}
      </p>
      {props.spark !== true && props.table !== false && <ChartTable {...props} />}
    </figure>
  );
}

const timeText = (ms: number): string => new Date(ms).toLocaleString(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** The periods where some series has a value, with their index: a day of minutes is mostly gaps, which the chart shows. */
function rowsWithValues(times: readonly number[], series: ChartProps['series']): Array<[number, number]> {
  return times.flatMap((t, i) => (series.some((s) => s.values[i] !== null && s.values[i] !== undefined) ? [[t, i] as [number, number]] : []));
}

function ChartTable({ title, times, series, unit }: ChartProps) {
  // Drawn only while open: a day of minutes is 1,440 rows a chart, redrawn with every refresh of the page.
  const [open, setOpen] = useState(false);
  return (
    <details class="chart-table" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Table of the points</summary>
      {open && <div class="table-scroll" tabIndex={0} aria-label={`${title}: points`}>
        <table>
          <caption class="visually-hidden">
            {title}, in {unit}; periods without activity are left out, and a dash is a value not known
          </caption>
          <thead>
            <tr>
              <th scope="col">Time</th>
              {series.map((s) => (
                <th scope="col" key={s.label}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rowsWithValues(times, series).map(([t, i]) => (
              <tr key={t} data-start={new Date(t).toISOString()}>
                <td>
                  <time dateTime={new Date(t).toISOString()}>{timeText(t)}</time>
                </td>
                {series.map((s) => (
                  <td key={s.label} data-series={s.label}>
                    {s.values[i] ?? '–'}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>}
    </details>
  );
}
