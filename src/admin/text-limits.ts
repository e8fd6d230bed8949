// The limits on description and metadata (src/admin/README.md, "Conventions and decisions"): 255 and
// 4096 bytes, counted as characters on event subscriptions.
import { ApiError } from './errors.js';
import type { BeyondSchemaRule } from './route.js';
import { DESCRIPTION_LIMIT, METADATA_LIMIT } from './schemas.js';

export type LimitUnit = 'bytes' | 'characters';

/** JSON schema counts characters, so a limit in bytes is a rule beyond the schema. */
export const TEXT_BYTES_RULE: BeyondSchemaRule = {
  code: 'field_too_long',
  rule: `description is at most ${DESCRIPTION_LIMIT} and metadata at most ${METADATA_LIMIT} bytes in UTF-8 (maxLength counts characters, which can take up to 4 bytes each)`,
};

/** Characters as a user counts them: code points, so an emoji is one character, not two UTF-16 units. */
function lengthIn(text: string, unit: LimitUnit): number {
  if (unit === 'bytes') return Buffer.byteLength(text, 'utf8');
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Throws field_too_long when a present description or metadata is over its limit in `unit`. */
export function checkTextLimits(body: { description?: unknown; metadata?: unknown }, unit: LimitUnit = 'bytes'): void {
  const fields: [string, unknown, number][] = [
    ['description', body.description, DESCRIPTION_LIMIT],
    ['metadata', body.metadata, METADATA_LIMIT],
  ];
  for (const [field, value, limit] of fields) {
    if (typeof value !== 'string') continue;
    const actual = lengthIn(value, unit);
    if (actual > limit) throw new ApiError('field_too_long', { field, limit, actual, unit });
  }
}
