// The console's shell: the token gate, the navigation (Accounts only for the operator account's keys),
// and the page of the current route.
import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, UNAUTHORIZED_EVENT, api, failureOf, session } from './api/client.ts';
import { href, useRoute } from './router.ts';
import { Field, Problem, fieldAria } from './ui/parts.tsx';
import { DestinationFormPage, DestinationsPage } from './pages/destinations.tsx';
import { SubscriptionFormPage, SubscriptionsPage } from './pages/subscriptions.tsx';
import { LiveSubscriptionPage, PlaygroundPage } from './pages/live.tsx';
import { ReplayPage } from './pages/replay.tsx';
import { AccountsPage, DomainsPage, EdgesPage, IpPoliciesPage, TcpAddressesPage } from './pages/accounts.tsx';

type Who = 'operator' | 'customer';

/** The operator account alone may list accounts: its keys get 200, every other key 403. */
async function whoIs(): Promise<Who> {
  const { response, error } = await api.GET('/accounts', { params: { query: { limit: 1 } } });
  if (response.ok) return 'operator';
  if (response.status === 403) return 'customer';
  throw failureOf(error, response);
}

const PAGES: readonly { path: string; label: string; operator?: boolean }[] = [
  { path: 'destinations', label: 'Destinations' },
  { path: 'subscriptions', label: 'Subscriptions' },
  { path: 'live', label: 'Live' },
  { path: 'accounts', label: 'Accounts', operator: true },
  { path: 'domains', label: 'Reserved domains' },
  { path: 'tcp-addresses', label: 'TCP addresses' },
  { path: 'edges', label: 'TCP edges' },
  { path: 'ip-policies', label: 'IP policies' },
];

export function App() {
  const [token, setToken] = useState(session.token());
  const [who, setWho] = useState<Who | undefined>(undefined);
  const [failure, setFailure] = useState<ApiFailure | undefined>(undefined);
  useEffect(() => {
    const onUnauthorized = (): void => {
      session.signOut();
      setToken(null);
      setWho(undefined);
      // The sign-in page says why it is back (the key was deleted, or the token is no longer accepted).
      setFailure(new ApiFailure({ error_code: 'unauthorized', status_code: 401, msg: 'The API no longer accepts this token.', details: {} }));
    };
    window.addEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
    return () => window.removeEventListener(UNAUTHORIZED_EVENT, onUnauthorized);
  }, []);
  useEffect(() => {
    if (token === null) return;
    whoIs().then(setWho, (err: ApiFailure) => {
      setFailure(err);
      if (err.problem.status_code === 401) {
        session.signOut();
        setToken(null);
      }
    });
  }, [token]);
  if (token === null) {
    return <SignIn failure={failure} onSignIn={(t) => { session.signIn(t); setFailure(undefined); setToken(t); }} />;
  }
  return (
    <Shell
      who={who}
      failure={failure}
      onSignOut={() => {
        session.signOut();
        setWho(undefined);
        setToken(null);
      }}
    />
  );
}

function Shell({ who, failure, onSignOut }: { who: Who | undefined; failure: ApiFailure | undefined; onSignOut(): void }) {
  const route = useRoute();
  const [page = 'destinations', id, action] = route;
  const pages = PAGES.filter((p) => p.operator !== true || who === 'operator');
  const current = pages.some((p) => p.path === page) ? page : who === undefined ? page : 'destinations';
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href('destinations')}>
          edge-events
        </a>
        <nav aria-label="Console">
          <ul>
            {pages.map((p) => (
              <li key={p.path}>
                <a href={href(p.path)} aria-current={current === p.path ? 'page' : undefined}>
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span class="muted" data-who={who}>
            {who === undefined ? '' : who === 'operator' ? 'operator account' : 'customer account'}
          </span>
          <button type="button" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main">
        <Problem failure={failure} />
        {/* A page of its own for each address: a form never keeps what it showed for another id. */}
        {who === undefined ? null : <Page key={`${current}/${id ?? ''}/${action ?? ''}`} page={current} id={id} action={action} operator={who === 'operator'} />}
      </main>
      <footer class="foot">
        <a href="/docs">API docs</a> · <a href="/openapi.json">OpenAPI document</a>
      </footer>
    </>
  );
}

function Page({ page, id, action, operator }: { page: string; id: string | undefined; action: string | undefined; operator: boolean }) {
  switch (page) {
    case 'subscriptions':
      if (id !== undefined && action === 'replay') return <ReplayPage id={id} />;
      return id === undefined ? <SubscriptionsPage /> : <SubscriptionFormPage id={id === 'new' ? undefined : id} />;
    case 'live':
      return id === undefined ? <PlaygroundPage /> : <LiveSubscriptionPage id={id} />;
    case 'accounts':
      return <AccountsPage />;
    case 'domains':
      return <DomainsPage operator={operator} />;
    case 'tcp-addresses':
      return <TcpAddressesPage />;
    case 'edges':
      return <EdgesPage />;
    case 'ip-policies':
      return <IpPoliciesPage />;
    default:
      return id === undefined ? <DestinationsPage /> : <DestinationFormPage id={id === 'new' ? undefined : id} />;
  }
}

function SignIn({ failure, onSignIn }: { failure: ApiFailure | undefined; onSignIn(token: string): void }) {
  const [value, setValue] = useState('');
  const help = 'An API key’s token (eek_…). The first start of the service printed one and wrote it to .local/api-token. It is kept in this tab only, until you sign out or close it.';
  const error = failure?.problem.status_code === 401 ? 'This token is not accepted: check that it is whole and that its key still exists.' : undefined;
  return (
    <main id="main" class="sign-in">
      <h1>edge-events console</h1>
      <p class="lead">Destinations, subscriptions and their live events, for the account your key belongs to.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim() !== '') onSignIn(value.trim());
        }}
      >
        <Field id="token" label="API token" help={help} error={error} required>
          <input type="password" autoComplete="off" spellcheck={false} {...fieldAria('token', help, error)} value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        </Field>
        {error === undefined && <Problem failure={failure} />}
        <button type="submit" class="primary">
          Sign in
        </button>
      </form>
      <p class="muted">
        Programs use the same API: <a href="/docs">API docs</a>.
      </p>
    </main>
  );
}
