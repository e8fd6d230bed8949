// Destinations: each one's delivery state as the workers report it (refreshed every 2 s), a test event
// with its answer, a confirmed delete, and the create and edit form drawn from the kinds' schemas.
import { useState } from 'preact/hooks';
import forms from '../api/forms.gen.json';
import { api, must, type Destination, type TestEventResult } from '../api/client.ts';
import { go, href } from '../router.ts';
import { useAction, useLoad } from '../ui/hooks.ts';
import { DeliveredSpark, HistoryCharts } from '../ui/history-charts.tsx';
import { ListTools, Pager, readAll, useListView, type SortChoice } from '../ui/list-view.tsx';
import { DeleteButton, FormProblem, PageHeader, Placeholder, Problem, StateBadge, When } from '../ui/parts.tsx';
import { CHOICE, SchemaForm, formBody, formValues, type FormValues, type JsonSchema } from '../ui/schema-form.tsx';

/** How often the list asks for the destinations' status again: workers report a change within a second or two. */
export const STATUS_REFRESH_MS = 2000;

/** The kind a new destination's form opens on: a webhook, where most people start (the cloud kinds come first in the API's list). */
const FIRST_KIND = 'http';

/** Not drawn: metadata is for programs, format has one value, verify is the API's own switch. */
const OMIT = ['metadata', 'format', 'verify'];

/** The account's destinations, every page of the list up to LIST_READ_LIMIT (ui/list-view.tsx). */
export async function readDestinations(): Promise<{ items: Destination[]; more: boolean }> {
  return readAll(async (before) => {
    const page = await must(api.GET('/event_destinations', { params: { query: { limit: 100, ...(before !== undefined && { before_id: before }) } } }));
    return { items: page.event_destinations, next: page.next_page_uri !== null };
  });
}

export async function listDestinations(): Promise<Destination[]> {
  return (await readDestinations()).items;
}

const STATE_RANK: Readonly<Record<Destination['status']['state'], number>> = { failing: 0, parked: 1, unknown: 2, ok: 3 };

/** The destination list's orders: the API's (newest first), by name, the troubled first, by kind. */
const DESTINATION_SORTS: Readonly<Record<string, SortChoice<Destination>>> = {
  newest: { label: 'Newest first' },
  name: { label: 'Name', compare: (a, b) => destinationName(a).localeCompare(destinationName(b)) },
  state: { label: 'Failing first', compare: (a, b) => STATE_RANK[a.status.state] - STATE_RANK[b.status.state] || destinationName(a).localeCompare(destinationName(b)) },
  kind: { label: 'Kind', compare: (a, b) => targetSummary(a.target).kind.localeCompare(targetSummary(b.target).kind) || destinationName(a).localeCompare(destinationName(b)) },
};

/** What a search of the destinations reads: name, id, kind, where, state and last error. */
const destinationText = (d: Destination): string => {
  const { kind, where } = targetSummary(d.target);
  return [destinationName(d), d.id, kind, where, d.status.state, d.status.last_error?.code ?? '', d.status.last_error?.message ?? ''].join(' ');
};

/** What a destination is called: its description, else where it delivers (a path, a URL, a topic), else its id. */
export function destinationName(d: Pick<Destination, 'id' | 'description' | 'target'>): string {
  if (d.description !== '') return d.description;
  const { where } = targetSummary(d.target);
  return where !== '' ? where : d.id;
}

/** The kind a target sets and the first thing it names (a path, a URL, a topic, a resource name). */
export function targetSummary(target: Destination['target']): { kind: string; where: string } {
  const [kind, config] = Object.entries(target as Record<string, unknown>).find(([, v]) => v !== null && v !== undefined) ?? ['unknown', {}];
  const where = Object.entries((config ?? {}) as Record<string, unknown>).find(([k, v]) => typeof v === 'string' && k !== 'resolved_path')?.[1];
  return { kind, where: typeof where === 'string' ? where : '' };
}

export function DestinationsPage() {
  const list = useLoad(readDestinations, [], STATUS_REFRESH_MS);
  const view = useListView(list.data?.items ?? [], destinationText, DESTINATION_SORTS);
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Destinations">
        <a class="button primary" href={href('destinations', 'new')}>
          New destination
        </a>
      </PageHeader>
      <p class="lead">Where subscriptions deliver their events. The state of each comes from the workers and refreshes by itself.</p>
      <Problem failure={list.failure} />
      {list.data === undefined ? (
        <Placeholder />
      ) : list.data.items.length === 0 ? (
        <p class="empty">No destinations yet. Create one, then point a subscription at it.</p>
      ) : (
        <>
          <ListTools view={view} sorts={DESTINATION_SORTS} noun="destinations" more={list.data.more} />
          <ul class="cards" aria-label="Destinations">
            {view.shown.map((d) => (
              <DestinationCard destination={d} key={d.id} onDeleted={list.reload} />
            ))}
          </ul>
          <Pager view={view} noun="destinations" />
        </>
      )}
    </section>
  );
}

