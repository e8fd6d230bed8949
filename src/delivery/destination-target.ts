// A destination's target names exactly one kind: {"<kind>": {…}}. This module picks the kind and
// hands its object to it, for the admin API (accept, view, schema) and for the writers (writer-registry.ts);
// it knows no kind by name (destinations/kinds.ts lists them).
import type { StoredTarget } from '../configlog/resources.js';
import { isPlainObject, problem, type ConfigProblem } from './destination-config.js';
import type { DestinationKind, JsonSchema, SecretField, ViewDeps } from './destination-kind.js';
import { DESTINATION_KINDS } from './destinations/kinds.js';
import type { EgressRules } from './egress-rules.js';
import { nullable } from './destinations/target-schema.js';

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

/** The JSON schema of `target` in a request (`response` false) or a response: every kind, each nullable. */
export function targetSchema(response: boolean): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    description: 'Exactly one kind is set' + (response ? '; the others are absent.' : '; the others are omitted or null.'),
    properties: Object.fromEntries(DESTINATION_KINDS.map((k) => [k.name, nullable({ ...(response ? k.schema.response : k.schema.request) })])),
  };
}

export type AcceptResult = { readonly ok: true; readonly target: StoredTarget } | { readonly ok: false; readonly problem: ConfigProblem };

export interface AcceptOptions {
  /** The stored target before an update: an omitted secret may keep its sealed value (SecretField). */
  readonly previous?: StoredTarget;
  /** Seals a secret for the config log (SecretBox.seal). */
  readonly seal: (clear: string) => string;
  /** What the target may not point at (egress-rules.ts). */
  readonly egress: EgressRules;
}

/** Checks a kept secret's place in parse() (a kept secret was checked when it was sent). */
const KEPT_STAND_IN = 'kept-secret-stand-in-0000000000';

/**
 * Checks a target an API request sent and gives its stored shape: nulls ("the default") left out and
 * every secret sealed as `<name>_enc`. Answers the first problem, in the order the kind reports them;
 * a required secret that is neither sent nor kept is reported after every other problem.
 */
export function acceptTarget(raw: unknown, opts: AcceptOptions): AcceptResult {
  const selected = selectKind(raw);
  if (!selected.ok) return selected;
  const { kind } = selected;
  const prefix = `target.${kind.name}`;
  const sent = (raw as Record<string, unknown>)[kind.name];
  if (!isPlainObject(sent)) return { ok: false, problem: problem.invalid(prefix, 'must be an object') };
  const body = withoutNulls(sent);
  for (const field of kind.readOnly ?? []) delete body[field];
  const before = opts.previous?.[kind.name];
  const previous = isPlainObject(before) ? before : undefined;
  const kept = new Map<SecretField, string>();
  const missing: SecretField[] = [];
  for (const secret of kind.secrets) {
    const at = locate(body, secret.path);
    if (at === undefined) continue;
    const value = at.parent[at.leaf];
    if (value === '' && secret.removable) delete at.parent[at.leaf];
    if (value !== undefined) continue;
    const sealed = previous !== undefined && keeps(secret, previous, at.parent) ? sealedAt(previous, secret) : undefined;
    if (sealed !== undefined) kept.set(secret, sealed);
    else if (secret.required) missing.push(secret);
    else continue;
    at.parent[at.leaf] = KEPT_STAND_IN;
  }
  const parsed = kind.parse(body, prefix, opts.egress);
  if (!parsed.ok) return { ok: false, problem: parsed.problems[0] as ConfigProblem };
  const absent = missing[0];
  if (absent !== undefined) {
    const field = `${prefix}.${absent.path}`;
    const hadOne = previous !== undefined && sealedAt(previous, absent) !== undefined && absent.keptWhileSame !== undefined;
    return { ok: false, problem: problem.secretRequired(field, hadOne ? `when ${absent.keptWhileSame} changes` : `with ${parentName(absent.path)}`) };
  }
  for (const secret of kind.secrets) {
    const at = locate(body, secret.path);
    const clear = at?.parent[at.leaf];
    if (at === undefined || typeof clear !== 'string') continue;
    delete at.parent[at.leaf];
    at.parent[`${at.leaf}_enc`] = kept.get(secret) ?? opts.seal(clear);
  }
  return { ok: true, target: { [kind.name]: body } };
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
