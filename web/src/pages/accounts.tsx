// The account pages beside destinations and subscriptions: accounts and their API keys (the operator's
// alone; a new token shown once, with a copy button), and every account's reserved domains (with their
// DNS verification), reserved TCP addresses and TCP edges with their IP restriction, and IP policies with their rules.
import { useState } from 'preact/hooks';
import { api, must, type Account, type ApiKey, type IpPolicy, type IpPolicyRule, type ReservedDomain, type TcpAddress, type TcpEdge, type paths } from '../api/client.ts';
import { useAction, useLoad } from '../ui/hooks.ts';
import { CopyButton, DeleteButton, PageHeader, Pill, Placeholder, Problem, When } from '../ui/parts.tsx';
import { SimpleForm } from '../ui/simple-form.tsx';

type Body<P extends keyof paths, M extends 'post' | 'put'> = paths[P][M] extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

const nameOf = (r: { id: string; description: string }): string => (r.description !== '' ? r.description : r.id);

async function allAccounts(): Promise<Account[]> {
  return (await must(api.GET('/accounts', { params: { query: { limit: 100 } } }))).accounts;
}
async function allKeys(): Promise<Omit<ApiKey, 'token'>[]> {
  return (await must(api.GET('/api_keys', { params: { query: { limit: 100 } } }))).api_keys;
}
async function allPolicies(): Promise<IpPolicy[]> {
  return (await must(api.GET('/ip_policies', { params: { query: { limit: 100 } } }))).ip_policies;
}

