// A run of the model drawn from a seed: accounts with their reserved domains and TCP edges, destinations
// with timestamp formats, subscriptions with traffic and audit sources (fields, filters from a small
// grammar, sample rates, paused or not), then phases of traffic and admin changes. The same seed draws
// the same plan; the ids the service gives are learned when the plan runs.
import { seededRandom, type Random } from '../../src/traffic/random.js';
import { AUDIT_TYPES, FIELDS, TIMESTAMP_FORMATS, TRAFFIC_TYPES, type AuditType, type TimestampFormat, type TrafficType } from './catalogue.js';
import { CLIENT_IPS, PORTS, SERVER_IPS, drawMalformed, drawMalformedAudit, drawRecord, type Malformed, type ModelRecord, type WireForm } from './records.js';

export type Scale = 'short' | 'full';
export const OPERATOR = 'operator';

/** When the operator verifies a reservation by hand: right after it is made, after every reservation is made, or never (it stays pending). */
export type Verification = 'at once' | 'later' | 'never';

export interface DomainDraw {
  readonly account: string;
  readonly domain: string;
  readonly verify: Verification;
}

export interface EdgeDraw {
  readonly account: string;
  readonly hostports: readonly string[];
}

export type DestinationKind = 'kafka' | 'http' | 'file' | 'data_stream' | 'datadog' | 'azure_logs_ingestion' | 'elasticsearch' | 'azure_blob' | 'gcs';

export interface DestinationDraw {
  readonly name: string;
  readonly account: string;
  readonly kind: DestinationKind;
  readonly format: TimestampFormat;
  /** A kafka destination's key path (src/delivery/destinations/kafka/README.md); undefined keys by event id. */
  readonly key?: string;
}

/** Key paths of kafka destinations: leaves of traffic objects (absent in audit events), and the event type. */
const KEY_PATHS = ['object.conn.server_name', 'object.conn.server_port', 'object.conn.start_ts', 'event_type', 'event_id'] as const;

export type SourceDraw =
  | { readonly type: TrafficType; readonly fields: readonly string[]; readonly filter: string | undefined; readonly sampleRate: number | undefined }
  | { readonly type: AuditType };

export interface SubscriptionDraw {
  readonly name: string;
  readonly account: string;
  readonly sources: readonly SourceDraw[];
  readonly destinations: readonly string[];
  readonly enabled: boolean;
}

export interface TrafficDraw {
  readonly key: string;
  readonly record: ModelRecord;
  readonly form: WireForm;
}

export interface MalformedDraw {
  readonly key: string;
  readonly topic: TrafficType | 'audit';
  readonly bad: Malformed;
}

export type AdminAction =
  | { readonly kind: 'ip_policy_create'; readonly account: string; readonly ref: string }
  | { readonly kind: 'ip_policy_update'; readonly ref: string }
  | { readonly kind: 'ip_policy_delete'; readonly ref: string }
  | { readonly kind: 'destination_update'; readonly destination: string }
  | { readonly kind: 'api_key_create'; readonly account: string };

export interface Phase {
  /** Customers deleted before anything else of the phase. */
  readonly deleteAccounts: readonly string[];
  /** Subscriptions paused (false) or resumed (true) before the phase's traffic. */
  readonly toggles: ReadonlyArray<{ readonly subscription: string; readonly enabled: boolean }>;
  /** Destinations whose timestamp_format changes before the phase's traffic. */
  readonly reformats: ReadonlyArray<{ readonly destination: string; readonly format: TimestampFormat }>;
  /** http and file destinations pointed at a new URL path or file before the phase's traffic. */
  readonly retargets: readonly string[];
  /** Subscriptions whose traffic sources (fields, filters, sample rates) are replaced before the phase's traffic. */
  readonly resources: ReadonlyArray<{ readonly subscription: string; readonly sources: readonly SourceDraw[] }>;
  /** Reserved domains (their index in the plan's list) deleted before the phase's traffic. */
  readonly unreserve: readonly number[];
  readonly traffic: readonly TrafficDraw[];
  readonly malformed: readonly MalformedDraw[];
  readonly actions: readonly AdminAction[];
}

