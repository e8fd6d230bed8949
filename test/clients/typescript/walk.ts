// The README's walk through the TypeScript client a customer generates from the served document
// (openapi-typescript for the types, openapi-fetch for the calls). test/integration/clients/ copies it
// beside the types it generated (./schema.d.ts), type-checks it strictly and runs it in two phases:
//   create <url> <token> <name>: a file destination and a subscription to it; prints their ids;
//   check <url> <token> <destination id>: once traffic was produced, the destination's status ok and
//   the events in its file, an error's error_code, a 404; prints what it saw.
import { readFileSync } from 'node:fs';
import createClient from 'openapi-fetch';
import type { components, paths } from './schema.js';

type ErrorBody = components['schemas']['ErrorBody'];

const [phase, baseUrl, token, arg] = process.argv.slice(2) as [string, string, string, string];
const api = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token}` } });

function fail(what: string, error: ErrorBody | undefined, status: number): never {
  throw new Error(`${what} answered ${status}: ${JSON.stringify(error)}`);
}

async function create(name: string): Promise<void> {
  const dest = await api.POST('/event_destinations', { body: { description: name, target: { file: { path: `clients/${name}.ndjson` } } } });
  if (dest.data === undefined) fail('createEventDestination', dest.error, dest.response.status);
  const sub = await api.POST('/event_subscriptions', {
    body: {
      description: 'TLS from 10/8',
      destination_ids: [dest.data.id],
      sources: [
        {
          type: 'tcp_connection_closed.v0',
          fields: ['conn.client_ip', 'conn.server_name', 'conn.bytes_in'],
          filter: 'ev.conn.server_port == 443 && cidr("10.0.0.0/8").containsIP(ev.conn.client_ip)',
        },
      ],
    },
  });
  if (sub.data === undefined) fail('createEventSubscription', sub.error, sub.response.status);
  process.stdout.write(`${JSON.stringify({ destination: dest.data.id, subscription: sub.data.id })}\n`);
}

async function check(destination: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  let state = 'unknown';
  let file = '';
  while (Date.now() < deadline) {
    const got = await api.GET('/event_destinations/{id}', { params: { path: { id: destination } } });
    if (got.data === undefined) fail('getEventDestination', got.error, got.response.status);
    state = got.data.status.state;
    file = got.data.target.file?.resolved_path ?? '';
    if (state === 'ok') break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const events = file === '' ? 0 : readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').length;
  // A subscription to a destination that does not exist: a 400 whose body names the rule.
  const refused = await api.POST('/event_subscriptions', { body: { destination_ids: ['ed_00000000000000000000000000'] } });
  // A destination that does not exist: a 404, typed as the error body too.
  const missing = await api.GET('/event_destinations/{id}', { params: { path: { id: 'ed_00000000000000000000000000' } } });
  process.stdout.write(
    `${JSON.stringify({ state, events, refused: [refused.response.status, refused.error?.error_code], missing: [missing.response.status, missing.error?.error_code] })}\n`,
  );
}

if (phase === 'create') await create(arg);
else if (phase === 'check') await check(arg);
else throw new Error(`unknown phase ${phase}`);
