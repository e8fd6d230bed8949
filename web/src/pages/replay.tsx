// Replay: a subscription's matching events of a past time range sent again (docs/subscription-controls.md
// "Replay"). A time range from presets or typed, the destinations to use, the running replay's progress
// bar (fraction, rate, estimated end; polled), Cancel, and the subscription's past replays.
import { useRef, useState } from 'preact/hooks';
import { api, must, type Replay, type Subscription } from '../api/client.ts';
import { href } from '../router.ts';
import { useAction, useLoad } from '../ui/hooks.ts';
import { FormProblem, PageHeader, Placeholder, Problem, When, fieldAria, inWords } from '../ui/parts.tsx';
import { destinationName, listDestinations } from './destinations.tsx';
import { subscriptionName } from './subscriptions.tsx';

/** How often the replays are asked for while one runs; a replay's checkpoints move about once a second. */
export const REPLAY_REFRESH_MS = 1000;

type Preset = 'hour' | 'day' | 'created' | 'custom';
const PRESETS: readonly { value: Preset; label: string }[] = [
  { value: 'hour', label: 'Last hour' },
  { value: 'day', label: 'Last 24 hours' },
  { value: 'created', label: 'Since the subscription was created' },
  { value: 'custom', label: 'Custom range' },
];

const ENDED = new Set(['done', 'failed', 'cancelled']);
const running = (r: Replay): boolean => !ENDED.has(r.state);

/** A datetime-local input's value (the browser's local time) as RFC 3339 in UTC, or undefined when empty or unreadable. */
function fromLocal(value: string): string | undefined {
  if (value === '') return undefined;
  const t = new Date(value);
  return Number.isNaN(t.getTime()) ? undefined : t.toISOString();
}

/** A moment as a datetime-local input shows it, to the minute. */
function toLocal(at: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

/** The range a preset stands for, at the moment of the click: `to` is left to the API (the time it takes the request). */
function rangeOf(preset: Preset, sub: Subscription, custom: { from: string; to: string }): { from: string; to?: string } {
  const now = Date.now();
  switch (preset) {
    case 'hour':
      return { from: new Date(now - 3_600_000).toISOString() };
    case 'day':
      return { from: new Date(now - 86_400_000).toISOString() };
    case 'created':
      return { from: sub.created_at };
    case 'custom': {
      const to = fromLocal(custom.to);
      // An unreadable from is sent as typed, so the API's own sentence about it is shown at the field.
      return { from: fromLocal(custom.from) ?? custom.from, ...(to !== undefined && { to }) };
    }
  }
}

async function listReplays(id: string): Promise<Replay[]> {
  return (await must(api.GET('/event_subscriptions/{id}/replays', { params: { path: { id } } }))).replays;
}

export function ReplayPage({ id }: { id: string }) {
  const sub = useLoad(() => must(api.GET('/event_subscriptions/{id}', { params: { path: { id } } })), [id]);
  const dests = useLoad(listDestinations, []);
  const replays = useLoad(() => listReplays(id), [id], REPLAY_REFRESH_MS);
  const title = sub.data === undefined ? 'Replay' : `Replay: ${subscriptionName(sub.data)}`;
  const current = replays.data?.find(running);
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={title}>
        <a class="button" href={href('subscriptions')}>
          Back to subscriptions
        </a>
      </PageHeader>
      <p class="lead">
        Sends this subscription’s matches among past records again, to the destinations you choose, while live delivery goes on. A replayed event has the id live delivery gave it, so a receiver drops
        overlaps by <code>event_id</code>.
      </p>
      <Problem failure={sub.failure ?? dests.failure} />
      {sub.data === undefined || dests.data === undefined ? (
        <Placeholder rows={2} />
      ) : (
        <ReplayForm sub={sub.data} names={new Map(dests.data.map((d) => [d.id, destinationName(d)]))} busy={current !== undefined} onStarted={replays.reload} />
      )}
      <h2 class="section-title">Progress</h2>
      {replays.data === undefined ? <div class="card replay-progress placeholder-progress" aria-busy="true" aria-label="Loading" /> : (
        // Keyed by the replay: a new one's bar starts at its own fraction, not shrinking from the last one's 100%.
        <ReplayProgress key={(current ?? replays.data[0])?.id ?? 'none'} replay={current ?? replays.data[0]} onCancelled={replays.reload} />
      )}
      <h2 class="section-title">Past replays</h2>
      <Problem failure={replays.failure} />
      {replays.data === undefined ? <Placeholder rows={1} /> : <ReplayList replays={replays.data.filter((r) => !running(r))} names={new Map((dests.data ?? []).map((d) => [d.id, destinationName(d)]))} />}
    </section>
  );
}

