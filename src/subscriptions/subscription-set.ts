// The live subscriptions of this process, compiled from the config log: a matcher per traffic event
// type, a shared projector per (subscription, type), and the subscribers of each audit event type.
// Compile once, run many: the hot path only reads the maps built here. A paused subscription
// (`enabled: false`) is left out of them altogether, and each route carries its sources' sample
// threshold and its destinations' timestamp formats.
//
// A subscription sees its own account's events; the operator account's see every account's and the
// events of nobody (SECURITY.md "Traffic ownership"). In the matchers, a normal account's subscriptions
// are owned by their account, the operator's by nobody, and the traffic owners find each record's account.
import { OPERATOR_ACCOUNT_ID, accountOf } from '../accounts/account.js';
import { TrafficOwners } from '../accounts/traffic-owners.js';
import { Matcher } from '../cel/matcher.js';
import { compile } from '../cel/compile.js';
import type { CompiledFilter } from '../cel/types.js';
import { TRAFFIC_EVENT_TYPES, isAuditEventType, isTrafficEventType, type TrafficEventType } from '../events/catalog.js';
import type { ConfigChange, ConfigLog } from '../configlog/config-log.js';
import type { StoredDestination, StoredSubscription } from '../configlog/resources.js';
import { formatIndex } from '../events/timestamp-format.js';
import { EVENT_HASH_DIGITS, pairDigits } from '../ids.js';
import { projectionKey, projectorFor, type Projector } from '../projection/projector.js';
import { createLogger } from '../telemetry/logger.js';
import { sampleSeed, sampleThreshold } from './sampling.js';

/** What one subscription does with one traffic event type it matched. */
export interface TrafficRoute {
  readonly subscriptionId: string;
  /** The subscription's created_at in ms: it receives records stamped from then on (ARCHITECTURE.md "Subscription start"). */
  readonly createdAtMs: number;
  /** Equal keys mean equal field sets: the projected and serialized event is shared. */
  readonly projectionKey: string;
  readonly project: Projector;
  readonly destinationIds: readonly string[];
  /** The event id digits of each (subscription, destination) pair, 16 per destination in order (ids.ts). */
  readonly idDigits: Uint8Array;
  /** Each destination's timestamp format (formatIndex), in order; undefined when all are rfc3339. */
  readonly formats: Uint8Array | undefined;
  /** The source's sample_rate as a threshold; SAMPLE_ALL (every match) unless it is below 1 (sampling.ts). */
  readonly sampleBelow: number;
  readonly sampleSeed: Uint32Array;
  /**
   * Matches not yet added to the Prometheus counter. The router counts here (a field of an object it
   * already holds) and flushes in batches; a label lookup per match was a hot spot (bench/results/PROFILE.md).
   */
  unflushedMatches: number;
}

export interface AuditRoute {
  readonly subscriptionId: string;
  /** As TrafficRoute.createdAtMs. */
  readonly createdAtMs: number;
  readonly destinationIds: readonly string[];
  /** As TrafficRoute.idDigits. */
  readonly idDigits: Uint8Array;
  /** As TrafficRoute.formats. */
  readonly formats: Uint8Array | undefined;
}

/** A subscription collected by load() for one matcher build. */
interface Pending {
  readonly filter: CompiledFilter | undefined;
  readonly route: TrafficRoute;
  readonly owner: string | undefined;
}

/** The audit subscribers of one event type: the operator's, which take every event, and each account's. */
interface AuditSubscribers {
  readonly all: Map<string, AuditRoute>;
  readonly byAccount: Map<string, Map<string, AuditRoute>>;
}

/** The account whose events alone a subscription may receive; undefined for the operator's, which receive all. */
function ownerOf(sub: StoredSubscription): string | undefined {
  const account = accountOf(sub);
  return account === OPERATOR_ACCOUNT_ID ? undefined : account;
}

const log = createLogger('subscriptions');

/** created_at in ms; the API always writes RFC 3339, and an unreadable value starts the subscription at once. */
function createdAtOf(sub: StoredSubscription): number {
  const ms = Date.parse(sub.created_at);
  if (Number.isFinite(ms)) return ms;
  log.warn({ subscription: sub.id, created_at: sub.created_at }, 'A stored subscription has no readable created_at; it receives every record it matches.');
  return Number.NEGATIVE_INFINITY;
}

