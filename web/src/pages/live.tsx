// Live: a subscription's events as they match (its tap), and the filter playground, which taps a source
// not saved yet and can then save it as a subscription. The events read as a log viewer's (TapView); the
// tap's notes (workers listening, events skipped, why it ended) and its rate are shown beside them.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, asFailure, must, type ApiFailure } from '../api/client.ts';
import { TAP_LIMIT, TAP_SECONDS, runTap, type TapTarget } from '../api/tap.ts';
import { go, href } from '../router.ts';
import { useLoad } from '../ui/hooks.ts';
import { Chart } from '../ui/chart.tsx';
import { CopyButton, PageHeader, Problem } from '../ui/parts.tsx';
import { NEW_SOURCE, SourceEditor, sourceOf, type SourceDraft } from '../ui/source-editor.tsx';
import { PLAYGROUND_DRAFT, subscriptionName } from './subscriptions.tsx';

/** Events kept on the page, the latest by event time (the tap itself ends at TAP_LIMIT; watching again adds to them). */
export const KEPT = 1000;
/** How often what arrived is drawn: a row a frame would redraw the table hundreds of times a second. */
const DRAW_MS = 250;
/** The events-per-second chart's span. */
const RATE_SECONDS = 60;

/** One tapped event: its text as delivered, parsed, and its event time (its arrival where it has none). */
export interface TapRow {
  readonly seq: number;
  readonly at: number;
  readonly raw: string;
  readonly event: { readonly event_id?: string; readonly event_type?: string; readonly event_timestamp?: unknown; readonly object?: Record<string, unknown> };
  readonly lower: string;
}

/** The event time in ms of any timestamp_format (rfc3339, unix, unixmilli, unixnano), NaN when none. */
export function eventTime(t: unknown): number {
  if (typeof t === 'string') return /^\d+$/.test(t) ? Number(BigInt(t) / 1_000_000n) : Date.parse(t);
  if (typeof t === 'number') return t > 1e11 ? t : t * 1000;
  return Number.NaN;
}

/** Puts a row among rows sorted by (event time, arrival), searching from the end where most arrive. */
export function insertInTimeOrder(rows: TapRow[], row: TapRow): void {
  let i = rows.length;
  while (i > 0 && (rows[i - 1] as TapRow).at > row.at) i--;
  rows.splice(i, 0, row);
}

interface Tap {
  readonly running: boolean;
  /** Every row kept, in time order. */
  readonly rows: readonly TapRow[];
  readonly count: number;
  /** Events a second, over the last RATE_SECONDS, ending now. */
  readonly rate: { readonly times: readonly number[]; readonly values: readonly number[] };
  readonly notes: readonly string[];
  readonly failure: ApiFailure | undefined;
  start(target: TapTarget): void;
  stop(): void;
  clear(): void;
}

function useTap(): Tap {
  const [running, setRunning] = useState(false);
  const [notes, setNotes] = useState<string[]>([]);
  const [failure, setFailure] = useState<ApiFailure | undefined>(undefined);
  // Rows arrive faster than a page draws: kept here, drawn every DRAW_MS.
  const rows = useRef<TapRow[]>([]);
  const count = useRef(0);
  const perSecond = useRef(new Map<number, number>());
  const [, setDrawn] = useState(0);
  const abort = useRef<AbortController | undefined>(undefined);
  const stop = (): void => {
    abort.current?.abort();
    abort.current = undefined;
  };
  useEffect(() => {
    const timer = setInterval(() => setDrawn((n) => n + 1), DRAW_MS);
    return () => {
      clearInterval(timer);
      stop();
    };
  }, []);
  const arrived = (raw: string): void => {
    let event: TapRow['event'] = {};
    try {
      event = JSON.parse(raw) as TapRow['event'];
    } catch {
      // Shown as it came; a tap sends JSON, so this is a service's fault to see, not to hide.
    }
    const now = Date.now();
    const at = eventTime(event.event_timestamp);
    count.current += 1;
    insertInTimeOrder(rows.current, { seq: count.current, at: Number.isNaN(at) ? now : at, raw, event, lower: raw.toLowerCase() });
    if (rows.current.length > KEPT) rows.current.shift();
    const second = Math.floor(now / 1000);
    perSecond.current.set(second, (perSecond.current.get(second) ?? 0) + 1);
    for (const s of perSecond.current.keys()) if (s <= second - RATE_SECONDS) perSecond.current.delete(s);
  };
  const clear = (): void => {
    rows.current = [];
    perSecond.current.clear();
    setDrawn((n) => n + 1);
  };
  const start = (target: TapTarget): void => {
    stop();
    const controller = new AbortController();
    abort.current = controller;
    setNotes([]);
    setFailure(undefined);
    setRunning(true);
    runTap(target, { event: arrived, note: (n) => setNotes((all) => [...all, n]) }, controller.signal)
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setFailure(asFailure(err));
      })
      .finally(() => {
        if (controller.signal.aborted) setNotes((all) => [...all, 'you stopped the tap']);
        if (abort.current === controller) abort.current = undefined;
        setRunning(false);
      });
  };
  const nowSecond = Math.floor(Date.now() / 1000);
  const seconds = Array.from({ length: RATE_SECONDS }, (_, i) => nowSecond - RATE_SECONDS + 1 + i);
  const rate = { times: seconds.map((s) => s * 1000), values: seconds.map((s) => perSecond.current.get(s) ?? 0) };
  return { running, rows: rows.current, count: count.current, rate, notes, failure, start, stop, clear };
}