/** `onDeleted` reloads the list: after a delete, and after a test event for the state beside its answer. */
function DestinationCard({ destination: d, onDeleted }: { destination: Destination; onDeleted(): void }) {
  const { kind, where } = targetSummary(d.target);
  const status = d.status;
  const test = useAction();
  const [result, setResult] = useState<TestEventResult | undefined>(undefined);
  const name = destinationName(d);
  const sendTest = (): Promise<void> =>
    test.run(async () => {
      setResult(undefined);
      setResult(await must(api.POST('/event_destinations/{id}/test_event', { params: { path: { id: d.id } } })));
      // The state as the workers see it now, beside the test's answer.
      onDeleted();
    });
  return (
    <li class="card" data-destination={d.id} aria-label={name}>
      <div class="card-head">
        <h2>{name}</h2>
        <StateBadge state={status.state} />
      </div>
      <p class="meta">
        <span class="kind">{kind}</span> <code class="where">{where}</code>
      </p>
      <StatusFacts status={status} test={result} />
      <DeliveredSpark id={d.id} name={name} />
      <div class="actions">
        <a class="button" href={href('destinations', d.id)} aria-label={`Edit ${name}`}>
          Edit
        </a>
        <button type="button" onClick={() => void sendTest()} disabled={test.busy} aria-label={`Send test event to ${name}`}>
          {test.busy ? 'Sending…' : 'Send test event'}
        </button>
        <DeleteButton what={name} onDelete={async () => { await must(api.DELETE('/event_destinations/{id}', { params: { path: { id: d.id } } })); onDeleted(); }} />
      </div>
      <div aria-live="polite" class="test-result">
        <Problem failure={test.failure} />
        {result !== undefined && (
          <p class={result.delivered ? 'ok' : 'problem'} data-delivered={String(result.delivered)}>
            {result.delivered ? 'Test event delivered' : 'Test event not delivered'}
            {result.status_code !== null && ` (answer ${result.status_code})`} in {result.duration_ms} ms
            {result.error !== undefined && `: ${result.error.code}: ${result.error.message}`}
          </p>
        )}
      </div>
    </li>
  );
}

export function DestinationFormPage({ id }: { id: string | undefined }) {
  const schema = (id === undefined ? forms.createDestination : forms.updateDestination) as JsonSchema;
  // Refreshed as the list is, for the status above the form; the form keeps what was typed.
  const existing = useLoad(async () => (id === undefined ? undefined : must(api.GET('/event_destinations/{id}', { params: { path: { id } } }))), [id], id === undefined ? undefined : STATUS_REFRESH_MS);
  const loaded = id === undefined || existing.data !== undefined;
  return (
    <section aria-labelledby="page-title">
      <PageHeader title={id === undefined ? 'New destination' : 'Edit destination'} />
      <Problem failure={existing.failure} />
      {/* An existing destination's parts appear together once it is read, so none moves another while loading. */}
      {!loaded && <Placeholder rows={2} />}
      {existing.data !== undefined && id !== undefined && (
        <>
          <StatusCard status={existing.data.status} />
          <UsedBy id={id} />
          <HistoryCharts id={id} />
          <h2 class="form-title">Settings</h2>
        </>
      )}
      {loaded && <DestinationForm schema={schema} existing={existing.data} />}
    </section>
  );
}

/** The subscriptions that deliver to a destination, each a link to its page. */
function UsedBy({ id }: { id: string }) {
  const subs = useLoad(
    async () =>
      (
        await readAll(async (before) => {
          const page = await must(api.GET('/event_subscriptions', { params: { query: { limit: 100, ...(before !== undefined && { before_id: before }) } } }));
          return { items: page.event_subscriptions, next: page.next_page_uri !== null };
        })
      ).items.filter((s) => s.destinations.some((d) => d.id === id)),
    [id],
  );
  return (
    <p class="used-by" data-used-by={subs.data?.length}>
      <span class="muted">Used by: </span>
      {subs.data === undefined ? (
        '…'
      ) : subs.data.length === 0 ? (
        <span class="muted">no subscription yet</span>
      ) : (
        subs.data.map((s, i) => (
          <span key={s.id}>
            {i > 0 && ', '}
            <a href={href('subscriptions', s.id)}>{s.description !== '' ? s.description : s.id}</a>
          </span>
        ))
      )}
    </p>
  );
}

/** The status above a destination's edit form: the reason beside the fields that may fix it. */
function StatusCard({ status }: { status: Destination['status'] }) {
  return (
    <section class="card status" aria-label="Status">
      <div class="card-head">
        <h2>Status</h2>
        <StateBadge state={status.state} />
      </div>
      <StatusFacts status={status} />
    </section>
  );
}