export interface Plan {
  readonly seed: number;
  readonly accounts: readonly string[];
  readonly domains: readonly DomainDraw[];
  readonly edges: readonly EdgeDraw[];
  readonly destinations: readonly DestinationDraw[];
  readonly subscriptions: readonly SubscriptionDraw[];
  readonly phases: readonly Phase[];
}

const SIZES = {
  short: { customers: 2, destinations: [1, 2], subscriptions: [1, 3], phases: 2, records: 50, malformed: 4, actions: 3 },
  full: { customers: 3, destinations: [1, 3], subscriptions: [2, 4], phases: 3, records: 250, malformed: 15, actions: 6 },
} as const;

const int = (r: Random, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: Random, items: readonly T[]): T => items[Math.floor(r() * items.length)] as T;
const chance = (r: Random, p: number): boolean => r() < p;

function sample<T>(r: Random, items: readonly T[], n: number): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < n && pool.length > 0) out.push(pool.splice(Math.floor(r() * pool.length), 1)[0] as T);
  return out;
}

/** The base domain of a customer: every name the plan reserves or sends lives under one of these. */
const baseOf = (account: string): string => `${account}.model.test`;

/**
 * Reservations drawn from names under every base, so an account sometimes asks for a name another holds
 * (the model predicts the 409); exact names, wildcards, and wildcards nested in an account's own.
 */
function drawDomains(r: Random, customers: readonly string[]): Array<Omit<DomainDraw, 'verify'>> {
  const out: Array<Omit<DomainDraw, 'verify'>> = [];
  for (const account of customers) {
    for (let i = int(r, 1, 3); i > 0; i--) {
      const base = baseOf(chance(r, 0.8) ? account : pick(r, customers));
      out.push({ account, domain: pick(r, [`shop.${base}`, `*.${base}`, `*.eu.${base}`, `api.eu.${base}`, base]) });
    }
  }
  return out;
}

/** Server names of traffic: under the bases at several depths and in other cases, and names of nobody. */
function serverNames(customers: readonly string[]): string[] {
  const names = ['nobody.test', 'model.test'];
  for (const a of customers) {
    const b = baseOf(a);
    names.push(b, `shop.${b}`, `SHOP.${b.toUpperCase()}`, `x.${b}`, `a.b.${b}`, `eu.${b}`, `api.eu.${b}`, `deep.api.eu.${b}`);
  }
  return names;
}

function drawEdges(r: Random, customers: readonly string[]): EdgeDraw[] {
  const out: EdgeDraw[] = [];
  for (const account of customers) {
    if (chance(r, 0.3)) continue;
    const n = int(r, 1, 2);
    const hostports = sample(r, ['20001', '20002', '443'], n).map((p) => `tcp.${baseOf(chance(r, 0.85) ? account : pick(r, customers))}:${p}`);
    out.push({ account, hostports });
  }
  return out;
}

// ---- filters: a small grammar over the filterable fields (docs/events.md "Filterable fields") ----

