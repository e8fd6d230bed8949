// JSON schemas of /event_destinations: request bodies (validated before the handler; the target's own
// rules are its kind's, checked in destination-routes.ts) and the response. Each kind brings the schema
// of its object (src/delivery/destinations/<kind>/).
import { targetSchema } from '../../delivery/destination-target.js';
import { obj } from '../../delivery/destinations/target-schema.js';
import { RESOURCE_FIELDS, descriptionField, metadataField, resourceProperties } from '../schemas.js';
import { destinationStatusSchema } from './destination-status.js';

type Schema = Record<string, unknown>;

const formatField: Schema = {
  type: 'string',
  pattern: '^[jJ][sS][oO][nN]$',
  description: 'Output format of serialized events. Only json, in any letter case; answered as "json". Default json.',
};

const verifyField: Schema = {
  type: 'boolean',
  description:
    'false stores the target without checking it (no topic is created, no cloud call is made); its status then shows the first real error. Default true: a kafka topic is created when missing, a cloud target is described with its own auth, and a failure is a 422. Not stored.',
};

export const destinationCreateBody: Schema = obj(
  { description: descriptionField, metadata: metadataField, format: formatField, target: targetSchema(false), verify: verifyField },
  ['target'],
);

export const destinationUpdateBody: Schema = obj({
  description: descriptionField,
  metadata: metadataField,
  format: formatField,
  target: { ...targetSchema(false), description: 'Replaces the whole target. Secrets omitted here keep their stored values when the kind (and, for creds, the key id) stays the same.' },
  verify: { ...verifyField, description: `With a target: ${verifyField.description as string}` },
});

export const destinationSchema: Schema = obj(
  {
    ...resourceProperties,
    format: { type: 'string', enum: ['json'] },
    target: targetSchema(true),
    status: destinationStatusSchema,
  },
  [...RESOURCE_FIELDS, 'format', 'target', 'status'],
);
