// The live subscriptions of this process, compiled from the config log: a matcher per traffic event
// type, a shared projector per (subscription, type), and the subscribers of each audit event type.
// Compile once, run many: the hot path only reads the maps built here.
import { Matcher } from '../cel/matcher.js';
import { compile } from '../cel/compile.js';
import type { CompiledFilter } from '../cel/types.js';
import { TRAFFIC_EVENT_TYPES, isAuditEventType, isTrafficEventType, type TrafficEventType } from '../events/catalog.js';
import type { ConfigChange, ConfigLog } from '../configlog/config-log.js';
import type { StoredSubscription } from '../configlog/resources.js';
import { EVENT_HASH_DIGITS, pairDigits } from '../ids.js';
import { projectionKey, projectorFor, type Projector } from '../projection/projector.js';
import { createLogger } from '../telemetry/logger.js';

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
}

/** A subscription collected by load() for one matcher build. */
interface Pending {
  readonly filter: CompiledFilter | undefined;
  readonly route: TrafficRoute;
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
  private readonly matchers = new Map<TrafficEventType, Matcher<TrafficRoute>>(
    TRAFFIC_EVENT_TYPES.map((t) => [t, new Matcher<TrafficRoute>(t)]),
  );
  private readonly routes = new Map<TrafficEventType, Map<string, TrafficRoute>>(
    TRAFFIC_EVENT_TYPES.map((t) => [t, new Map()]),
  );
  private readonly audit = new Map<string, Map<string, AuditRoute>>();
  private unsubscribe: (() => void) | undefined;

  /** Loads every subscription in the config log and follows its changes from now on. */
  follow(configLog: ConfigLog): void {
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
      if (current.length === 0) matcher.replaceAll([...added].map(([id, { filter, route }]) => [id, filter, route] as const));
      else for (const [id, { filter, route }] of added) matcher.set(id, filter, route);
    }
  }

  stop(): void {
    this.unsubscribe?.();
  }

  matcher(eventType: TrafficEventType): Matcher<TrafficRoute> {
    return this.matchers.get(eventType) as Matcher<TrafficRoute>;
  }

  route(eventType: TrafficEventType, subscriptionId: string): TrafficRoute | undefined {
    return this.routes.get(eventType)?.get(subscriptionId);
  }

  auditRoutes(eventType: string): Iterable<AuditRoute> {
    return this.audit.get(eventType)?.values() ?? [];
  }

  private onChange(change: ConfigChange): void {
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
    const idDigits = idDigitsOf(sub);
    const createdAtMs = createdAtOf(sub);
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
          unflushedMatches: 0,
        };
        this.routes.get(source.type)?.set(sub.id, route);
        if (pending === undefined) this.matcher(source.type).set(sub.id, filter, route);
        else pending.get(source.type)?.set(sub.id, { filter, route });
      } else if (isAuditEventType(source.type)) {
        let subs = this.audit.get(source.type);
        if (subs === undefined) this.audit.set(source.type, (subs = new Map()));
        subs.set(sub.id, { subscriptionId: sub.id, createdAtMs, destinationIds: sub.destination_ids, idDigits });
      } else {
        log.warn({ subscription: sub.id, type: source.type }, 'A stored source names an unknown event type and is skipped.');
      }
    }
  }

  remove(id: string): void {
    for (const t of TRAFFIC_EVENT_TYPES) {
      this.matcher(t).delete(id);
      this.routes.get(t)?.delete(id);
    }
    for (const subs of this.audit.values()) subs.delete(id);
  }
}