function atom(r: Random, names: readonly string[]): string {
  const port = (): number => pick(r, PORTS);
  const name = (): string => JSON.stringify(pick(r, names).toLowerCase());
  switch (int(r, 0, 13)) {
    case 0:
      return `ev.conn.server_port == ${port()}`;
    case 1:
      return `ev.conn.server_port in [${port()}, ${port()}]`;
    case 2:
      return `ev.conn.server_port ${pick(r, ['<', '>=', '!='])} ${port()}`;
    case 3:
      return `ev.conn.server_name == ${name()}`;
    case 4:
      return `ev.conn.server_name.endsWith(${JSON.stringify(`.${pick(r, names).split('.').slice(-3).join('.').toLowerCase()}`)})`;
    case 5:
      return `ev.conn.server_name in [${name()}, ${name()}]`;
    case 6:
      return `ev.conn.client_ip == ${JSON.stringify(pick(r, CLIENT_IPS))}`;
    case 7:
      return `ev.conn.client_ip.startsWith(${JSON.stringify(pick(r, ['10.', '192.168.', '2001:']))})`;
    case 8:
      return `ev.conn.server_ip ${pick(r, ['==', '!='])} ${JSON.stringify(pick(r, SERVER_IPS))}`;
    case 9:
      return `ev.conn.server_name.contains(${JSON.stringify(pick(r, ['shop', 'eu', 'api']))})`;
    case 10:
      return `size(ev.conn.server_name) > ${int(r, 5, 25)}`;
    default:
      return 'true';
  }
}

function filterExpr(r: Random, names: readonly string[], depth: number): string {
  const roll = r();
  if (depth <= 0 || roll < 0.5) return atom(r, names);
  if (roll < 0.65) return `${filterExpr(r, names, depth - 1)} && ${filterExpr(r, names, depth - 1)}`;
  if (roll < 0.9) return `(${filterExpr(r, names, depth - 1)} || ${filterExpr(r, names, depth - 1)})`;
  return `!(${filterExpr(r, names, depth - 1)})`;
}

function drawTrafficSource(r: Random, type: TrafficType, names: readonly string[]): SourceDraw {
  const fields = sample(
    r,
    FIELDS[type].map((x) => x.name),
    int(r, 1, 6),
  ).sort();
  const filter = chance(r, 0.25) ? undefined : filterExpr(r, names, 2);
  const sampleRate = chance(r, 0.7) ? undefined : pick(r, [0.5, 0.25, 0.9, 1]);
  return { type, fields, filter, sampleRate };
}

function drawSubscription(r: Random, name: string, account: string, own: readonly DestinationDraw[], names: readonly string[]): SubscriptionDraw {
  const sources: SourceDraw[] = [];
  for (const type of TRAFFIC_TYPES) if (chance(r, 0.6)) sources.push(drawTrafficSource(r, type, names));
  for (const type of sample(r, AUDIT_TYPES, int(r, 0, 2))) sources.push({ type });
  if (sources.length === 0) sources.push(drawTrafficSource(r, pick(r, TRAFFIC_TYPES), names));
  const destinations = sample(r, own, int(r, 1, Math.min(2, own.length))).map((d) => d.name);
  return { name, account, sources, destinations, enabled: chance(r, 0.85) };
}

export function isTraffic(s: SourceDraw): s is Extract<SourceDraw, { fields: readonly string[] }> {
  return 'fields' in s;
}

export interface PlanOptions {
  /** Cloud kinds join the draw when the AWS emulator is up. */
  readonly cloud: boolean;
  /** datadog (into VictoriaLogs) and azure_logs_ingestion (into the Azure contract receiver) join the draw when their stores are up. */
  readonly vendors?: boolean;
  /** elasticsearch (into OpenSearch), azure_blob (into Azurite) and gcs (into fake-gcs-server) join the draw when their stores are run. */
  readonly stores?: boolean;
}

