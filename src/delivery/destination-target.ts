// A destination's target names exactly one kind: {"<kind>": {…}}. This module picks the kind and
// hands its object to it, for the admin API (accept, view, schema) and for the writers (writer-registry.ts);
// it knows no kind by name (destinations/kinds.ts lists them).
import type { AccountContext } from '../accounts/account.js';
import type { StoredTarget } from '../configlog/resources.js';
import { KEPT_STAND_IN, isPlainObject, problem, type ConfigProblem } from './destination-config.js';
import type { DestinationKind, JsonSchema, SecretField, ViewDeps } from './destination-kind.js';
import { DESTINATION_KINDS } from './destinations/kinds.js';
import type { EgressRules } from './egress-rules.js';
import { exactlyOne, named } from './destinations/target-schema.js';

const BY_NAME: ReadonlyMap<string, DestinationKind> = new Map(DESTINATION_KINDS.map((k) => [k.name, k]));

/** The kind names, in the registry's order. */
export const DESTINATION_KIND_NAMES: readonly string[] = DESTINATION_KINDS.map((k) => k.name);

export type SelectedKind = { readonly ok: true; readonly kind: DestinationKind } | { readonly ok: false; readonly problem: ConfigProblem };

/** The one kind a target sets. A kind set to null counts as absent, so a target may list every kind. */
export function selectKind(target: unknown): SelectedKind {
  const kinds = DESTINATION_KIND_NAMES.join(', ');
  if (!isPlainObject(target)) return { ok: false, problem: problem.targetKind('target', kinds, 'it is not an object') };
  const keys = Object.keys(target).filter((k) => target[k] !== undefined && target[k] !== null);
  const unknown = keys.find((k) => !BY_NAME.has(k));
  if (unknown !== undefined) return { ok: false, problem: problem.unknownField(`target.${unknown}`) };
  if (keys.length !== 1) return { ok: false, problem: problem.targetKind('target', kinds, keys.length === 0 ? 'it sets none' : `it sets ${keys.join(' and ')}`) };
  return { ok: true, kind: BY_NAME.get(keys[0] as string) as DestinationKind };
}

/** The kind of a stored target and its object, or undefined for a target naming none this build knows. */
export function storedKind(target: StoredTarget): { kind: DestinationKind; object: Readonly<Record<string, unknown>> } | undefined {
  const selected = selectKind(target);
  if (!selected.ok) return undefined;
  const object = target[selected.kind.name];
  return isPlainObject(object) ? { kind: selected.kind, object } : undefined;
}

/** The target as the API answers it: only the configured kind, known fields only, every secret null. */
export function targetView(target: StoredTarget, deps: ViewDeps): Record<string, unknown> {
  const stored = storedKind(target);
  return stored === undefined ? {} : { [stored.kind.name]: stored.kind.view(stored.object, deps) };
}

/** The rule beyond the target's schema that selectKind() applies. */
export const TARGET_KIND_RULE = { code: 'invalid_target_kind', rule: `target sets exactly one of ${DESTINATION_KIND_NAMES.join(', ')}` } as const;

/**
 * The JSON schema of `target` in a create (DestinationTarget), an update (DestinationTargetUpdate) or a
 * response (DestinationTargetView): one optional property per kind, each the kind's own named schema.
 * That exactly one is set is TARGET_KIND_RULE; in a request the others may be sent as null.
 */
export function targetSchema(use: 'create' | 'update' | 'response'): JsonSchema {
  const own = (k: DestinationKind): JsonSchema => (use === 'response' ? k.schema.response : use === 'create' ? k.schema.request : updateSchema(k.schema.request, k.secrets));
  const kinds = Object.fromEntries(DESTINATION_KINDS.map((k) => [k.name, own(k)]));
  const about = 'Where the events go: one kind of destination.';
  if (use === 'create') return named('DestinationTarget', exactlyOne(kinds, about));
  if (use === 'update') return named('DestinationTargetUpdate', exactlyOne(kinds, about));
  // targetView answers {} for a stored kind this build does not know (written by a newer one).
  return named('DestinationTargetView', { type: 'object', additionalProperties: false, properties: kinds, description: `${about} Exactly one is set, or none for a kind this version of the service does not know.` });
}

