// The independent model: which events each destination must receive, with which ids, fields and
// timestamp formats, computed from the documents alone, never from the service's code:
// - ownership: SECURITY.md "Traffic ownership" and "Audit events";
// - filters: the reference evaluator @bufbuild/cel, run directly;
// - projection: docs/events.md (the selected fields nested by their dotted names, absent is null);
// - sampling: docs/subscription-controls.md "Sampling";
// - timestamp formats: docs/subscription-controls.md "Timestamp format";
// - event ids: ARCHITECTURE.md "Event ids"; subscription start: ARCHITECTURE.md "Subscription start".
import { createHash } from 'node:crypto';
import { CelScalar, celEnv, mapType, parse, plan as planCel } from '@bufbuild/cel';
import { FIELDS, type TimestampFormat } from './catalogue.js';
import { isTraffic, type DestinationDraw, type DomainDraw, type EdgeDraw, type SourceDraw, type SubscriptionDraw } from './plan.js';
import { rfc3339, type ModelRecord, type Value } from './records.js';

// ---- ownership ----

const baseOfWildcard = (d: string): string | undefined => (d.startsWith('*.') ? d.slice(2) : undefined);

/** Whether reservation `a` covers name `b` (a wildcard covers every name below its base, not the base). */
function covers(a: string, b: string): boolean {
  const base = baseOfWildcard(a);
  if (base === undefined) return false;
  const bName = baseOfWildcard(b) ?? b;
  return bName.endsWith(`.${base}`) || (b.startsWith('*.') && bName === base);
}

export function overlaps(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x === y || covers(x, y) || covers(y, x);
}

/** What the API answers for one reservation: whether it is made, and whether the operator's verify succeeds. */
export interface ReservationOutcome {
  readonly made: boolean;
  readonly verified: boolean;
}

/**
 * The reservations' outcomes, made in order, each verified at once or after all are made
 * (SECURITY.md "Traffic ownership"): a reservation, and its verify, is refused when another account's
 * verified one overlaps it (a pending one blocks no one), and an account may not hold one name twice.
 */
export function reservationOutcomes(draws: readonly DomainDraw[]): ReservationOutcome[] {
  const made: boolean[] = [];
  const verified: boolean[] = [];
  const taken = (d: DomainDraw): boolean => draws.some((h, j) => verified[j] === true && h.account !== d.account && overlaps(h.domain, d.domain));
  for (const [i, d] of draws.entries()) {
    const twice = draws.some((h, j) => j < i && made[j] === true && h.account === d.account && h.domain.toLowerCase() === d.domain.toLowerCase());
    made[i] = !twice && !taken(d);
    verified[i] = made[i] === true && d.verify === 'at once' && !taken(d);
  }
  for (const [i, d] of draws.entries()) if (made[i] === true && d.verify === 'later') verified[i] = !taken(d);
  return draws.map((_, i) => ({ made: made[i] === true, verified: verified[i] === true }));
}

/**
 * The TCP edges the API must accept, made after the reservations (`verified` those verified): a hostport
 * belongs to one edge, and a customer's edge lists only names under its own verified reservations (the
 * model reserves no TCP address; SECURITY.md "Traffic ownership").
 */
export function acceptedEdges(draws: readonly EdgeDraw[], verified: readonly DomainDraw[]): boolean[] {
  const held = new Set<string>();
  const ownName = (account: string, hp: string): boolean => {
    const name = hp.slice(0, hp.lastIndexOf(':')).toLowerCase();
    return verified.some((d) => d.account === account && (d.domain.toLowerCase() === name || covers(d.domain.toLowerCase(), name)));
  };
  return draws.map((e) => {
    const refused = e.hostports.some((hp) => held.has(hp.toLowerCase()) || !ownName(e.account, hp));
    if (!refused) for (const hp of e.hostports) held.add(hp.toLowerCase());
    return !refused;
  });
}

export class Owners {
  constructor(
    private readonly domains: readonly DomainDraw[],
    private readonly edges: readonly EdgeDraw[],
  ) {}