export function drawPlan(seed: number, scale: Scale, opts: PlanOptions): Plan {
  const r = seededRandom(seed);
  const size = SIZES[scale];
  const customers = Array.from({ length: size.customers }, (_, i) => `c${i}`);
  const accounts = [OPERATOR, ...customers];
  const domains = drawDomains(r, customers);
  const edges = drawEdges(r, customers);
  const names = serverNames(customers);
  const kinds: DestinationKind[] = [
    'kafka',
    'http',
    'file',
    ...(opts.cloud ? (['data_stream'] as const) : []),
    ...(opts.vendors === true ? (['datadog', 'azure_logs_ingestion'] as const) : []),
    ...(opts.stores === true ? (['elasticsearch', 'azure_blob', 'gcs'] as const) : []),
  ];

  const destinations: DestinationDraw[] = [];
  const subscriptions: SubscriptionDraw[] = [];
  for (const account of accounts) {
    const own: DestinationDraw[] = [];
    for (let i = int(r, size.destinations[0], size.destinations[1]); i > 0; i--) {
      const kind = pick(r, kinds);
      const format = chance(r, 0.5) ? 'rfc3339' : pick(r, TIMESTAMP_FORMATS);
      const key = kind === 'kafka' && chance(r, 0.6) ? pick(r, KEY_PATHS) : undefined;
      own.push({ name: `${account}-d${own.length}`, account, kind, format, ...(key !== undefined && { key }) });
    }
    destinations.push(...own);
    for (let i = int(r, size.subscriptions[0], size.subscriptions[1]); i > 0; i--) {
      subscriptions.push(drawSubscription(r, `${account}-s${subscriptions.filter((s) => s.account === account).length}`, account, own, names));
    }
    if (account === OPERATOR) {
      // Every plan delivers something: the operator's first subscription takes every record of one type.
      const first = subscriptions[0] as SubscriptionDraw;
      const type = pick(r, TRAFFIC_TYPES);
      const catchAll: SourceDraw = { type, fields: sample(r, FIELDS[type].map((x) => x.name), 3).sort(), filter: undefined, sampleRate: undefined };
      subscriptions[0] = { ...first, sources: [catchAll, ...first.sources.filter((s) => s.type !== type)], enabled: true };
    }
  }

  const tcpHostports = edges.flatMap((e) => e.hostports).map((hp) => ({ name: hp.slice(0, hp.lastIndexOf(':')), port: Number(hp.slice(hp.lastIndexOf(':') + 1)) }));
  const pools = { serverNames: names, tcpHostports };
  const phases: Phase[] = [];
  let policies = 0;
  const livePolicies: Array<{ ref: string; account: string }> = [];
  for (let p = 0; p < size.phases; p++) {
    // A customer deleted with everything it owns (SECURITY.md "Deleting an account"); nothing later names its resources.
    const before = new Set(phases.flatMap((x) => x.deleteAccounts));
    const deleteAccounts = p === 0 || chance(r, 0.65) ? [] : sample(r, customers.filter((c) => !before.has(c)), 1);
    const deleted = new Set([...before, ...deleteAccounts]);
    const alive = {
      accounts: accounts.filter((a) => !deleted.has(a)),
      subscriptions: subscriptions.filter((x) => !deleted.has(x.account)),
      destinations: destinations.filter((x) => !deleted.has(x.account)),
    };
    for (let i = livePolicies.length - 1; i >= 0; i--) if (deleted.has((livePolicies[i] as { account: string }).account)) livePolicies.splice(i, 1);
    const toggles =
      p === 0 || alive.subscriptions.length === 0
        ? []
        : sample(r, alive.subscriptions, int(r, 1, 2)).map((s) => ({ subscription: s.name, enabled: !enabledBefore(phases, s) }));
    const traffic: TrafficDraw[] = [];
    for (let i = 0; i < size.records; i++) {
      const type = pick(r, TRAFFIC_TYPES);
      traffic.push({ key: `p${p}-r${i}`, record: drawRecord(r, type, pools), form: pick(r, ['json', 'avro', 'confluent'] as const) });
    }
    const malformed: MalformedDraw[] = [];
    for (let i = 0; i < size.malformed; i++) {
      const type = pick(r, TRAFFIC_TYPES);
      const audit = chance(r, 0.2);
      malformed.push({ key: `p${p}-m${i}`, topic: audit ? 'audit' : type, bad: audit ? drawMalformedAudit(r) : drawMalformed(r, drawRecord(r, type, pools)) });
    }
    const actions: AdminAction[] = [];
    for (let i = 0; i < size.actions; i++) {
      const roll = r();
      if (roll < 0.4 || livePolicies.length === 0) {
        const ref = `ipp${policies++}`;
        const account = pick(r, alive.accounts);
        livePolicies.push({ ref, account });
        actions.push({ kind: 'ip_policy_create', account, ref });
      } else if (roll < 0.55) actions.push({ kind: 'ip_policy_update', ref: pick(r, livePolicies).ref });
      else if (roll < 0.7) actions.push({ kind: 'ip_policy_delete', ref: (livePolicies.splice(Math.floor(r() * livePolicies.length), 1)[0] as { ref: string }).ref });
      else if (roll < 0.85) actions.push({ kind: 'destination_update', destination: pick(r, alive.destinations).name });
      else actions.push({ kind: 'api_key_create', account: pick(r, alive.accounts) });
    }
    const reformats = p === 0 ? [] : drawReformats(r, alive.destinations, phases);
    const resources =
      p === 0 || chance(r, 0.5)
        ? []
        : sample(r, alive.subscriptions, 1).map((s) => {
            // New traffic sources; the audit sources stay as they are.
            const traffic = TRAFFIC_TYPES.filter(() => chance(r, 0.7)).map((type) => drawTrafficSource(r, type, names));
            const audit = sourcesBefore(phases, s).filter((x) => !isTraffic(x));
            return { subscription: s.name, sources: [...(traffic.length + audit.length === 0 ? [drawTrafficSource(r, pick(r, TRAFFIC_TYPES), names)] : traffic), ...audit] };
          });
    const gone = new Set(phases.flatMap((x) => x.unreserve));
    const unreserve = p === 0 || chance(r, 0.6) ? [] : sample(r, domains.map((_, i) => i).filter((i) => !gone.has(i) && !deleted.has(domains[i]?.account ?? '')), 1);
    const movable = alive.destinations.filter((d) => (d.kind === 'http' || d.kind === 'file') && !phases.some((x) => x.retargets.includes(d.name)));
    const retargets = p === 0 || movable.length === 0 || chance(r, 0.6) ? [] : [pick(r, movable).name];
    phases.push({ deleteAccounts, toggles, traffic, malformed, actions, reformats, resources, unreserve, retargets });
  }
  // Drawn last, so every other draw of a seed is what it was before reservations had to be verified.
  const verified = domains.map((d) => ({ ...d, verify: pick<Verification>(r, ['at once', 'at once', 'later', 'never']) }));
  return { seed, accounts, domains: verified, edges, destinations, subscriptions, phases };
}