/**
 * A kind's request schema as an update takes it: every secret optional and nullable, since leaving one
 * out (or null) keeps the stored value (SecretField). The secret's path runs through `properties` and
 * through the members of a `oneOf` or `anyOf`.
 */
function updateSchema(schema: JsonSchema, secrets: readonly SecretField[]): JsonSchema {
  let out = schema;
  for (const secret of secrets) out = optional(out, secret.path.split('.'));
  return out;
}

function optional(node: JsonSchema, path: readonly string[]): JsonSchema {
  const [head, ...rest] = path;
  if (head === undefined) return node;
  const out: Record<string, unknown> = { ...node };
  // A named part changed for an update is a schema of its own: CredsAuth becomes CredsAuthUpdate.
  if (typeof node.title === 'string' && !node.title.endsWith('Update')) out.title = `${node.title}Update`;
  for (const combinator of ['oneOf', 'anyOf']) {
    const members = node[combinator];
    if (Array.isArray(members)) out[combinator] = members.map((m: JsonSchema) => optional(m, path));
  }
  const properties = node.properties as Readonly<Record<string, JsonSchema>> | undefined;
  const child = properties?.[head];
  if (properties === undefined || child === undefined) return out;
  out.properties = { ...properties, [head]: rest.length === 0 ? nullableType(child) : optional(child, rest) };
  if (rest.length === 0 && Array.isArray(node.required)) {
    const required = (node.required as string[]).filter((r) => r !== head);
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  return out;
}

function nullableType(schema: JsonSchema): JsonSchema {
  const type = schema.type;
  if (typeof type === 'string') return { ...schema, type: [type, 'null'] };
  return Array.isArray(type) && !type.includes('null') ? { ...schema, type: [...(type as string[]), 'null'] } : schema;
}

/** Refused: the first problem, which the API answers, and every one, which it lists (details.problems). */
export type AcceptResult = { readonly ok: true; readonly target: StoredTarget } | { readonly ok: false; readonly problem: ConfigProblem; readonly problems: readonly ConfigProblem[] };

const refused = (problems: readonly ConfigProblem[]): AcceptResult => ({ ok: false, problem: problems[0] as ConfigProblem, problems });

export interface AcceptOptions {
  /** The stored target before an update: an omitted secret may keep its sealed value (SecretField). */
  readonly previous?: StoredTarget;
  /** Seals a secret for the config log (SecretBox.seal). */
  readonly seal: (clear: string) => string;
  /** Opens a sealed secret (SecretBox.open), for a kind's inline secrets an update keeps; absent: none can be kept. */
  readonly open?: (sealed: string) => string | undefined;
  /** The account the destination belongs to, for the kind's parse() (destination-kind.ts). */
  readonly account: AccountContext;
  /** What the target may not point at (egress-rules.ts). */
  readonly egress: EgressRules;
}


/**
 * Checks a target an API request sent and gives its stored shape: nulls ("the default") left out and
 * every secret sealed as `<name>_enc`. Answers every problem, in the order the kind reports them, the
 * first first; a required secret that is neither sent nor kept is reported after every other problem.
 */
export function acceptTarget(raw: unknown, opts: AcceptOptions): AcceptResult {
  const selected = selectKind(raw);
  if (!selected.ok) return refused([selected.problem]);
  const { kind } = selected;
  const prefix = `target.${kind.name}`;
  const sent = (raw as Record<string, unknown>)[kind.name];
  if (!isPlainObject(sent)) return refused([problem.invalid(prefix, 'must be an object')]);
  const body = withoutNulls(sent);
  for (const field of kind.readOnly ?? []) {
    const at = locate(body, field);
    if (at !== undefined) delete at.parent[at.leaf];
  }
  const before = opts.previous?.[kind.name];
  const previous = isPlainObject(before) ? before : undefined;
  const keptSecrets = new Map<SecretField, string>();
  const missing: SecretField[] = [];
  for (const secret of kind.secrets) {
    const at = locate(body, secret.path);
    if (at === undefined) continue;
    const value = at.parent[at.leaf];
    if (value === '' && secret.removable) delete at.parent[at.leaf];
    if (value !== undefined) continue;
    const sealed = previous !== undefined && keeps(secret, previous, at.parent) ? sealedAt(previous, secret) : undefined;
    if (sealed !== undefined) keptSecrets.set(secret, sealed);
    else if (secret.required) missing.push(secret);
    else continue;
    at.parent[at.leaf] = KEPT_STAND_IN;
  }
  const kept = kind.inlineSecrets?.keep(body, previous === undefined ? undefined : openedFields(previous, opts.open));
  if (kept !== undefined) return refused([kept]);
  const parsed = kind.parse(body, prefix, opts.account, opts.egress);
  const absent = missing.map((secret) => {
    const hadOne = previous !== undefined && sealedAt(previous, secret) !== undefined && secret.keptWhileSame !== undefined;
    return problem.secretRequired(`${prefix}.${secret.path}`, hadOne ? `when ${secret.keptWhileSame} changes` : `with ${parentName(secret.path)}`);
  });
  if (!parsed.ok || absent.length > 0) return refused([...(parsed.ok ? [] : parsed.problems), ...absent]);
  for (const secret of kind.secrets) {
    const at = locate(body, secret.path);
    const clear = at?.parent[at.leaf];
    if (at === undefined || typeof clear !== 'string') continue;
    delete at.parent[at.leaf];
    at.parent[`${at.leaf}_enc`] = keptSecrets.get(secret) ?? opts.seal(clear);
  }
  kind.inlineSecrets?.conceal(body, opts.seal);
  return { ok: true, target: { [kind.name]: body } };
}

/** A stored kind object's own fields, its sealed ones (`<name>_enc`) opened under their names when `open` can. */
function openedFields(stored: Readonly<Record<string, unknown>>, open: AcceptOptions['open']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(stored)) {
    if (!k.endsWith('_enc')) out[k] = v;
    else if (typeof v === 'string' && open !== undefined) {
      const clear = open(v);
      if (clear !== undefined) out[k.slice(0, -4)] = clear;
    }
  }
  return out;
}