  /** The account a record belongs to, or undefined for nobody's. */
  of(rec: ModelRecord): string | undefined {
    const name = String(rec.values.get('conn.server_name')).toLowerCase();
    if (rec.type === 'tcp_connection_closed.v0') {
      const hp = `${name}:${String(rec.values.get('conn.server_port'))}`;
      return this.edges.find((e) => e.hostports.some((h) => h.toLowerCase() === hp))?.account;
    }
    const exact = this.domains.find((d) => d.domain.toLowerCase() === name);
    if (exact !== undefined) return exact.account;
    let best: DomainDraw | undefined;
    for (const d of this.domains) {
      const base = baseOfWildcard(d.domain.toLowerCase());
      if (base !== undefined && name.endsWith(`.${base}`) && (best === undefined || d.domain.length > best.domain.length)) best = d;
    }
    return best?.account;
  }
}

// ---- filters ----

const reference = celEnv({ variables: { ev: mapType(CelScalar.STRING, CelScalar.DYN) } });
type Program = (bindings: { ev: unknown }) => unknown;
const programs = new Map<string, Program>();

/** The filter's verdict by the reference evaluator; an error is no match (docs/events.md). */
export function filterMatches(filter: string | undefined, rec: ModelRecord): boolean {
  if (filter === undefined) return true;
  let program = programs.get(filter);
  if (program === undefined) programs.set(filter, (program = planCel(reference, parse(filter)) as unknown as Program));
  const conn = {
    client_ip: rec.values.get('conn.client_ip'),
    server_ip: rec.values.get('conn.server_ip'),
    server_name: rec.values.get('conn.server_name'),
    // The reference reads integers as bigint; a JS number would be a double to it.
    server_port: BigInt(rec.values.get('conn.server_port') as number),
  };
  return program({ ev: { conn } }) === true;
}

// ---- sampling (docs/subscription-controls.md "Sampling") ----

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** The first 80 bits of a digest as sixteen five-bit digits, most significant first. */
function digits80(bytes: Buffer): number[] {
  let bits = '';
  for (let i = 0; i < 10; i++) bits += (bytes[i] as number).toString(2).padStart(8, '0');
  return Array.from({ length: 16 }, (_, i) => parseInt(bits.slice(5 * i, 5 * i + 5), 2));
}

/** A record's identity digits: SHA-256 of "topic NUL partition NUL offset". */
export function recordIdentity(topic: string, partition: number, offset: string): number[] {
  return digits80(sha256(`${topic}\0${partition}\0${offset}`));
}

function fmix32(x: number): number {
  let h = x >>> 0;
  h = (h ^ (h >>> 16)) >>> 0;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h = (h ^ (h >>> 13)) >>> 0;
  h = Math.imul(h, 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** Whether a sampled source keeps a match of the record. */
export function kept(identity: readonly number[], subscriptionId: string, rate: number | undefined): boolean {
  if (rate === undefined || rate >= 1) return true;
  const seedBytes = sha256(`sample\0${subscriptionId}`);
  const seeds = [seedBytes.readUInt32BE(0), seedBytes.readUInt32BE(4)] as const;
  const word = (at: number): number => identity.slice(at, at + 6).reduce((w, d) => w * 32 + d, 0);
  const h = fmix32((fmix32((word(0) ^ seeds[0]) >>> 0) ^ word(6) ^ seeds[1]) >>> 0);
  return h < Math.floor(rate * 2 ** 32);
}

// ---- event ids (ARCHITECTURE.md "Event ids") ----

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function eventId(timestampMs: number, identity: readonly number[], subscriptionId: string, destinationId: string): string {
  let time = '';
  let ms = Math.max(0, timestampMs);
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[ms % 32] + time;
    ms = Math.floor(ms / 32);
  }
  const pair = digits80(sha256(`${subscriptionId}\0${destinationId}`));
  return `ev_${time}${identity.map((d, i) => CROCKFORD[d ^ (pair[i] as number)]).join('')}`;
}

// ---- projection and timestamp formats ----

/** A timestamp in a destination's format (docs/subscription-controls.md "Timestamp format"). */
export function formatMicros(micros: number, format: TimestampFormat): string | number {
  switch (format) {
    case 'rfc3339':
      return rfc3339(micros);
    case 'unix':
      return micros / 1e6;
    case 'unixmilli':
      return Math.floor(micros / 1000);
    case 'unixnano':
      return (BigInt(micros) * 1000n).toString();
  }
}

/** The selected fields nested by their dotted names, timestamps in the destination's format. */
export function project(rec: ModelRecord, fields: readonly string[], format: TimestampFormat): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of fields) {
    const v: Value | undefined = rec.values.get(name);
    const parts = name.split('.');
    let node = out;
    for (const p of parts.slice(0, -1)) node = (node[p] ??= {}) as Record<string, unknown>;
    const isTime = FIELDS[rec.type].find((x) => x.name === name)?.type === 'timestamp';
    node[parts[parts.length - 1] as string] = v === null || v === undefined ? null : isTime ? formatMicros(v as number, format) : v;
  }
  return out;
}

