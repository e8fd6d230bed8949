// Live: a subscription's events as they match (its tap), and the filter playground, which taps a source
// not saved yet and can then save it as a subscription. The tap's notes (workers listening, events
// skipped, why it ended) are shown beside the events.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, asFailure, must, type ApiFailure } from '../api/client.ts';
import { TAP_LIMIT, TAP_SECONDS, runTap, type TapTarget } from '../api/tap.ts';
import { go, href } from '../router.ts';
import { useLoad } from '../ui/hooks.ts';
import { PageHeader, Problem } from '../ui/parts.tsx';
import { NEW_SOURCE, SourceEditor, sourceOf, type SourceDraft } from '../ui/source-editor.tsx';
import { PLAYGROUND_DRAFT, subscriptionName } from './subscriptions.tsx';

/** Events kept on the page; the tap itself ends at TAP_LIMIT. */
const SHOWN = 200;

interface Tap {
  readonly running: boolean;
  readonly events: readonly string[];
  readonly count: number;
  readonly notes: readonly string[];
  readonly failure: ApiFailure | undefined;
  start(target: TapTarget): void;
  stop(): void;
}

function useTap(): Tap {
  const [running, setRunning] = useState(false);
  const [events, setEvents] = useState<string[]>([]);
  const [count, setCount] = useState(0);
  const [notes, setNotes] = useState<string[]>([]);
  const [failure, setFailure] = useState<ApiFailure | undefined>(undefined);
  const abort = useRef<AbortController | undefined>(undefined);
  const stop = (): void => {
    abort.current?.abort();
    abort.current = undefined;
  };
  useEffect(() => stop, []);
  const start = (target: TapTarget): void => {
    stop();
    const controller = new AbortController();
    abort.current = controller;
    setEvents([]);
    setCount(0);
    setNotes([]);
    setFailure(undefined);
    setRunning(true);
    runTap(target, { event: (e) => { setCount((n) => n + 1); setEvents((all) => [e, ...all].slice(0, SHOWN)); }, note: (n) => setNotes((all) => [...all, n]) }, controller.signal)
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setFailure(asFailure(err));
      })
      .finally(() => {
        if (controller.signal.aborted) setNotes((all) => [...all, 'you stopped the tap']);
        if (abort.current === controller) abort.current = undefined;
        setRunning(false);
      });
  };
  return { running, events, count, notes, failure, start, stop };
}

function TapView({ tap }: { tap: Tap }) {
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
      </section>
      <section class="tap-events" aria-labelledby="tap-events-title">
        <h2 id="tap-events-title">
          Events <span class="count" data-count={tap.count}>{tap.count}</span>
        </h2>
        {tap.events.length === 0 ? (
          <p class="muted">{tap.running ? 'Waiting for matching traffic…' : 'None yet.'}</p>
        ) : (
          // Focusable, so that a keyboard can scroll the list once it outgrows its height (styles.css .events).
          <ol class="events" aria-label="Events, newest first" tabIndex={0}>
            {tap.events.map((e, i) => (
              <li key={tap.count - i}>
                <pre>
                  <code>{e}</code>
                </pre>
              </li>
            ))}
          </ol>
        )}
      </section>
    </div>
  );
}

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
      <TapView tap={tap} />
    </section>
  );
}

export function PlaygroundPage() {
  const [draft, setDraft] = useState<SourceDraft>({ ...NEW_SOURCE, fields: ['conn.client_ip', 'conn.server_name', 'conn.server_port'] });
  const tap = useTap();
  const watch = (e: Event): void => {
    e.preventDefault();
    tap.start({ source: sourceOf(draft) });
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
      <TapView tap={tap} />
    </section>
  );
}
