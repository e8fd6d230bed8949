// POST /event_destinations/{id}/test_event: delivers one test envelope (event_type test_event.v0) straight
// through the destination's writer and answers whether it arrived, with the destination's error if not.
import type { FastifyInstance } from 'fastify';
import { accountOf } from '../../accounts/account.js';
import type { StoredDestination } from '../../configlog/resources.js';
import { accountOfRequest, principalOf, type AdminContext } from '../context.js';
import { ApiError } from '../errors.js';
import { partsOf, route } from '../route.js';
import { idParams } from '../schemas.js';

const resultSchema = {
  title: 'TestEventResult',
  type: 'object',
  additionalProperties: false,
  required: ['delivered', 'event_id', 'status_code', 'duration_ms'],
  description:
    'The outcome of one delivery attempt, never retried, in the service\'s own words: nothing the destination sent back (an answer\'s body) is repeated. ' +
    'error.code is a delivery error code, e.g. DESTINATION_NOT_FOUND, DESTINATION_REDIRECTED or DESTINATION_ADDRESS_REFUSED; error.message says what happened.',
  properties: {
    delivered: { type: 'boolean', description: 'True when the destination acknowledged the test event.' },
    event_id: { type: 'string', description: "The test envelope's event_id." },
    status_code: { type: ['integer', 'null'], description: "The destination's answer code: the HTTP status of an http destination; null for other kinds, or when no answer came." },
    duration_ms: { type: 'integer', minimum: 0, description: 'How long the attempt took, from the connect to the answer, in milliseconds.' },
    error: {
      title: 'TestEventError',
      type: 'object',
      additionalProperties: false,
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
  },
};

export function registerTestEventRoute(app: FastifyInstance, ctx: AdminContext): void {
  const spec = {
    operationId: 'sendTestEvent',
    tags: ['Event destinations'],
    summary: 'Deliver one test event (event_type test_event.v0) to the destination and report the outcome.',
    params: idParams('event_destination', 'event destination'),
    ok: [200, resultSchema],
    errors: [404, 503],
  } as const;
  route(app, 'POST', '/event_destinations/:id/test_event', spec, async (req) => {
    const { id } = partsOf(req).params;
    const d = ctx.store.get<StoredDestination>('event_destination', id);
    // Another account's destination is not found either (src/admin/README.md "Accounts").
    if (d === undefined || accountOf(d) !== accountOfRequest(req).accountId) throw new ApiError('not_found', { resource: 'event destination', id });
    if (ctx.testEvent === undefined) throw new ApiError('unavailable', { reason: 'test events are not wired in this process' });
    return ctx.testEvent(d, principalOf(req), ctx.uri(`/event_destinations/${d.id}`));
  });
}