// ---- what each destination must receive ----

/** An event the model expects; `optional` when the documents allow either outcome (a race they name). */
export interface Expected {
  readonly destination: string;
  readonly eventId: string;
  readonly eventType: string;
  /** event_timestamp: exact for number formats; for rfc3339 the instant in ms. Either of `formats` when a change of format raced the event. */
  readonly timestamp: { readonly formats: readonly TimestampFormat[]; readonly ms: number; readonly asWritten?: string };
  readonly principal: unknown;
  readonly object: unknown;
  readonly optional: boolean;
  /** What it is, for messages: the record's key, the subscription. */
  readonly what: string;
}

/** A subscription as the service runs it: its id, its creation time and whether it is enabled at a moment. */
export interface LiveSubscription {
  readonly draw: SubscriptionDraw;
  readonly id: string;
  readonly createdAtMs: number;
}

export interface LiveDestination {
  readonly draw: DestinationDraw;
  readonly id: string;
}

/** A record as read back from its topic. */
export interface Placed {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly timestampMs: number;
}

export interface AuditRecord extends Placed {
  readonly envelope: { event_type: string; event_timestamp: string; principal: unknown; object: Record<string, unknown> };
}

/** The configuration as the workers run it at one moment: who owns what, and each subscription's and destination's state. */
export interface ConfigView {
  readonly owners: Owners;
  enabled(s: LiveSubscription): boolean;
  sources(s: LiveSubscription): readonly SourceDraw[];
  /** The destination's timestamp formats: two when a change of format raced the event. */
  formats(destination: string): readonly TimestampFormat[];
}

export class Model {
  readonly expected = new Map<string, Expected>();
  private readonly destinations: ReadonlyMap<string, LiveDestination>;

  constructor(
    destinations: readonly LiveDestination[],
    private readonly operator: string,
    private readonly accountIds: ReadonlyMap<string, string>,
  ) {
    this.destinations = new Map(destinations.map((d) => [d.draw.name, d]));
  }

  private add(e: Expected): void {
    const before = this.expected.get(e.eventId);
    // The same id twice would be a collision of the model's own: ids are per (record, subscription, destination).
    if (before !== undefined) throw new Error(`the model derived event id ${e.eventId} twice (${before.what}; ${e.what})`);
    this.expected.set(e.eventId, e);
  }

