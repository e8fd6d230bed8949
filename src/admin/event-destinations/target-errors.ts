// Shared pieces of target validation: the plain-object test, and a delivery config problem as a
// catalogue error, so the writers' own checks answer in the admin API's error codes.
import type { ConfigProblem } from '../../delivery/destination-config.js';
import { ApiError } from '../errors.js';

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** "target.http.url is not a valid URL." -> invalid_body {field: "target.http.url", reason: "is not a valid URL"}. */
export function fromConfigProblem(p: ConfigProblem): ApiError {
  const reason = (p.message.startsWith(`${p.field} `) ? p.message.slice(p.field.length + 1) : p.message).replace(/\.$/, '');
  if (reason === 'is not a known field') return new ApiError('unknown_field', { field: p.field });
  return new ApiError('invalid_body', { field: p.field, reason });
}