/** At most one destination changes its format. */
function drawReformats(r: Random, destinations: readonly DestinationDraw[], before: readonly Phase[]): Phase['reformats'] {
  if (chance(r, 0.5)) return [];
  if (destinations.length === 0) return [];
  const d = pick(r, destinations);
  const now = formatBefore(before, d);
  return [{ destination: d.name, format: pick(r, TIMESTAMP_FORMATS.filter((f) => f !== now)) }];
}

/** A destination's format when the phases so far have run. */
export function formatBefore(phases: readonly Phase[], d: DestinationDraw): TimestampFormat {
  let format = d.format;
  for (const p of phases) for (const x of p.reformats) if (x.destination === d.name) format = x.format;
  return format;
}

/** A subscription's sources when the phases so far have run. */
export function sourcesBefore(phases: readonly Phase[], s: SubscriptionDraw): readonly SourceDraw[] {
  let sources = s.sources;
  for (const p of phases) for (const x of p.resources) if (x.subscription === s.name) sources = x.sources;
  return sources;
}

/** Whether a subscription is enabled when the phases so far have run. */
export function enabledBefore(phases: readonly Phase[], s: SubscriptionDraw): boolean {
  let enabled = s.enabled;
  for (const p of phases) for (const t of p.toggles) if (t.subscription === s.name) enabled = t.enabled;
  return enabled;
}