function idDigitsOf(sub: StoredSubscription): Uint8Array {
  const out = new Uint8Array(EVENT_HASH_DIGITS * sub.destination_ids.length);
  sub.destination_ids.forEach((d, i) => out.set(pairDigits(sub.id, d), i * EVENT_HASH_DIGITS));
  return out;
}

export class SubscriptionSet {
  /** The matchers hold the routes themselves, so a match needs no lookup by subscription id. */
  private readonly matchers: Map<TrafficEventType, Matcher<TrafficRoute>>;
  private readonly routes = new Map<TrafficEventType, Map<string, TrafficRoute>>(
    TRAFFIC_EVENT_TYPES.map((t) => [t, new Map()]),
  );
  private readonly audit = new Map<string, AuditSubscribers>();
  /** The owner of each subscription put here, so remove() finds its audit routes. */
  private readonly ownerBySubscription = new Map<string, string | undefined>();
  /** Every stored subscription, paused ones too: a destination's new timestamp format rebuilds its routes. */
  private readonly stored = new Map<string, StoredSubscription>();
  /** The timestamp format of each destination whose format is not rfc3339 (formatIndex). */
  private readonly formatOf = new Map<string, number>();
  private unsubscribe: (() => void) | undefined;

  /** `owners` tells whose a traffic record is; follow() makes it follow the config log too. */
  constructor(readonly owners: TrafficOwners = new TrafficOwners()) {
    this.matchers = new Map(TRAFFIC_EVENT_TYPES.map((t) => [t, new Matcher<TrafficRoute>(t, owners.reader(t))]));
  }

  /** Loads every subscription, reserved domain and TCP edge in the config log and follows their changes from now on. */
  follow(configLog: ConfigLog): void {
    this.owners.follow(configLog);
    for (const v of configLog.list('event_destination')) this.setFormat(v.data as unknown as StoredDestination);
    this.load(configLog.list('event_subscription').map((v) => v.data as unknown as StoredSubscription));
    this.unsubscribe = configLog.onChange((change) => this.onChange(change));
  }

  /**
   * Adds many subscriptions with one matcher build per event type. put() updates the matcher's
   * copy-on-write index once per subscription; loading 10,000 that way took seconds and left the
   * heap at its high-water mark of discarded snapshots (bench/results/PROFILE.md).
   */
  load(subs: readonly StoredSubscription[]): void {
    const pending = new Map<TrafficEventType, Map<string, Pending>>(TRAFFIC_EVENT_TYPES.map((t) => [t, new Map()]));
    for (const sub of subs) this.put(sub, pending);
    for (const [t, added] of pending) {
      if (added.size === 0) continue;
      const matcher = this.matcher(t);
      const current = [...this.routes.get(t)?.keys() ?? []].filter((id) => !added.has(id) && matcher.has(id));
      if (current.length === 0) matcher.replaceAll([...added].map(([id, { filter, route, owner }]) => [id, filter, route, owner] as const));
      else for (const [id, { filter, route, owner }] of added) matcher.set(id, filter, route, owner);
    }
  }

  stop(): void {
    this.unsubscribe?.();
    this.owners.stop();
  }

  matcher(eventType: TrafficEventType): Matcher<TrafficRoute> {
    return this.matchers.get(eventType) as Matcher<TrafficRoute>;
  }

  route(eventType: TrafficEventType, subscriptionId: string): TrafficRoute | undefined {
    return this.routes.get(eventType)?.get(subscriptionId);
  }

  /**
   * The subscribers of an audit event of `account` (undefined: an event of nobody's): the operator's, then
   * the account's own.
   */
  auditRoutes(eventType: string, account: string | undefined): AuditRoute[] {
    const subs = this.audit.get(eventType);
    if (subs === undefined) return [];
    const own = account === undefined ? undefined : subs.byAccount.get(account);
    return own === undefined ? [...subs.all.values()] : [...subs.all.values(), ...own.values()];
  }