function ReplayForm({ sub, names, busy, onStarted }: { sub: Subscription; names: ReadonlyMap<string, string>; busy: boolean; onStarted(): void }) {
  const [preset, setPreset] = useState<Preset>('hour');
  const [custom, setCustom] = useState(() => ({ from: toLocal(new Date(Date.now() - 3_600_000)), to: toLocal(new Date()) }));
  const [chosen, setChosen] = useState<string[]>(() => sub.destinations.map((d) => d.id));
  const start = useAction();
  const errorAt = (field: string, label: string): string | undefined => {
    const message = start.failure?.byField[field];
    return message === undefined ? undefined : inWords(message, field, label);
  };
  const submit = (e: Event): void => {
    e.preventDefault();
    void start.run(async () => {
      const range = rangeOf(preset, sub, custom);
      const all = chosen.length === sub.destinations.length;
      await must(api.POST('/event_subscriptions/{id}/replays', { params: { path: { id: sub.id } }, body: { ...range, ...(!all && { destination_ids: chosen }) } }));
      onStarted();
    });
  };
  const fromError = errorAt('from', 'From');
  const toError = errorAt('to', 'To');
  const destError = start.failure?.problems.find((p) => p.path.startsWith('destination_ids'))?.message;
  const rangeHelp = 'Records whose time is in the range are read again: from is included, to is not. The raw topics keep records for their retention only.';
  return (
    <form onSubmit={submit} noValidate class="replay-form">
      <FormProblem failure={start.failure} id="replay-problem" />
      <fieldset class="group" aria-describedby="range-help">
        <legend>Time range</legend>
        <div class="presets" role="radiogroup" aria-label="Time range">
          {PRESETS.map((p) => (
            <div class="field checkbox" key={p.value}>
              <input type="radio" name="range" id={`range-${p.value}`} value={p.value} checked={preset === p.value} onChange={() => setPreset(p.value)} />
              <label for={`range-${p.value}`}>
                {p.label}
                {p.value === 'created' && (
                  <span class="muted">
                    {' '}
                    (<When iso={sub.created_at} />)
                  </span>
                )}
              </label>
            </div>
          ))}
        </div>
        {preset === 'custom' && (
          <div class="range">
            <div class={`field${fromError !== undefined ? ' invalid' : ''}`}>
              <label for="range-from">From</label>
              <input type="datetime-local" {...fieldAria('range-from', undefined, fromError)} value={custom.from} onInput={(e) => setCustom((c) => ({ ...c, from: e.currentTarget.value }))} />
              {fromError !== undefined && <p class="field-error" id="range-from-error">{fromError}</p>}
            </div>
            <div class={`field${toError !== undefined ? ' invalid' : ''}`}>
              <label for="range-to">To</label>
              <input type="datetime-local" {...fieldAria('range-to', undefined, toError)} value={custom.to} onInput={(e) => setCustom((c) => ({ ...c, to: e.currentTarget.value }))} />
              {toError !== undefined && <p class="field-error" id="range-to-error">{toError}</p>}
            </div>
          </div>
        )}
        {preset !== 'custom' && fromError !== undefined && <p class="field-error">{fromError}</p>}
        <p class="help" id="range-help">
          {rangeHelp} Times are your browser’s ({Intl.DateTimeFormat().resolvedOptions().timeZone}).
        </p>
      </fieldset>
      <fieldset class="group" aria-describedby="replay-dest-help">
        <legend>Destinations</legend>
        {sub.destinations.map((d) => (
          <div class="field checkbox" key={d.id}>
            <input type="checkbox" id={`replay-dest-${d.id}`} checked={chosen.includes(d.id)} onChange={(e) => setChosen((c) => (e.currentTarget.checked ? [...c, d.id] : c.filter((x) => x !== d.id)))} />
            <label for={`replay-dest-${d.id}`}>{names.get(d.id) ?? d.id}</label>
          </div>
        ))}
        <p class="help" id="replay-dest-help">
          {sub.destinations.length === 0 ? 'This subscription has no destination: give it one first.' : 'Each receives the events in its own format and output options.'}
        </p>
        {destError !== undefined && <p class="field-error">{destError}</p>}
      </fieldset>
      <div class="actions">
        <button type="submit" class="primary" disabled={start.busy || busy || chosen.length === 0}>
          Start replay
        </button>
        {busy && <span class="muted">A replay of this subscription is running.</span>}
      </div>
    </form>
  );
}

