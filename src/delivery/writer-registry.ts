// Builds a destination's writer from its target through the kind the target names (destinations/kinds.ts);
// it knows no kind by name.
import type { AccountContext } from '../accounts/account.js';
import type { DestinationWriter } from './contract.js';
import type { ConfigProblem } from './destination-config.js';
import type { WriterDeps } from './destination-kind.js';
import { DESTINATION_KIND_NAMES, selectKind } from './destination-target.js';
import type { EgressRules } from './egress-rules.js';
import { DeliveryError } from './errors.js';

/** The kind names this build knows, in the registry's order. */
export const DESTINATION_KINDS: readonly string[] = DESTINATION_KIND_NAMES;

/** A target names exactly one kind: {"<kind>": {…}} (the shape the config log stores). */
export type DestinationTarget = Readonly<Record<string, unknown>>;

/** Every problem with a target whose secrets are in clear, for start-up checks and tests. */
export function validateTarget(target: unknown, account: AccountContext, egress?: EgressRules): readonly ConfigProblem[] {
  const selected = selectKind(target);
  if (!selected.ok) return [selected.problem];
  const { kind } = selected;
  const parsed = kind.parse((target as Record<string, unknown>)[kind.name], `target.${kind.name}`, account, egress);
  return parsed.ok ? [] : parsed.problems;
}

/**
 * Builds the writer for a target (secrets opened) of a destination of `account`; throws a DeliveryError
 * listing every config problem at once.
 */
export function createWriter(target: DestinationTarget, deps: WriterDeps, account: AccountContext): DestinationWriter {
  const selected = selectKind(target);
  if (!selected.ok) {
    const code = selected.problem.code === 'unknown_field' ? 'UNKNOWN_DESTINATION_KIND' : 'INVALID_DESTINATION_CONFIG';
    throw new DeliveryError(code, selected.problem.message);
  }
  const { kind } = selected;
  const parsed = kind.parse(target[kind.name], `target.${kind.name}`, account, deps.egress);
  if (!parsed.ok) throw new DeliveryError('INVALID_DESTINATION_CONFIG', parsed.problems.map((p) => p.message).join(' '));
  return kind.createWriter(parsed.config, deps, account);
}