export function AccountsPage() {
  const accounts = useLoad(allAccounts, []);
  const keys = useLoad(allKeys, []);
  const [created, setCreated] = useState<{ key: ApiKey; account: string } | undefined>(undefined);
  const reload = (): void => {
    accounts.reload();
    keys.reload();
  };
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Accounts and keys" />
      <p class="lead">Every resource and event belongs to an account. A customer's key sees and receives only its account's.</p>
      {created !== undefined && (
        <div class="token-once" role="status">
          <h2>New API key for {created.account}</h2>
          <p>This token is shown once, here only. Copy it now and hand it to the account's owner.</p>
          <p class="token-row">
            <code class="token" data-token>
              {created.key.token}
            </code>
            <CopyButton text={created.key.token ?? ''} label="Copy token" />
          </p>
          <button type="button" onClick={() => setCreated(undefined)}>
            I have copied it
          </button>
        </div>
      )}
      <h2>New account</h2>
      <SimpleForm
        id="account"
        fields={[{ name: 'description', label: 'Description', help: 'Who this account is for, e.g. the customer’s name.' }]}
        submitLabel="Create account"
        submit={async (body) => {
          await must(api.POST('/accounts', { body: body as Body<'/accounts', 'post'> }));
          reload();
        }}
      />
      <Problem failure={accounts.failure ?? keys.failure} />
      <h2>Accounts</h2>
      {accounts.data === undefined || keys.data === undefined ? (
        <Placeholder />
      ) : (
        <ul class="cards" aria-label="Accounts">
          {accounts.data.map((a) => (
            <li class="card" key={a.id} aria-label={nameOf(a)}>
              <div class="card-head">
                <h3>{nameOf(a)}</h3>
                <code class="muted">{a.id}</code>
              </div>
              <h4>API keys</h4>
              <ul class="plain">
                {keys.data?.filter((k) => k.account_id === a.id).map((k) => (
                  <li key={k.id} class="row">
                    <span>
                      {nameOf(k)} <span class="muted">created <When iso={k.created_at} /></span>
                    </span>
                    <DeleteButton what={`key ${nameOf(k)}`} onDelete={async () => { await must(api.DELETE('/api_keys/{id}', { params: { path: { id: k.id } } })); reload(); }} />
                  </li>
                ))}
              </ul>
              <SimpleForm
                id={`key-${a.id}`}
                fields={[{ name: 'description', label: 'New key’s description', help: 'What or who uses the key.' }]}
                submitLabel="Create API key"
                submit={async (body) => {
                  setCreated({ key: await must(api.POST('/api_keys', { body: { ...body, account_id: a.id } as Body<'/api_keys', 'post'> })), account: nameOf(a) });
                  reload();
                }}
              />
              {/* The operator account cannot be deleted (the API answers 409), so it is not offered. */}
              {!a.operator && (
                <div class="actions">
                  <DeleteButton what={`${nameOf(a)} and everything it owns`} label="Delete account" onDelete={async () => { await must(api.DELETE('/accounts/{id}', { params: { path: { id: a.id } } })); reload(); }} />
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function DomainsPage({ operator }: { operator: boolean }) {
  const domains = useLoad(async (): Promise<ReservedDomain[]> => (await must(api.GET('/reserved_domains', { params: { query: { limit: 100 } } }))).reserved_domains, []);
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="Reserved domains" />
      <p class="lead">
        HTTP traffic belongs to the account that reserved the request’s server name, exactly or by a <code>*.</code> wildcard, once the reservation is verified: publish its DNS TXT record, then verify it.
      </p>
      <SimpleForm
        id="domain"
        fields={[
          { name: 'domain', label: 'Domain', required: true, placeholder: '*.shop.example.com', help: 'A name, or *. and a name for every name under it.' },
          { name: 'description', label: 'Description' },
        ]}
        submitLabel="Reserve domain"
        submit={async (body) => {
          await must(api.POST('/reserved_domains', { body: body as Body<'/reserved_domains', 'post'> }));
          domains.reload();
        }}
      />
      <Problem failure={domains.failure} />
      {domains.data === undefined ? (
        <Placeholder />
      ) : domains.data.length === 0 ? (
        <p class="empty">No reserved domains yet.{operator && ' A customer’s reservations are listed under its own key, not here.'}</p>
      ) : (
        <ul class="cards" aria-label="Reserved domains">
          {domains.data.map((d) => (
            <DomainCard domain={d} operator={operator} key={d.id} onChange={domains.reload} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** A reservation: pending until its TXT record is found (or the operator verifies it by hand), then verified. */
function DomainCard({ domain: d, operator, onChange }: { domain: ReservedDomain; operator: boolean; onChange(): void }) {
  const action = useAction();
  const verify = (manual: boolean): Promise<void> =>
    action.run(async () => {
      await must(api.POST('/reserved_domains/{id}/verify', { params: { path: { id: d.id } }, body: { manual } }));
      onChange();
    });
  const record = d.verification;
  return (
    <li class="card" aria-label={d.domain} data-status={d.status}>
      <div class="card-head">
        <h2>
          <code>{d.domain}</code>
        </h2>
        <Pill tone={d.status === 'verified' ? 'on' : 'off'}>{d.status}</Pill>
      </div>
      {d.description !== '' && <p>{d.description}</p>}
      <dl class="facts">
        {/* The whole width: an account id in half a card broke over two lines. */}
        <div class="wide">
          <dt>Account</dt>
          <dd>
            <code class="muted">{d.account_id}</code>
          </dd>
        </div>
        {d.status === 'verified' && (
          <div>
            <dt>Verified</dt>
            <dd>
              <When iso={d.verified_at} /> {d.verified_by === 'operator' ? 'by the operator, by hand' : 'by its TXT record'}
            </dd>
          </div>
        )}
      </dl>
      {d.status === 'pending' && (
        <>
          {record === null ? (
            <p class="help">This reservation was made before verification existed; the operator can verify it by hand.</p>
          ) : (
            <div class="txt-record">
              <p>It owns no traffic until verified. Publish this DNS record, then verify:</p>
              <dl class="facts">
                <div class="wide">
                  <dt>TXT name</dt>
                  <dd>
                    <code data-record-name>{record.record_name}</code> <CopyButton text={record.record_name} label="Copy name" />
                  </dd>
                </div>
                <div class="wide">
                  <dt>TXT value</dt>
                  <dd>
                    <code data-record-value>{record.record_value}</code> <CopyButton text={record.record_value} label="Copy value" />
                  </dd>
                </div>
              </dl>
            </div>
          )}
          <Problem failure={action.failure} />
        </>
      )}
      <div class="actions">
        {d.status === 'pending' && record !== null && (
          <button type="button" disabled={action.busy} onClick={() => void verify(false)} aria-label={`Verify ${d.domain}`}>
            Verify
          </button>
        )}
        {d.status === 'pending' && operator && (
          <button type="button" disabled={action.busy} onClick={() => void verify(true)} aria-label={`Verify by hand ${d.domain}`}>
            Verify by hand
          </button>
        )}
        <DeleteButton what={d.domain} onDelete={async () => { await must(api.DELETE('/reserved_domains/{id}', { params: { path: { id: d.id } } })); onChange(); }} />
      </div>
    </li>
  );
}

export function TcpAddressesPage() {
  const addresses = useLoad(async (): Promise<TcpAddress[]> => (await must(api.GET('/reserved_addrs', { params: { query: { limit: 100 } } }))).reserved_addrs, []);
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="TCP addresses" />
      <p class="lead">
        A reserved TCP address is the account’s alone: the service picks the next free one of its pool, only the account’s TCP edges may list it, and its TCP traffic is the account’s. An address no
        edge lists may be released.
      </p>
      <SimpleForm
        id="tcp-address"
        fields={[{ name: 'description', label: 'Description' }]}
        submitLabel="Reserve TCP address"
        submit={async (body) => {
          await must(api.POST('/reserved_addrs', { body: body as Body<'/reserved_addrs', 'post'> }));
          addresses.reload();
        }}
      />
      <Problem failure={addresses.failure} />
      {addresses.data === undefined ? (
        <Placeholder />
      ) : addresses.data.length === 0 ? (
        <p class="empty">No reserved TCP addresses yet.</p>
      ) : (
        <ul class="cards" aria-label="Reserved TCP addresses">
          {addresses.data.map((a) => (
            <li class="card" aria-label={a.addr} key={a.id}>
              <div class="card-head">
                <h2>
                  <code data-addr>{a.addr}</code>
                </h2>
                <CopyButton text={a.addr} />
              </div>
              {a.description !== '' && <p class="meta">{a.description}</p>}
              <div class="actions">
                <DeleteButton what={a.addr} onDelete={async () => { await must(api.DELETE('/reserved_addrs/{id}', { params: { path: { id: a.id } } })); addresses.reload(); }} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function EdgesPage() {
  const edges = useLoad(async (): Promise<TcpEdge[]> => (await must(api.GET('/edges/tcp', { params: { query: { limit: 100 } } }))).tcp_edges, []);
  const policies = useLoad(allPolicies, []);
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="TCP edges" />
      <p class="lead">
        TCP traffic belongs to the account whose edge has the connection’s host and port. An edge lists the account’s reserved TCP addresses (on the TCP addresses page) and names under its verified
        reserved domains; its IP restriction decides which clients may connect.
      </p>
      <SimpleForm
        id="edge"
        fields={[
          { name: 'hostports', label: 'Host and port', kind: 'lines', placeholder: '1.tcp.example.com:20000', help: 'One host:port per line.' },
          { name: 'description', label: 'Description' },
        ]}
        submitLabel="Create TCP edge"
        submit={async (body) => {
          await must(api.POST('/edges/tcp', { body: body as Body<'/edges/tcp', 'post'> }));
          edges.reload();
        }}
      />
      <Problem failure={edges.failure ?? policies.failure} />
      {edges.data === undefined || policies.data === undefined ? (
        <Placeholder />
      ) : (
        <ul class="cards" aria-label="TCP edges">
          {edges.data.map((e) => (
            // Keyed by its restriction too: the form starts again from what the API now says after a save or a removal.
            <EdgeCard edge={e} policies={policies.data ?? []} key={`${e.id}:${JSON.stringify(e.ip_restriction)}`} onChange={edges.reload} />
          ))}
        </ul>
      )}
    </section>
  );
}

function EdgeCard({ edge, policies, onChange }: { edge: TcpEdge; policies: IpPolicy[]; onChange(): void }) {
  const restriction = edge.ip_restriction;
  const [enabled, setEnabled] = useState(restriction?.enabled ?? true);
  const [chosen, setChosen] = useState<string[]>(restriction?.ip_policies.map((p) => p.id) ?? []);
  const save = useAction();
  const name = nameOf(edge);
  const put = (): Promise<void> =>
    save.run(async () => {
      await must(api.PUT('/edges/tcp/{id}/ip_restriction', { params: { path: { id: edge.id } }, body: { enabled, ip_policy_ids: chosen } }));
      onChange();
    });
  const remove = (): Promise<void> =>
    save.run(async () => {
      await must(api.DELETE('/edges/tcp/{id}/ip_restriction', { params: { path: { id: edge.id } } }));
      onChange();
    });
  return (
    <li class="card" aria-label={name}>
      <div class="card-head">
        <h2>{name}</h2>
        {restriction === null ? <Pill tone="off">no IP restriction</Pill> : restriction.enabled ? <Pill tone="on">IP restriction on</Pill> : <Pill tone="off">IP restriction off</Pill>}
      </div>
      <p class="meta">
        {edge.hostports.map((h) => (
          <code key={h}>{h} </code>
        ))}
      </p>
      {edge.unowned_hostports.length > 0 && (
        <p class="help" data-unowned>
          Owning no traffic, as this account has not reserved them: {edge.unowned_hostports.join(', ')}. Leave them out when you change the hostports.
        </p>
      )}
      <fieldset class="group">
        <legend>IP restriction</legend>
        <div class="field checkbox">
          <input type="checkbox" id={`${edge.id}-enabled`} checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
          <label for={`${edge.id}-enabled`}>Apply it to traffic</label>
        </div>
        <p class="help">{policies.length === 0 ? 'No IP policies yet: create one on the IP policies page.' : 'The IP policies whose rules decide which clients may connect:'}</p>
        {policies.map((p) => (
          <div class="field checkbox" key={p.id}>
            <input type="checkbox" id={`${edge.id}-${p.id}`} checked={chosen.includes(p.id)} onChange={(e) => setChosen(e.currentTarget.checked ? [...chosen, p.id] : chosen.filter((c) => c !== p.id))} />
            <label for={`${edge.id}-${p.id}`}>{nameOf(p)}</label>
          </div>
        ))}
        <div class="actions">
          <button type="button" class="primary" disabled={save.busy} onClick={() => void put()}>
            Save IP restriction
          </button>
          {restriction !== null && (
            <button type="button" disabled={save.busy} onClick={() => void remove()}>
              Remove IP restriction
            </button>
          )}
        </div>
        <Problem failure={save.failure} />
      </fieldset>
      <div class="actions">
        <DeleteButton what={`edge ${name}`} onDelete={async () => { await must(api.DELETE('/edges/tcp/{id}', { params: { path: { id: edge.id } } })); onChange(); }} />
      </div>
    </li>
  );
}

export function IpPoliciesPage() {
  const policies = useLoad(allPolicies, []);
  const rules = useLoad(async (): Promise<IpPolicyRule[]> => (await must(api.GET('/ip_policy_rules', { params: { query: { limit: 100 } } }))).ip_policy_rules, []);
  const reload = (): void => {
    policies.reload();
    rules.reload();
  };
  return (
    <section aria-labelledby="page-title">
      <PageHeader title="IP policies" />
      <p class="lead">A policy is a list of rules, each allowing or denying a CIDR range; TCP edges’ IP restrictions use them.</p>
      <SimpleForm
        id="policy"
        fields={[{ name: 'description', label: 'Description', help: 'What the policy is for, e.g. office networks.' }]}
        submitLabel="Create IP policy"
        submit={async (body) => {
          await must(api.POST('/ip_policies', { body: body as Body<'/ip_policies', 'post'> }));
          reload();
        }}
      />
      <Problem failure={policies.failure ?? rules.failure} />
      {policies.data === undefined || rules.data === undefined ? (
        <Placeholder />
      ) : (
        <ul class="cards" aria-label="IP policies">
          {policies.data.map((p) => (
            <li class="card" key={p.id} aria-label={nameOf(p)}>
              <div class="card-head">
                <h2>{nameOf(p)}</h2>
                <code class="muted">{p.id}</code>
              </div>
              <ul class="plain">
                {rules.data?.filter((r) => r.ip_policy.id === p.id).map((r) => (
                  <li key={r.id} class="row">
                    <span>
                      <Pill tone={r.action === 'allow' ? 'on' : 'off'}>{r.action}</Pill> <code>{r.cidr}</code> {r.description}
                    </span>
                    <DeleteButton what={`rule ${r.cidr}`} onDelete={async () => { await must(api.DELETE('/ip_policy_rules/{id}', { params: { path: { id: r.id } } })); reload(); }} />
                  </li>
                ))}
              </ul>
              <SimpleForm
                id={`rule-${p.id}`}
                fields={[
                  { name: 'cidr', label: 'CIDR', required: true, placeholder: '192.0.2.0/24' },
                  { name: 'action', label: 'Action', kind: 'choice', options: [{ value: 'allow', label: 'allow' }, { value: 'deny', label: 'deny' }] },
                  { name: 'description', label: 'Description' },
                ]}
                submitLabel="Add rule"
                submit={async (body) => {
                  await must(api.POST('/ip_policy_rules', { body: { ...body, ip_policy_id: p.id } as Body<'/ip_policy_rules', 'post'> }));
                  reload();
                }}
              />
              <div class="actions">
                <DeleteButton what={`policy ${nameOf(p)}`} onDelete={async () => { await must(api.DELETE('/ip_policies/{id}', { params: { path: { id: p.id } } })); reload(); }} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