/**
 * A destination's status as the workers report it: last delivery, parked events, last error. A test
 * event that failed where the workers have reported no error yet is the last error shown, marked as the
 * test's, so the card does not say "none" beside a failure.
 */
function StatusFacts({ status, test }: { status: Destination['status']; test?: TestEventResult | undefined }) {
  const failedTest = test !== undefined && !test.delivered && status.last_error === null ? test : undefined;
  return (
    <dl class="facts">
      <div>
        <dt>Last delivery</dt>
        <dd>
          <When iso={status.last_delivered_at} />
        </dd>
      </div>
      <div>
        <dt>Parked events</dt>
        <dd data-parked={status.parked_events}>
          {status.parked_events}
          {status.oldest_parked_at !== null && (
            <>
              {' '}
              (oldest <When iso={status.oldest_parked_at} />)
            </>
          )}
        </dd>
      </div>
      <div class="wide">
        <dt>Last error</dt>
        <dd class="last-error">
          {failedTest !== undefined ? (
            <span data-from="test-event">
              Test event: {failedTest.error !== undefined ? <code>{failedTest.error.code}</code> : null} {failedTest.error?.message ?? 'not delivered'}
              {failedTest.status_code !== null && ` (answer ${failedTest.status_code})`}
            </span>
          ) : status.last_error === null ? (
            <span class="muted">none</span>
          ) : (
            <>
              <code>{status.last_error.code}</code> {status.last_error.message} <When iso={status.last_error.at} />
            </>
          )}
        </dd>
      </div>
    </dl>
  );
}

function DestinationForm({ schema, existing }: { schema: JsonSchema; existing: Destination | undefined }) {
  const [values, setValues] = useState<FormValues>(() => (existing === undefined ? { [`target${CHOICE}`]: FIRST_KIND } : formValues(schema, existing)));
  const save = useAction();
  // Every field the API refused, each beside its field.
  const errors = save.failure?.byField ?? {};
  const submit = (e: Event): void => {
    e.preventDefault();
    void save.run(async () => {
      // The body is what the form's schema describes; the API checks it and names the field it refuses.
      if (existing === undefined) {
        await must(api.POST('/event_destinations', { body: formBody(schema, values, OMIT) as never }));
      } else {
        await must(api.PATCH('/event_destinations/{id}', { params: { path: { id: existing.id } }, body: formBody(schema, values, OMIT) as never }));
      }
      go('destinations');
    });
  };
  return (
    <form onSubmit={submit} noValidate aria-describedby={save.failure !== undefined ? 'form-problem' : undefined}>
      <FormProblem failure={save.failure} id="form-problem" />
      <SchemaForm
        schema={schema}
        values={values}
        errors={errors}
        update={existing !== undefined}
        omit={OMIT}
        first={['description', 'target']}
        labels={{ target: 'Target', timestamp_format: 'Timestamp format' }}
        onChange={(key, value) => {
          // Another kind (or auth) is another form: the errors of the one before do not apply to it.
          if (key.endsWith(CHOICE)) save.clear();
          setValues((v) => ({ ...v, [key]: value }));
        }}
      />
      <div class="actions">
        <button type="submit" class="primary" disabled={save.busy}>
          {existing === undefined ? 'Create destination' : 'Save changes'}
        </button>
        <a class="button" href={href('destinations')}>
          Cancel
        </a>
      </div>
    </form>
  );
}

/** A checkbox list of destinations, for a subscription's form. */
export function DestinationPicker({ destinations, chosen, onChange, error }: { destinations: Destination[]; chosen: readonly string[]; onChange(ids: string[]): void; error: string | undefined }) {
  const id = 'f-destination_ids';
  const help = destinations.length === 0 ? 'No destinations yet: create one first.' : 'Where the subscription delivers its events.';
  return (
    <fieldset class="group" aria-describedby={error !== undefined ? `${id}-help ${id}-error` : `${id}-help`}>
      <legend>Destinations</legend>
      {destinations.map((d) => (
        <div class="field checkbox" key={d.id}>
          <input
            type="checkbox"
            id={`dest-${d.id}`}
            checked={chosen.includes(d.id)}
            onChange={(e) => onChange(e.currentTarget.checked ? [...chosen, d.id] : chosen.filter((c) => c !== d.id))}
          />
          <label for={`dest-${d.id}`}>
            {destinationName(d)} <span class="muted">({targetSummary(d.target).kind})</span>
          </label>
        </div>
      ))}
      <p class="help" id={`${id}-help`}>{help}</p>
      {error !== undefined && <p class="field-error" id={`${id}-error`}>{error}</p>}
    </fieldset>
  );
}