/** A field's value in an event's object, by its dotted name, as text. */
export function fieldText(object: Record<string, unknown> | undefined, path: string): string {
  let at: unknown = object;
  for (const part of path.split('.')) at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[part] : undefined;
  return at === undefined || at === null ? '' : typeof at === 'string' ? at : JSON.stringify(at);
}

const timeOfDay = (ms: number): string => {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
};

function download(rows: readonly TapRow[]): void {
  const body = rows.map((r) => r.raw).join('\n');
  const url = URL.createObjectURL(new Blob([body === '' ? '' : `${body}\n`], { type: 'application/x-ndjson' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = `live-${new Date().toISOString().replace(/[:.]/g, '-')}.ndjson`;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * The tap as a log viewer: a row an event in event-time order, a column per selected field, a search
 * over what arrived, pause (the table holds still while events keep arriving), clear, a row that opens
 * to the pretty-printed event with a copy button, the kept events as NDJSON, the rate as a chart.
 */
function TapView({ tap, fields }: { tap: Tap; fields: readonly string[] }) {
  const [paused, setPaused] = useState<{ rows: readonly TapRow[]; count: number } | undefined>(undefined);
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(true);
  const rows = paused?.rows ?? tap.rows;
  const needle = query.trim().toLowerCase();
  const shown = needle === '' ? rows : rows.filter((r) => r.lower.includes(needle));
  const waiting = paused === undefined ? 0 : tap.count - paused.count;
  // The newest rows are at the bottom: kept in view unless the reader scrolled up.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el !== null && following.current) el.scrollTop = el.scrollHeight;
  });
  const toggle = (seq: number): void => setOpen((all) => { const next = new Set(all); if (!next.delete(seq)) next.add(seq); return next; });
  const peak = Math.max(0, ...tap.rate.values);
  const last = tap.rate.values.at(-2) ?? 0;
  return (
    <div class="tap">
      <section class="tap-notes" aria-labelledby="tap-notes-title">
        <h2 id="tap-notes-title">Notes</h2>
        <ol class="notes" aria-live="polite">
          {tap.notes.length === 0 && <li class="muted">{tap.running ? 'Opening the tap…' : 'Not running.'}</li>}
          {tap.notes.map((n, i) => (
            <li key={i}>{n}</li>
          ))}
        </ol>
        <Chart title="Events per second" times={tap.rate.times} series={[{ label: 'events', values: tap.rate.values, color: '--accent' }]} bars unit="events/s"
          summary={`${last} events in the last whole second, at most ${peak} a second over the last ${RATE_SECONDS} s.`} table={false} />
      </section>
      <section class="tap-events" aria-labelledby="tap-events-title">
        <h2 id="tap-events-title">
          Events <span class="count" data-count={tap.count}>{tap.count}</span>
        </h2>
        <div class="tap-tools">
          {paused === undefined ? (
            <button type="button" onClick={() => setPaused({ rows: [...tap.rows], count: tap.count })}>
              Pause
            </button>
          ) : (
            <button type="button" class="primary" onClick={() => setPaused(undefined)}>
              Resume
            </button>
          )}
          <button type="button" onClick={() => { tap.clear(); setPaused(paused === undefined ? undefined : { rows: [], count: tap.count }); setOpen(new Set()); }} disabled={rows.length === 0}>
            Clear
          </button>
          <button type="button" onClick={() => download(rows)} disabled={rows.length === 0}>
            Download NDJSON
          </button>
          <label class="search">
            <span class="visually-hidden">Search the events</span>
            <input type="search" placeholder="Search the events" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
          </label>
        </div>
        <p class="tap-status muted" aria-live="polite" data-shown={shown.length} data-waiting={waiting}>
          {needle === '' ? `${rows.length} kept (the last ${KEPT} by event time)` : `${shown.length} of ${rows.length} match “${query.trim()}”`}
          {paused !== undefined && `; paused, ${waiting} more arrived`}
        </p>
        {rows.length === 0 ? (
          <p class="muted">{tap.running ? 'Waiting for matching traffic…' : 'None yet.'}</p>
        ) : (
          // Focusable, so that a keyboard can scroll the table once it outgrows its height (styles.css .events).
          <div class="events" tabIndex={0} ref={scroller} aria-label="Events, in event-time order" onScroll={(e) => { const el = e.currentTarget; following.current = el.scrollHeight - el.scrollTop - el.clientHeight < 8; }}>
            <table class="event-table">
              <thead>
                <tr>
                  <th scope="col"><span class="visually-hidden">Open</span></th>
                  <th scope="col">Time</th>
                  <th scope="col">Type</th>
                  {fields.map((f) => (
                    <th scope="col" key={f}>{f}</th>
                  ))}
                  {fields.length === 0 && <th scope="col">Object</th>}
                </tr>
              </thead>
              <tbody>
                {shown.map((r) => (
                  <EventRow row={r} fields={fields} open={open.has(r.seq)} onToggle={() => toggle(r.seq)} key={r.seq} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}

function EventRow({ row, fields, open, onToggle }: { row: TapRow; fields: readonly string[]; open: boolean; onToggle(): void }) {
  const pretty = open ? prettyJson(row.raw) : '';
  return (
    <>
      <tr class="event-row" data-time={row.at} data-event-id={row.event.event_id}>
        <td>
          <button type="button" class="expand" aria-expanded={open} aria-label={`${open ? 'Close' : 'Open'} the event at ${timeOfDay(row.at)}`} onClick={onToggle}>
            {open ? '▾' : '▸'}
          </button>
        </td>
        <td><time dateTime={new Date(row.at).toISOString()}>{timeOfDay(row.at)}</time></td>
        <td><code>{row.event.event_type ?? '?'}</code></td>
        {fields.map((f) => (
          <td key={f} data-field={f}>{fieldText(row.event.object, f)}</td>
        ))}
        {fields.length === 0 && <td class="object">{row.event.object === undefined ? row.raw : JSON.stringify(row.event.object)}</td>}
      </tr>
      {open && (
        <tr class="event-detail">
          <td colSpan={fields.length + 3 + (fields.length === 0 ? 1 : 0)}>
            <pre><code>{pretty}</code></pre>
            <CopyButton text={pretty} label="Copy event" />
          </td>
        </tr>
      )}
    </>
  );
}

function prettyJson(raw: string): string {
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

/** The fields a subscription delivers, in the order its sources list them. */
const fieldsOf = (sources: readonly { fields?: readonly string[] | null }[]): string[] => [...new Set(sources.flatMap((s) => s.fields ?? []))];

const ABOUT = `A tap shows what matches from now on, for ${TAP_SECONDS} s or ${TAP_LIMIT} events, exactly as a destination receives it.`;

export function LiveSubscriptionPage({ id }: { id: string }) {
  const sub = useLoad(() => must(api.GET('/event_subscriptions/{id}', { params: { path: { id } } })), [id]);
  const tap = useTap();
  useEffect(() => {
    tap.start({ subscription: id });
    return tap.stop;
    // Opened once per subscription.
  }, [id]);
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={`Live: ${sub.data === undefined ? id : subscriptionName(sub.data)}`}>
        {tap.running ? (
          <button type="button" onClick={tap.stop}>
            Stop
          </button>
        ) : (
          <button type="button" class="primary" onClick={() => tap.start({ subscription: id })}>
            Watch again
          </button>
        )}
        <a class="button" href={href('subscriptions', id)}>
          Edit subscription
        </a>
      </PageHeader>
      <p class="lead">{ABOUT} Paused or not.</p>
      <Problem failure={sub.failure ?? tap.failure} />
      <TapView tap={tap} fields={sub.data === undefined ? [] : fieldsOf(sub.data.sources)} />
    </section>
  );
}

export function PlaygroundPage() {
  const [draft, setDraft] = useState<SourceDraft>({ ...NEW_SOURCE, fields: ['conn.client_ip', 'conn.server_name', 'conn.server_port'] });
  const tap = useTap();
  // The columns of the tap that runs: the fields it was opened with.
  const [fields, setFields] = useState<readonly string[]>([]);
  const watch = (e: Event): void => {
    e.preventDefault();
    const source = sourceOf(draft);
    setFields(fieldsOf([source]));
    tap.start({ source });
  };
  const save = (): void => {
    sessionStorage.setItem(PLAYGROUND_DRAFT, JSON.stringify(draft));
    go('subscriptions', 'new');
  };
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Filter playground" />
      <p class="lead">Try an event type, fields and a filter on live traffic before saving them as a subscription. {ABOUT}</p>
      <form onSubmit={watch} noValidate>
        <Problem failure={tap.failure} />
        <SourceEditor id="play" title="Source" draft={draft} prefix="" failure={tap.failure} onChange={setDraft} />
        <div class="actions">
          <button type="submit" class="primary">
            {tap.running ? 'Watch again with these settings' : 'Watch matching traffic'}
          </button>
          {tap.running && (
            <button type="button" onClick={tap.stop}>
              Stop
            </button>
          )}
          <button type="button" onClick={save}>
            Save as a subscription…
          </button>
        </div>
      </form>
      <TapView tap={tap} fields={fields} />
    </section>
  );
}
