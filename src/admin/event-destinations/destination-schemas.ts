// JSON schemas of /event_destinations: request bodies (validated before the handler; target's "exactly
// one kind" and auth's "exactly one of role or creds" are checked in target-input.ts) and the response.
import { RESOURCE_FIELDS, descriptionField, metadataField, resourceProperties } from '../schemas.js';
import { CLOUD_OPTIONS, RESOURCE_ARNS, ROLE_ARN, type CloudKind } from './cloud-target.js';

type Schema = Record<string, unknown>;

const str = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
const nullable = (schema: Schema): Schema => ({ ...schema, type: [schema.type as string, 'null'] });
const obj = (properties: Record<string, Schema>, required: readonly string[] = [], description?: string): Schema => ({
  type: 'object',
  additionalProperties: false,
  // OpenAPI 3.0 (JSON Schema draft 4) wants a non-empty required list, or none.
  ...(required.length > 0 && { required: [...required] }),
  properties,
  ...(description !== undefined && { description }),
});

// Secrets in responses are typed string-or-null, not 'null': the view always sends null, and the OpenAPI
// 3.0 conversion of a bare null type (an object enum of [null]) trips up common validators.
const WRITE_ONLY = 'Write-only: sent on create or update, answered as null. Omitted (or null) on update keeps the stored value.';

function authSchema(response: boolean): Schema {
  const secret = response
    ? { type: ['string', 'null'], description: 'Secret portion of a cloud access key. Write-only: always null here.' }
    : nullable(str(`Secret portion of a cloud access key. ${WRITE_ONLY}`, { maxLength: 1024 }));
  return obj(
    {
      role: nullable(obj({ role_arn: str(`Cloud resource name of the role used to deliver, e.g. ${ROLE_ARN.example}.`) }, ['role_arn'])),
      creds: nullable(
        obj(
          { cloud_access_key_id: str('ID portion of a cloud access key (16 to 128 letters, digits or underscores).'), cloud_secret_access_key: secret },
          response ? ['cloud_access_key_id', 'cloud_secret_access_key'] : ['cloud_access_key_id'],
        ),
      ),
    },
    [],
    'Exactly one of role or creds.',
  );
}

const CLOUD_OPTION_SCHEMAS: Readonly<Record<string, Schema>> = {
  endpoint: nullable(str('This service\'s addition: the service endpoint to call instead of the region\'s public one (a private endpoint or an emulator); null means the public one.')),
  partition_key: nullable(str('This service\'s addition: a dotted envelope path whose value is the partition key, e.g. object.conn.client_ip; null means the event id.')),
};

function cloudSchema(kind: CloudKind, description: string, response: boolean): Schema {
  const { field, example } = RESOURCE_ARNS[kind];
  const options = Object.fromEntries(CLOUD_OPTIONS[kind].map((k) => [k, CLOUD_OPTION_SCHEMAS[k] as Schema]));
  const required = response ? ['auth', field, ...CLOUD_OPTIONS[kind]] : ['auth', field];
  return nullable(obj({ auth: authSchema(response), [field]: str(`Cloud resource name, e.g. ${example}.`), ...options }, required, description));
}

function targetSchema(response: boolean): Schema {
  const httpSecret = response
    ? { type: ['string', 'null'], description: 'HMAC-SHA256 signing secret. Write-only: always null here.' }
    : nullable(str(`HMAC-SHA256 key for the x-edge-signature header, 16 to 1024 characters. ${WRITE_ONLY} "" removes it.`, { maxLength: 1024 }));
  const kafka = obj(
    {
      topic: str('Topic to write to.'),
      brokers: response
        ? nullable({ type: 'array', items: { type: 'string' }, description: 'Bootstrap brokers; null means the service\'s own cluster.' })
        : nullable({ type: 'array', items: str('host:port'), description: 'Bootstrap brokers of another cluster; omit to use the service\'s own cluster.' }),
      key: response ? nullable(str('Envelope path used as message key; null means the event id.')) : nullable(str('Dotted envelope path for the message key, e.g. object.conn.client_ip; the default is the event id.')),
    },
    response ? ['topic', 'brokers', 'key'] : ['topic'],
    'A Kafka topic.',
  );
  const http = obj(
    {
      url: str('http or https URL that receives batches of events (POST, application/x-ndjson).'),
      secret: httpSecret,
      timeout_ms: nullable({ type: 'integer', ...(response ? {} : { minimum: 100, maximum: 300_000 }), description: 'Request timeout; null means the default (10 s).' }),
    },
    response ? ['url', 'secret', 'timeout_ms'] : ['url'],
    'An HTTP endpoint.',
  );
  const file = obj({ path: str('Path of the file, relative to the service\'s file destination root; it cannot leave the root.') }, ['path'], 'A newline-delimited JSON file.');
  return {
    type: 'object',
    additionalProperties: false,
    description: 'Exactly one kind is set' + (response ? '; the others are absent.' : '; the others are omitted or null.'),
    properties: {
      delivery_stream: cloudSchema('delivery_stream', 'A cloud delivery stream (Firehose PutRecordBatch).', response),
      data_stream: cloudSchema('data_stream', 'A cloud data stream (Kinesis PutRecords).', response),
      log_service: cloudSchema('log_service', 'A cloud log group (CloudWatch Logs PutLogEvents).', response),
      kafka: nullable(kafka),
      http: nullable(http),
      file: nullable(file),
    },
  };
}

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
