// Builds a destination's writer from its stored target, secrets opened. A destination whose writer cannot
// be built (a secret sealed with another SECRET_KEY, a config the writer rejects) still gets one: a
// writer failing every write and health check with the reason, so its events are parked, not dropped.
import type { AccountContext } from '../accounts/account.js';
import type { StoredTarget } from '../configlog/resources.js';
import type { SecretBox } from '../secrets/secret-box.js';
import type { DeliveryItem, DestinationWriter, WriteOutcome, WriterLimits } from './contract.js';
import type { WriterDeps } from './destination-kind.js';
import { DeliveryError } from './errors.js';
import { createWriter } from './writer-registry.js';
import { URL_SECRETS_FIELD, readSecrets } from './destinations/http/url-secrets.js';

/** Stored secret fields end in `_enc`; writers get them opened, under the name without the suffix. */
export function openSecrets(value: unknown, secrets: SecretBox, path = 'target'): unknown {
  if (Array.isArray(value)) return value.map((v, i) => openSecrets(v, secrets, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k.endsWith('_enc') && typeof v === 'string') {
      const name = k.slice(0, -4);
      const clear = secrets.open(v);
      if (clear === undefined) throw new Error(`the secret ${path}.${name} cannot be opened with this service's SECRET_KEY (it was sealed with another key); set it again`);
      out[name] = clear;
    } else {
      out[k] = openSecrets(v, secrets, `${path}.${k}`);
    }
  }
  return out;
}

/**
 * The destination's secrets in clear (its `*_enc` fields opened), each as a message could quote it, which
 * its messages must never do (status/redact.ts). A sealed URL's secrets are one JSON text: its password and
 * each query value count apart, as written in the URL (percent-encoded) and decoded.
 */
export function destinationSecrets(value: unknown, secrets: SecretBox): string[] {
  if (value === null || typeof value !== 'object') return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    if (k.endsWith('_enc') && typeof v === 'string') {
      const clear = secrets.open(v);
      if (clear === undefined) continue;
      out.push(clear);
      const url = k === URL_SECRETS_FIELD ? readSecrets(clear) : undefined;
      if (url !== undefined) for (const part of [...(url.password === undefined ? [] : [url.password]), ...url.query]) out.push(part, ...decoded(part));
    } else {
      out.push(...destinationSecrets(v, secrets));
    }
  }
  return out;
}

/** A URL part decoded, when that differs from the part (a `%` that does not decode gives nothing). */
function decoded(part: string): string[] {
  try {
    const text = decodeURIComponent(part.replaceAll('+', ' '));
    const plain = decodeURIComponent(part);
    return [...new Set([text, plain])].filter((t) => t !== part);
  } catch {
    return [];
  }
}

/**
 * Takes anything within the largest limits of any writer: what it is given is parked (or, over the
 * retry topic's limit, dead-lettered), never written, so the real writer's limits do not apply.
 */
const MISCONFIGURED_LIMITS: WriterLimits = Object.freeze({
  maxRecords: 1000,
  maxBytes: 8 * 1024 * 1024,
  maxRecordBytes: 8 * 1024 * 1024,
  recordOverheadBytes: 0,
});

/** The writer of a destination that cannot run: every write and health check fails with `problem`. */
export class MisconfiguredWriter implements DestinationWriter {
  readonly limits = MISCONFIGURED_LIMITS;

  constructor(
    readonly kind: string,
    readonly problem: DeliveryError,
  ) {}

  async connect(): Promise<void> {}

  async write(_batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    throw this.problem;
  }

  async healthcheck(): Promise<void> {
    throw this.problem;
  }

  async close(): Promise<void> {}
}

export interface BuiltWriter {
  readonly writer: DestinationWriter;
  /** Why the real writer could not be built (DESTINATION_MISCONFIGURED); undefined when it was. */
  readonly problem?: DeliveryError;
}

/** Never throws: a target (of a destination of `account`) that cannot run gets a MisconfiguredWriter carrying the reason. */
export function buildWriter(target: StoredTarget, secrets: SecretBox, deps: WriterDeps, account: AccountContext): BuiltWriter {
  try {
    return { writer: createWriter(openSecrets(target, secrets) as Record<string, unknown>, deps, account) };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const problem = new DeliveryError('DESTINATION_MISCONFIGURED', `The destination cannot run as configured: ${reason}`, { cause: err });
    const kind = Object.keys(target).find((k) => (target as Record<string, unknown>)[k] != null) ?? 'unknown';
    return { writer: new MisconfiguredWriter(kind, problem), problem };
  }
}