  /**
   * A traffic record routed while `enabled(subscription)` describes the subscriptions: each enabled
   * subscription of the owner's account or the operator's whose source of the record's type matches.
   */
  traffic(key: string, rec: ModelRecord, at: Placed, live: readonly LiveSubscription[], view: ConfigView): void {
    const owner = view.owners.of(rec);
    const identity = recordIdentity(at.topic, at.partition, at.offset);
    for (const s of live) {
      if (!view.enabled(s) || at.timestampMs < s.createdAtMs) continue;
      if (s.draw.account !== this.operator && s.draw.account !== owner) continue;
      const source = view.sources(s).find((x) => x.type === rec.type);
      if (source === undefined || !isTraffic(source)) continue;
      if (!filterMatches(source.filter, rec) || !kept(identity, s.id, source.sampleRate)) continue;
      for (const name of s.draw.destinations) {
        const d = this.destinations.get(name) as LiveDestination;
        const [format] = view.formats(name) as [TimestampFormat];
        this.add({
          destination: name,
          eventId: eventId(at.timestampMs, identity, s.id, d.id),
          eventType: rec.type,
          timestamp: { formats: [format], ms: at.timestampMs },
          principal: null,
          object: project(rec, source.fields, format),
          optional: false,
          what: `record ${key} for ${s.draw.name}`,
        });
      }
    }
  }

  /**
   * A traffic record in a replay's range of subscription `s` (ARCHITECTURE.md "Replay"): matched by the
   * subscription's sources as `view` has them now, paused or not and whenever it was created, owned as
   * `view` says now, to the replay's destinations in their formats now. An event live delivery already
   * gave carries the same id, and counts once (duplicates by id are allowed); the others must arrive.
   */
  replayed(key: string, rec: ModelRecord, at: Placed, s: LiveSubscription, destinations: readonly string[], view: ConfigView): number {
    const owner = view.owners.of(rec);
    if (s.draw.account !== this.operator && s.draw.account !== owner) return 0;
    const source = view.sources(s).find((x) => x.type === rec.type);
    if (source === undefined || !isTraffic(source)) return 0;
    const identity = recordIdentity(at.topic, at.partition, at.offset);
    if (!filterMatches(source.filter, rec) || !kept(identity, s.id, source.sampleRate)) return 0;
    let n = 0;
    for (const name of destinations) {
      const d = this.destinations.get(name) as LiveDestination;
      const id = eventId(at.timestampMs, identity, s.id, d.id);
      n++;
      if (this.expected.has(id)) continue;
      const [format] = view.formats(name) as [TimestampFormat];
      this.add({
        destination: name,
        eventId: id,
        eventType: rec.type,
        timestamp: { formats: [format], ms: at.timestampMs },
        principal: null,
        object: project(rec, source.fields, format),
        optional: false,
        what: `record ${key} replayed for ${s.draw.name}`,
      });
    }
    return n;
  }

  /**
   * An audit event: to the enabled subscriptions naming its type of its object's account and of the
   * operator's (SECURITY.md "Audit events"). `racing` names subscriptions whose own change raced it.
   */
  audit(rec: AuditRecord, live: readonly LiveSubscription[], view: ConfigView, racing: ReadonlySet<string>): void {
    const identity = recordIdentity(rec.topic, rec.partition, rec.offset);
    const account = rec.envelope.object.account_id;
    for (const s of live) {
      const optional = racing.has(s.id);
      if ((!view.enabled(s) && !optional) || rec.timestampMs < s.createdAtMs) continue;
      if (s.draw.account !== this.operator && this.accountIds.get(s.draw.account) !== account) continue;
      if (!view.sources(s).some((x) => x.type === rec.envelope.event_type)) continue;
      for (const name of s.draw.destinations) {
        const d = this.destinations.get(name) as LiveDestination;
        this.add({
          destination: name,
          eventId: eventId(rec.timestampMs, identity, s.id, d.id),
          eventType: rec.envelope.event_type,
          timestamp: { formats: view.formats(name), ms: rec.timestampMs, asWritten: rec.envelope.event_timestamp },
          principal: rec.envelope.principal,
          object: rec.envelope.object,
          optional,
          what: `audit ${rec.envelope.event_type} of ${String(rec.envelope.object.id)} at ${rec.partition}@${rec.offset} for ${s.draw.name}`,
        });
      }
    }
  }
}