  /**
   * Notes a destination's timestamp format; true when it changed. Routes copy the formats of their
   * destinations, so the hot path reads them with no lookup.
   */
  setFormat(dest: StoredDestination | undefined, id = dest?.id): boolean {
    if (id === undefined) return false;
    const before = this.formatOf.get(id) ?? 0;
    const after = formatIndex(dest?.timestamp_format);
    if (after === 0) this.formatOf.delete(id);
    else this.formatOf.set(id, after);
    return before !== after;
  }

  private formatsOf(sub: StoredSubscription): Uint8Array | undefined {
    if (this.formatOf.size === 0 || !sub.destination_ids.some((d) => this.formatOf.has(d))) return undefined;
    return Uint8Array.from(sub.destination_ids, (d) => this.formatOf.get(d) ?? 0);
  }

  private onChange(change: ConfigChange): void {
    if (change.kind === 'event_destination') {
      if (!this.setFormat(change.after?.data as unknown as StoredDestination | undefined, change.id)) return;
      for (const sub of [...this.stored.values()]) if (sub.destination_ids.includes(change.id)) this.put(sub);
      return;
    }
    if (change.kind !== 'event_subscription') return;
    this.remove(change.id);
    if (change.after !== undefined) this.put(change.after.data as unknown as StoredSubscription);
  }

  /**
   * Adds or replaces a subscription; a source that no longer compiles is skipped and logged, never
   * thrown. With `pending` (load()), filters are collected there instead of set on the matchers.
   */
  put(sub: StoredSubscription, pending?: Map<TrafficEventType, Map<string, Pending>>): void {
    this.remove(sub.id);
    this.stored.set(sub.id, sub);
    // Paused: no route at all, so its matches cost nothing and are never delivered.
    if (sub.enabled === false) return;
    const idDigits = idDigitsOf(sub);
    const formats = this.formatsOf(sub);
    const seed = sampleSeed(sub.id);
    const createdAtMs = createdAtOf(sub);
    const owner = ownerOf(sub);
    this.ownerBySubscription.set(sub.id, owner);
    for (const source of sub.sources) {
      if (isTrafficEventType(source.type)) {
        let filter: CompiledFilter | undefined;
        if (source.filter !== undefined && source.filter.trim() !== '') {
          const result = compile(source.filter, source.type);
          if (!result.ok) {
            log.error(
              { subscription: sub.id, type: source.type, problems: result.problems },
              'A stored filter does not compile; this source receives no events until it is fixed.',
            );
            continue;
          }
          filter = result.filter;
        }
        const fields = source.fields ?? [];
        const route: TrafficRoute = {
          subscriptionId: sub.id,
          createdAtMs,
          projectionKey: projectionKey(fields),
          project: projectorFor(fields),
          destinationIds: sub.destination_ids,
          idDigits,
          formats,
          sampleBelow: sampleThreshold(source.sample_rate),
          sampleSeed: seed,
          unflushedMatches: 0,
        };
        this.routes.get(source.type)?.set(sub.id, route);
        if (pending === undefined) this.matcher(source.type).set(sub.id, filter, route, owner);
        else pending.get(source.type)?.set(sub.id, { filter, route, owner });
      } else if (isAuditEventType(source.type)) {
        let subs = this.audit.get(source.type);
        if (subs === undefined) this.audit.set(source.type, (subs = { all: new Map(), byAccount: new Map() }));
        let routes = subs.all;
        if (owner !== undefined) {
          routes = subs.byAccount.get(owner) ?? new Map();
          subs.byAccount.set(owner, routes);
        }
        routes.set(sub.id, { subscriptionId: sub.id, createdAtMs, destinationIds: sub.destination_ids, idDigits, formats });
      } else {
        log.warn({ subscription: sub.id, type: source.type }, 'A stored source names an unknown event type and is skipped.');
      }
    }
  }

  remove(id: string): void {
    this.stored.delete(id);
    for (const t of TRAFFIC_EVENT_TYPES) {
      this.matcher(t).delete(id);
      this.routes.get(t)?.delete(id);
    }
    const owner = this.ownerBySubscription.get(id);
    this.ownerBySubscription.delete(id);
    for (const subs of this.audit.values()) {
      if (owner === undefined) {
        subs.all.delete(id);
        continue;
      }
      const routes = subs.byAccount.get(owner);
      if (routes?.delete(id) === true && routes.size === 0) subs.byAccount.delete(owner);
    }
  }
}
