// Validation of an event destination's target: exactly one kind, that kind's fields, and its secrets
// sealed, giving the stored target the destination pool reads (src/configlog/resources.ts).
import type { StoredTarget } from '../../configlog/resources.js';
import { relativePathProblem } from '../../delivery/destinations/file/safe-path.js';
import { validateTarget } from '../../delivery/writer-registry.js';
import { ApiError } from '../errors.js';
import { isCloudKind, parseCloudTarget, storedCreds } from './cloud-target.js';
import { fromConfigProblem, isPlainObject } from './target-errors.js';

/** Every kind a target may name: SPEC.md 6.4's three cloud kinds and this service's own three. */
export const TARGET_KINDS = ['delivery_stream', 'data_stream', 'log_service', 'kafka', 'http', 'file'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

export type TargetResult = { readonly ok: true; readonly target: StoredTarget } | { readonly ok: false; readonly error: ApiError };

export interface ParseTargetOptions {
  /** The stored target before a PATCH: an omitted secret keeps its sealed value when the kind stays. */
  readonly previous?: StoredTarget;
  /** Seals a secret for the config log (SecretBox.seal). */
  readonly seal: (clear: string) => string;
}

/** The kind a stored target names. */
export function kindOfTarget(target: StoredTarget): TargetKind | undefined {
  return TARGET_KINDS.find((k) => target[k] !== undefined && target[k] !== null);
}

export function parseTarget(raw: unknown, opts: ParseTargetOptions): TargetResult {
  const fail = (error: ApiError): TargetResult => ({ ok: false, error });
  const kinds = TARGET_KINDS.join(', ');
  if (!isPlainObject(raw)) return fail(new ApiError('invalid_target_kind', { field: 'target', kinds, reason: 'it is not an object' }));
  // null stands for "not this kind", so a target may list every kind with all but one null.
  const keys = Object.keys(raw).filter((k) => raw[k] !== undefined && raw[k] !== null);
  const unknown = keys.find((k) => !(TARGET_KINDS as readonly string[]).includes(k));
  if (unknown !== undefined) return fail(new ApiError('unknown_field', { field: `target.${unknown}` }));
  if (keys.length !== 1) {
    return fail(new ApiError('invalid_target_kind', { field: 'target', kinds, reason: keys.length === 0 ? 'it sets none' : `it sets ${keys.join(' and ')}` }));
  }
  const kind = keys[0] as TargetKind;
  const previous = opts.previous;

  if (isCloudKind(kind)) {
    const r = parseCloudTarget(kind, raw[kind], storedCreds(previous?.[kind]), opts.seal);
    return r.ok ? { ok: true, target: { [kind]: r.stored } } : r;
  }
  if (!isPlainObject(raw[kind])) return fail(new ApiError('invalid_body', { field: `target.${kind}`, reason: 'must be an object' }));
  // null options mean "the default", which the stored shape writes by leaving them out.
  const body = Object.fromEntries(Object.entries(raw[kind] as Record<string, unknown>).filter(([k, v]) => v !== null || k === 'secret'));

  if (kind === 'file' && typeof body.path === 'string' && body.path !== '') {
    const why = relativePathProblem(body.path);
    if (why !== undefined) return fail(new ApiError('invalid_file_path', { field: 'target.file.path', reason: why.replace(/\.$/, '') }));
  }

  // The http secret: omitted or null keeps the stored one, "" removes it, a string replaces it.
  let checked: Record<string, unknown> = body;
  let keptSecret: string | undefined;
  if (kind === 'http') {
    const { secret, ...rest } = body;
    if (secret !== undefined && secret !== null && typeof secret !== 'string') {
      return fail(new ApiError('invalid_body', { field: 'target.http.secret', reason: 'must be a string' }));
    }
    if (typeof secret !== 'string' || secret === '') {
      checked = rest;
      if (secret !== '' && typeof previous?.http?.secret_enc === 'string') keptSecret = previous.http.secret_enc;
    }
  }
  const first = validateTarget({ [kind]: checked })[0];
  if (first !== undefined) return fail(fromConfigProblem(first));

  if (kind === 'http') {
    const { secret, ...rest } = checked;
    const secretEnc = typeof secret === 'string' ? opts.seal(secret) : keptSecret;
    return { ok: true, target: { http: { ...(rest as { url: string }), ...(secretEnc !== undefined && { secret_enc: secretEnc }) } } };
  }
  if (kind === 'kafka') return { ok: true, target: { kafka: checked as { topic: string } } };
  return { ok: true, target: { file: checked as { path: string } } };
}
