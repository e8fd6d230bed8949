// The destination kinds this build knows, keyed by the target key: this service's own three and SPEC.md 6.4's cloud three.
import type { DestinationWriter } from './contract.js';
import type { ConfigProblem } from './destination-config.js';
import type { DestinationKind, WriterDeps } from './destination-kind.js';
import { dataStreamDestination } from './destinations/cloud/data-stream-writer.js';
import { deliveryStreamDestination } from './destinations/cloud/delivery-stream-writer.js';
import { logServiceDestination } from './destinations/cloud/log-service-writer.js';
import { fileDestination } from './destinations/file/file-writer.js';
import { httpDestination } from './destinations/http/http-writer.js';
import { kafkaDestination } from './destinations/kafka/kafka-writer.js';
import { DeliveryError } from './errors.js';

const ALL = [kafkaDestination, httpDestination, fileDestination, deliveryStreamDestination, dataStreamDestination, logServiceDestination];
const KINDS: ReadonlyMap<string, DestinationKind<unknown>> = new Map(ALL.map((k) => [k.kind, k as DestinationKind<unknown>]));

export const DESTINATION_KINDS: readonly string[] = [...KINDS.keys()];

/** A target names exactly one kind: {"http": {"url": …}} (the shape the config log stores). */
export type DestinationTarget = Readonly<Record<string, unknown>>;

function kindOf(target: unknown): { kind?: DestinationKind<unknown>; key?: string; problems: ConfigProblem[] } {
  if (target === null || typeof target !== 'object' || Array.isArray(target)) {
    return { problems: [{ field: 'target', message: 'target must be an object naming one destination kind.' }] };
  }
  const keys = Object.keys(target).filter((k) => (target as Record<string, unknown>)[k] !== undefined);
  if (keys.length !== 1) {
    return { problems: [{ field: 'target', message: `target must set exactly one of ${DESTINATION_KINDS.join(', ')}.` }] };
  }
  const key = keys[0] as string;
  const kind = KINDS.get(key);
  if (kind === undefined) {
    return { key, problems: [{ field: `target.${key}`, message: `${key} is not a destination kind; known kinds: ${DESTINATION_KINDS.join(', ')}.` }] };
  }
  return { kind, key, problems: [] };
}

/** Every problem with a target, for the admin API's 400 and for start-up validation. */
export function validateTarget(target: unknown): readonly ConfigProblem[] {
  const { kind, key, problems } = kindOf(target);
  if (kind === undefined || key === undefined) return problems;
  const parsed = kind.parse((target as Record<string, unknown>)[key], `target.${key}`);
  return parsed.ok ? [] : parsed.problems;
}

/** Builds the writer for a target; throws a DeliveryError listing every config problem at once. */
export function createWriter(target: DestinationTarget, deps: WriterDeps): DestinationWriter {
  const { kind, key, problems } = kindOf(target);
  if (kind === undefined || key === undefined) {
    const code = key === undefined ? 'INVALID_DESTINATION_CONFIG' : 'UNKNOWN_DESTINATION_KIND';
    throw new DeliveryError(code, problems.map((p) => p.message).join(' '));
  }
  const parsed = kind.parse(target[key], `target.${key}`);
  if (!parsed.ok) throw new DeliveryError('INVALID_DESTINATION_CONFIG', parsed.problems.map((p) => p.message).join(' '));
  return kind.create(parsed.config, deps);
}
