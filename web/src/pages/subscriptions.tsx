// Subscriptions: the list with each one's state, sources and destinations, pause and resume, a replay
// (pages/replay.tsx), and the form that creates or edits one (its sources through the source editor).
import { useState } from 'preact/hooks';
import { api, must, type Subscription, type SubscriptionCreate } from '../api/client.ts';
import { go, href } from '../router.ts';
import { useAction, useLoad } from '../ui/hooks.ts';
import { ListTools, Pager, readAll, useListView, type SortChoice } from '../ui/list-view.tsx';
import { DeleteButton, Field, FormProblem, PageHeader, Pill, Placeholder, Problem, fieldAria, inWords } from '../ui/parts.tsx';
import { NEW_SOURCE, SourceEditor, draftOf, sourceOf, type SourceDraft } from '../ui/source-editor.tsx';
import { DestinationPicker, destinationName, listDestinations } from './destinations.tsx';

/** The account's subscriptions, every page of the list up to LIST_READ_LIMIT (ui/list-view.tsx). */
async function readSubscriptions(): Promise<{ items: Subscription[]; more: boolean }> {
  return readAll(async (before) => {
    const page = await must(api.GET('/event_subscriptions', { params: { query: { limit: 100, ...(before !== undefined && { before_id: before }) } } }));
    return { items: page.event_subscriptions, next: page.next_page_uri !== null };
  });
}

/** The subscription list's orders: the API's (newest first), by name, the paused first. */
const SUBSCRIPTION_SORTS: Readonly<Record<string, SortChoice<Subscription>>> = {
  newest: { label: 'Newest first' },
  name: { label: 'Name', compare: (a, b) => subscriptionName(a).localeCompare(subscriptionName(b)) },
  paused: { label: 'Paused first', compare: (a, b) => Number(a.enabled) - Number(b.enabled) || subscriptionName(a).localeCompare(subscriptionName(b)) },
};

export const subscriptionName = (s: Pick<Subscription, 'id' | 'description'>): string => (s.description !== '' ? s.description : s.id);

export function SubscriptionsPage() {
  const subs = useLoad(readSubscriptions, []);
  const dests = useLoad(listDestinations, []);
  const names = new Map((dests.data ?? []).map((d) => [d.id, destinationName(d)]));
  // A search reads the name, the id, the event types, the filters and the destinations' names.
  const text = (s: Subscription): string => [subscriptionName(s), s.id, ...s.sources.map((x) => `${x.type} ${x.filter ?? ''}`), ...s.destinations.map((d) => `${d.id} ${names.get(d.id) ?? ''}`)].join(' ');
  const view = useListView(subs.data?.items ?? [], text, SUBSCRIPTION_SORTS);
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Subscriptions">
        <a class="button primary" href={href('subscriptions', 'new')}>
          New subscription
        </a>
      </PageHeader>
      <p class="lead">What to send where: event types, their fields and a filter, delivered to destinations.</p>
      <Problem failure={subs.failure} />
      {subs.data === undefined ? (
        <Placeholder />
      ) : subs.data.items.length === 0 ? (
        <p class="empty">No subscriptions yet.</p>
      ) : (
        <>
          <ListTools view={view} sorts={SUBSCRIPTION_SORTS} noun="subscriptions" more={subs.data.more} />
          <ul class="cards" aria-label="Subscriptions">
            {view.shown.map((s) => (
              <SubscriptionCard sub={s} names={names} key={s.id} onChange={subs.reload} />
            ))}
          </ul>
          <Pager view={view} noun="subscriptions" />
        </>
      )}
    </section>
  );
}

function SubscriptionCard({ sub, names, onChange }: { sub: Subscription; names: ReadonlyMap<string, string>; onChange(): void }) {
  const toggle = useAction();
  const name = subscriptionName(sub);
  const setEnabled = (enabled: boolean): Promise<void> =>
    toggle.run(async () => {
      await must(api.PATCH('/event_subscriptions/{id}', { params: { path: { id: sub.id } }, body: { enabled } }));
      onChange();
    });
  return (
    <li class="card" data-subscription={sub.id} aria-label={name}>
      <div class="card-head">
        <h2>{name}</h2>
        {sub.enabled ? <Pill tone="on">enabled</Pill> : <Pill tone="off">paused</Pill>}
      </div>
      <dl class="facts">
        <div class="wide">
          <dt>Sources</dt>
          <dd>
            <ul class="plain">
              {sub.sources.map((s) => (
                <li key={s.type}>
                  <code>{s.type}</code>
                  {s.fields !== null && s.fields.length > 0 && <span class="muted"> · {s.fields.length} fields</span>}
                  {s.filter !== null && s.filter !== '' && (
                    <>
                      {' '}
                      · filter <code class="filter">{s.filter}</code>
                    </>
                  )}
                  {s.sample_rate !== 1 && <span class="muted"> · sample {s.sample_rate}</span>}
                </li>
              ))}
            </ul>
          </dd>
        </div>
        <div class="wide">
          <dt>Destinations</dt>
          <dd>{sub.destinations.length === 0 ? <span class="muted">none</span> : sub.destinations.map((d) => names.get(d.id) ?? d.id).join(', ')}</dd>
        </div>
      </dl>
      <div class="actions">
        <a class="button" href={href('subscriptions', sub.id)} aria-label={`Edit ${name}`}>
          Edit
        </a>
        <a class="button" href={href('live', sub.id)} aria-label={`Watch live: ${name}`}>
          Watch live
        </a>
        <a class="button" href={href('subscriptions', sub.id, 'replay')} aria-label={`Replay: ${name}`}>
          Replay
        </a>
        <button type="button" disabled={toggle.busy} onClick={() => void setEnabled(!sub.enabled)} aria-label={`${sub.enabled ? 'Pause' : 'Resume'} ${name}`}>
          {sub.enabled ? 'Pause' : 'Resume'}
        </button>
        <DeleteButton what={name} onDelete={async () => { await must(api.DELETE('/event_subscriptions/{id}', { params: { path: { id: sub.id } } })); onChange(); }} />
      </div>
      <Problem failure={toggle.failure} />
    </li>
  );
}

