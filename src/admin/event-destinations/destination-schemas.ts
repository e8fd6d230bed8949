// JSON schemas of /event_destinations: request bodies (validated before the handler; the target's own
// rules are its kind's, checked in destination-routes.ts) and the response. Each kind brings the schema
// of its object (src/delivery/destinations/<kind>/).
import { targetSchema } from '../../delivery/destination-target.js';
import { obj } from '../../delivery/destinations/target-schema.js';
import { RESOURCE_FIELDS, descriptionField, metadataField, resourceProperties } from '../schemas.js';

type Schema = Record<string, unknown>;

const formatField: Schema = {
  type: 'string',
  pattern: '^[jJ][sS][oO][nN]$',
  description: 'Output format of serialized events. Only json, in any letter case; answered as "json". Default json.',
};

export const destinationCreateBody: Schema = obj(
  { description: descriptionField, metadata: metadataField, format: formatField, target: targetSchema(false) },
  ['target'],
);

export const destinationUpdateBody: Schema = obj({
  description: descriptionField,
  metadata: metadataField,
  format: formatField,
  target: { ...targetSchema(false), description: 'Replaces the whole target. Secrets omitted here keep their stored values when the kind (and, for creds, the key id) stays the same.' },
});

export const destinationSchema: Schema = obj(
  {
    ...resourceProperties,
    format: { type: 'string', enum: ['json'] },
    target: targetSchema(true),
  },
  [...RESOURCE_FIELDS, 'format', 'target'],
);