/** Records a second, from this page's own successive looks at one replay. */
function useRate(replay: Replay | undefined): number | undefined {
  const seen = useRef<{ id: string; at: number; scanned: number }[]>([]);
  if (replay === undefined) return undefined;
  const samples = seen.current.filter((s) => s.id === replay.id);
  const last = samples[samples.length - 1];
  if (last === undefined || last.scanned !== replay.progress.records_scanned) samples.push({ id: replay.id, at: Date.now(), scanned: replay.progress.records_scanned });
  seen.current = samples.slice(-10);
  const first = seen.current[0];
  const end = seen.current[seen.current.length - 1];
  if (first === undefined || end === undefined || end.at - first.at < 500) return undefined;
  return ((end.scanned - first.scanned) * 1000) / (end.at - first.at);
}

const count = (n: number): string => Math.round(n).toLocaleString();

function ReplayProgress({ replay, onCancelled }: { replay: Replay | undefined; onCancelled(): void }) {
  const cancel = useAction();
  const rate = useRate(replay);
  if (replay === undefined) return <p class="card replay-progress empty-progress muted">No replay yet: choose a range above and start one.</p>;
  const p = replay.progress;
  const percent = Math.round(p.fraction * 1000) / 10;
  const live = running(replay);
  return (
    <div class="card replay-progress" data-replay={replay.id} data-state={replay.state} aria-label="Replay progress">
      <div class="card-head">
        <h3>
          <ReplayRange replay={replay} />
        </h3>
        <ReplayState state={replay.state} />
      </div>
      <div
        class="bar"
        role="progressbar"
        aria-label="Replay progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent}%`}
      >
        <div class="bar-fill" style={{ width: `${percent}%` }} />
      </div>
      <dl class="facts replay-facts" aria-live="polite">
        <div>
          <dt>Done</dt>
          <dd data-fraction>{percent}%</dd>
        </div>
        <div>
          <dt>Records</dt>
          <dd>
            {count(p.records_scanned)} of {count(p.records_total)}
          </dd>
        </div>
        <div>
          <dt>Events delivered</dt>
          <dd data-delivered>{count(p.events_delivered)}</dd>
        </div>
        <div>
          <dt>Rate</dt>
          <dd>{live && rate !== undefined ? `${count(rate)} records/s` : <span class="muted">—</span>}</dd>
        </div>
        <div>
          <dt>{live ? 'Estimated end' : 'Ended'}</dt>
          <dd>{live ? (p.estimated_done_at === null ? <span class="muted">—</span> : new Date(p.estimated_done_at).toLocaleTimeString()) : <When iso={replay.finished_at} />}</dd>
        </div>
      </dl>
      {replay.error !== null && <p class="field-error">{replay.error.message}</p>}
      <div class="actions">
        {live && (
          <button
            type="button"
            class="danger"
            disabled={cancel.busy}
            onClick={() =>
              void cancel.run(async () => {
                await must(api.DELETE('/event_subscriptions/{id}/replays/{replay_id}', { params: { path: { id: replay.subscription.id, replay_id: replay.id } } }));
                onCancelled();
              })
            }
          >
            Cancel replay
          </button>
        )}
      </div>
      <Problem failure={cancel.failure} />
    </div>
  );
}

function ReplayRange({ replay }: { replay: Pick<Replay, 'from' | 'to'> }) {
  const from = new Date(replay.from);
  const to = new Date(replay.to);
  return (
    <>
      <time dateTime={replay.from}>{from.toLocaleString()}</time> to <time dateTime={replay.to}>{from.toDateString() === to.toDateString() ? to.toLocaleTimeString() : to.toLocaleString()}</time>
    </>
  );
}

const STATE_TONE: Readonly<Record<Replay['state'], string>> = { queued: 'unknown', running: 'unknown', done: 'ok', failed: 'failing', cancelled: 'parked' };

function ReplayState({ state }: { state: Replay['state'] }) {
  return (
    <span class={`badge state-${STATE_TONE[state]}`} data-replay-state={state}>
      {state}
    </span>
  );
}

function ReplayList({ replays, names }: { replays: Replay[]; names: ReadonlyMap<string, string> }) {
  if (replays.length === 0) return <p class="empty">No past replays.</p>;
  return (
    <ul class="plain replays" aria-label="Past replays">
      {replays.map((r) => (
        <li key={r.id} class="row" data-replay={r.id} aria-label={`Replay ${r.id}: ${r.state}`}>
          <span>
            <ReplayRange replay={r} />
            <span class="muted">
              {' '}
              · {count(r.progress.events_delivered)} events, {count(r.progress.records_scanned)} records
              {` · to ${r.destinations.map((d) => names.get(d.id) ?? d.id).join(', ')}`}
              {r.error !== null && ` · ${r.error.message}`}
            </span>
          </span>
          <ReplayState state={r.state} />
        </li>
      ))}
    </ul>
  );
}