/** A deep copy without null members: null means "the default" (or "not this one"), which is stored as absent. */
function withoutNulls(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === null) continue;
    out[k] = isPlainObject(v) ? withoutNulls(v) : v;
  }
  return out;
}

/** The object holding a dotted path's last member, when every object on the way is there. */
function locate(root: Record<string, unknown>, path: string): { parent: Record<string, unknown>; leaf: string } | undefined {
  const parts = path.split('.');
  let parent: unknown = root;
  for (const p of parts.slice(0, -1)) parent = isPlainObject(parent) ? parent[p] : undefined;
  return isPlainObject(parent) ? { parent, leaf: parts[parts.length - 1] as string } : undefined;
}

function sealedAt(stored: Record<string, unknown>, secret: SecretField): string | undefined {
  const at = locate(stored, secret.path);
  const sealed = at?.parent[`${at.leaf}_enc`];
  return typeof sealed === 'string' ? sealed : undefined;
}

function keeps(secret: SecretField, stored: Record<string, unknown>, sentParent: Record<string, unknown>): boolean {
  if (secret.keptWhileSame === undefined) return true;
  const storedParent = locate(stored, secret.path)?.parent;
  return storedParent !== undefined && storedParent[secret.keptWhileSame] === sentParent[secret.keptWhileSame];
}

function parentName(path: string): string {
  const parts = path.split('.');
  return parts[parts.length - 2] ?? 'this kind';
}
