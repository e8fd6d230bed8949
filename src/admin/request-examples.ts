// An example body for every operation that takes one, by operation id: the OpenAPI document shows it
// beside the body's schema (route.ts), and generated clients' docs carry it. Each is a request the API
// accepts as it stands, but for the ids it names, which are made up (the README's walk is the model).
import { ID_PREFIXES, type IdKind } from '../ids.js';

/** A made-up id of `kind`: its prefix and 26 characters of the id alphabet. */
const id = (kind: IdKind): string => `${ID_PREFIXES[kind]}_01HZX5Q2V7M3K9T8R6W4Y2N0PB`;

const SOURCE = {
  type: 'tcp_connection_closed.v0',
  fields: ['conn.client_ip', 'conn.server_name', 'conn.bytes_in'],
  filter: 'ev.conn.server_port == 443 && cidr("10.0.0.0/8").containsIP(ev.conn.client_ip)',
};

export const REQUEST_EXAMPLES: Readonly<Record<string, unknown>> = {
  createAccount: { description: 'Example Shop' },
  createApiKey: { account_id: id('account'), description: 'Example Shop admin' },
  updateApiKey: { description: 'Example Shop deploys' },
  createReservedDomain: { domain: '*.shop.example.com', description: 'the shop and its subdomains' },
  updateReservedDomain: { description: 'the shop' },
  verifyReservedDomain: {},
  createTcpAddress: { description: 'the shop database' },
  updateTcpAddress: { metadata: '{"service": "postgres"}' },
  createIpPolicy: { description: 'office networks' },
  updateIpPolicy: { metadata: '{"owner": "netops"}' },
  createIpPolicyRule: { ip_policy_id: id('ip_policy'), cidr: '10.0.0.0/8', action: 'allow', description: 'office' },
  updateIpPolicyRule: { cidr: '10.1.0.0/16' },
  createTcpEdge: { hostports: ['1.tcp.example.com:20000'], description: 'shop TLS' },
  updateTcpEdge: { description: 'shop TLS, port 20000' },
  putIpRestriction: { enabled: true, ip_policy_ids: [id('ip_policy')] },
  createEventDestination: { description: 'archive', target: { file: { path: 'archive/events.ndjson' } } },
  updateEventDestination: { timestamp_format: 'unix' },
  createEventSubscription: { description: 'TLS from 10/8', destination_ids: [id('event_destination')], sources: [SOURCE] },
  updateEventSubscription: { enabled: false },
  addEventSource: { type: 'http_request_complete.v0', fields: ['http.request.method', 'http.response.status_code'], sample_rate: 0.1 },
  updateEventSource: { filter: 'ev.conn.server_port == 22' },
  tapEventSource: SOURCE,
  createReplay: { from: '2026-01-15T09:00:00Z', to: '2026-01-15T10:00:00Z', destination_ids: [id('event_destination')] },
};
