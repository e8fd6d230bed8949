// The event destination's fields (resource-fields.ts): request bodies and the response. `target` is
// exactly one kind, each kind bringing the schema of its object (src/delivery/destinations/<kind>/); its
// rules beyond the schema are the kinds' own.
import { TARGET_KIND_RULE, targetSchema } from '../../delivery/destination-target.js';
import { DESTINATION_KINDS } from '../../delivery/destinations/kinds.js';
import { baseFields, resourceSchemas, type Fields } from '../resource-fields.js';
import type { BeyondSchemaRule } from '../route.js';
import { DEFAULT_TIMESTAMP_FORMAT, TIMESTAMP_FORMATS } from '../../events/timestamp-format.js';
import { named, withError, type Schema } from '../schemas.js';
import { destinationStatusSchema } from './destination-status.js';

const format = withError(
  {
    type: 'string',
    pattern: '^[jJ][sS][oO][nN]$',
    description: 'Output format of serialized events. Only json, in any letter case; answered as "json". Default json.',
    examples: ['json'],
  },
  'invalid_body',
  { reason: 'must be json' },
);

const timestampFormat: Schema = {
  type: 'string',
  enum: [...TIMESTAMP_FORMATS],
  description:
    'How event_timestamp and the timestamp fields of a traffic event\'s object (conn.start_ts, conn.end_ts) are written: rfc3339 (text, as the API writes times); unix (seconds, a JSON number with up to six fraction digits); unixmilli (whole milliseconds, a JSON number); unixnano (nanoseconds, a JSON string of digits, beyond JSON\'s safe integers). An audit event\'s object is the resource as the API answers it and keeps its RFC 3339 times. Default rfc3339.',
  examples: ['unix'],
};

const verify = {
  type: 'boolean',
  description:
    'false stores the target without checking it: the API creates no topic and makes no cloud call before it answers. The workers then connect to it (open the file, reach the cluster, assume the role), and its status shows the first error within seconds. Default true: a kafka topic is created when missing, a cloud target is described with its own auth, and a failure is a 422. Not stored.',
};

export const DESTINATION_FIELDS = {
  ...baseFields('event_destination'),
  format: { request: format, response: { type: 'string', enum: ['json'] } },
  timestamp_format: { request: timestampFormat, response: { type: 'string', enum: [...TIMESTAMP_FORMATS], default: DEFAULT_TIMESTAMP_FORMAT } },
  target: {
    request: targetSchema('create'),
    update: {
      ...targetSchema('update'),
      description: 'Replaces the whole target. Secrets left out (or null) keep their stored values when the kind (and, for creds, the key id) stays the same.',
    },
    response: targetSchema('response'),
    required: true,
  },
  verify: { request: verify, update: { ...verify, description: `With a target: ${verify.description}` } },
  // The workers' report, not config: in answers, never in audit events.
  status: { response: named('DestinationStatus', destinationStatusSchema) },
} satisfies Fields;

export const DESTINATION_SCHEMAS = resourceSchemas(DESTINATION_FIELDS);

/** The kinds' rules beyond their schemas, for a create or an update. */
export function targetRules(use: 'create' | 'update'): readonly BeyondSchemaRule[] {
  const kinds = DESTINATION_KINDS.flatMap((k) => k.rules ?? []).filter((r) => use === 'update' || r.updateOnly !== true);
  return [TARGET_KIND_RULE, ...kinds].map(({ code, rule }) => ({ code, rule }));
}