/** A subscription started in the live playground, carried to the form within this tab. */
export const PLAYGROUND_DRAFT = 'edge-events.playground-source';

export function SubscriptionFormPage({ id }: { id: string | undefined }) {
  const existing = useLoad(async () => (id === undefined ? undefined : must(api.GET('/event_subscriptions/{id}', { params: { path: { id } } }))), [id]);
  const dests = useLoad(listDestinations, []);
  const ready = (id === undefined || existing.data !== undefined) && dests.data !== undefined;
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={id === undefined ? 'New subscription' : 'Edit subscription'} />
      <Problem failure={existing.failure ?? dests.failure} />
      {ready ? <SubscriptionForm existing={existing.data} destinations={dests.data ?? []} /> : <Placeholder rows={2} />}
    </section>
  );
}

function initialSources(existing: Subscription | undefined): SourceDraft[] {
  if (existing !== undefined) return existing.sources.map(draftOf);
  const carried = sessionStorage.getItem(PLAYGROUND_DRAFT);
  sessionStorage.removeItem(PLAYGROUND_DRAFT);
  return [carried === null ? NEW_SOURCE : (JSON.parse(carried) as SourceDraft)];
}

function SubscriptionForm({ existing, destinations }: { existing: Subscription | undefined; destinations: Awaited<ReturnType<typeof listDestinations>> }) {
  const [description, setDescription] = useState(existing?.description ?? '');
  const [enabled, setEnabled] = useState(existing?.enabled ?? true);
  const [destinationIds, setDestinationIds] = useState<string[]>(existing?.destinations.map((d) => d.id) ?? (destinations.length === 1 ? destinations.map((d) => d.id) : []));
  const [sources, setSources] = useState<SourceDraft[]>(() => initialSources(existing));
  const save = useAction();
  // A subscription without a destination delivers nothing: said before it is saved, and saved on a second click.
  const [warnedEmpty, setWarnedEmpty] = useState(false);
  const said = (field: string): string | undefined => save.failure?.byField[field];
  const errorAt = (field: string, label: string): string | undefined => {
    const message = said(field);
    return message === undefined ? undefined : inWords(message, field, label);
  };
  const noDestination = destinationIds.length === 0;
  const submit = (e: Event): void => {
    e.preventDefault();
    if (noDestination && !warnedEmpty) {
      setWarnedEmpty(true);
      return;
    }
    void save.run(async () => {
      const body: SubscriptionCreate = { description, enabled, destination_ids: destinationIds, sources: sources.map(sourceOf) };
      if (existing === undefined) await must(api.POST('/event_subscriptions', { body }));
      else await must(api.PATCH('/event_subscriptions/{id}', { params: { path: { id: existing.id } }, body }));
      go('subscriptions');
    });
  };
  const descHelp = 'For people: what this subscription is for.';
  return (
    <form onSubmit={submit} noValidate>
      <FormProblem failure={save.failure} id="form-problem" />
      <Field id="f-description" label="Description" help={descHelp} error={errorAt('description', 'Description')} errorPath="description">
        <input type="text" {...fieldAria('f-description', descHelp, errorAt('description', 'Description'))} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
      </Field>
      <DestinationPicker destinations={destinations} chosen={destinationIds} onChange={setDestinationIds} error={errorAt('destination_ids', 'Destinations')} />
      {sources.map((s, i) => (
        <SourceEditor
          key={i}
          id={`source-${i}`}
          title={`Source ${i + 1}`}
          draft={s}
          prefix={`sources[${i}].`}
          failure={save.failure}
          onChange={(d) => setSources((all) => all.map((x, j) => (j === i ? d : x)))}
          {...(sources.length > 1 && { onRemove: () => setSources((all) => all.filter((_, j) => j !== i)) })}
        />
      ))}
      <button type="button" onClick={() => setSources((all) => [...all, { ...NEW_SOURCE, type: 'http_request_complete.v0' }])}>
        Add a source
      </button>
      <div class="field checkbox">
        <input type="checkbox" id="f-enabled" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} aria-describedby="f-enabled-help" />
        <label for="f-enabled">Enabled</label>
        <p class="help" id="f-enabled-help">
          A paused subscription drops its matches; they are not kept for later.
        </p>
      </div>
      {noDestination && warnedEmpty && (
        <p class="warning" role="alert" id="no-destination">
          This subscription has no destination: what it matches goes nowhere until you choose one above. Save it anyway with the button below.
        </p>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={save.busy}>
          {noDestination && warnedEmpty ? 'Save without a destination' : existing === undefined ? 'Create subscription' : 'Save changes'}
        </button>
        <a class="button" href={href('subscriptions')}>
          Cancel
        </a>
      </div>
    </form>
  );
}
