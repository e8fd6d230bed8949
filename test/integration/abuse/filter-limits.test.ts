// API abuse, limits: a filter within the length limit can still be built to exhaust the parser, the
// checker or the evaluator. Each such filter must be refused at create time with a clear 400, and the
// server must stay up for the next request. One that may do too much work on a record (joined and
// searched kilobyte strings, issue 38) is refused with its cost, wherever a filter is given.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_AST_NODES, MAX_EVALUATION_COST, MAX_FILTER_LENGTH, MAX_LIST_ELEMENTS, MAX_NESTING_DEPTH } from '../../../src/cel/limits.js';
import { expensiveFilter } from '../../support/costly-filters.js';
import { startAdmin, type AdminHarness } from '../admin/admin-harness.js';

const TCP = 'tcp_connection_closed.v0';
let h: AdminHarness;
let destinationId: string;

beforeAll(async () => {
  h = await startAdmin();
  const d = await h.call('POST', '/event_destinations', { body: { target: { file: { path: 'abuse.ndjson' } } } });
  expect(d.status, d.text).toBe(201);
  destinationId = d.json.id;
});

afterAll(async () => {
  await h?.stop();
});

const list = (n: number): string => `[${Array.from({ length: n }, (_, i) => i).join(',')}]`;

const HOSTILE: ReadonlyArray<[string, string]> = [
  [`brackets nested deeper than ${MAX_NESTING_DEPTH}`, `${'('.repeat(MAX_NESTING_DEPTH + 8)}ev.conn.server_port == 1${')'.repeat(MAX_NESTING_DEPTH + 8)}`],
  [`a list literal of more than ${MAX_LIST_ELEMENTS} elements`, `ev.conn.server_port in ${list(MAX_LIST_ELEMENTS + 88)}`],
  // Three lists each within the element limit, one node per element: more nodes than the limit in 2.5 KB.
  [`more than ${MAX_AST_NODES} syntax nodes`, Array.from({ length: 3 }, () => `ev.conn.server_port in [${Array(400).fill(1).join(',')}]`).join(' || ')],
];

for (const [what, filter] of HOSTILE) {
  it(`a filter with ${what} should be refused with 400 invalid_filter (too_large) and leave the server answering`, async () => {
    expect(filter.length).toBeLessThanOrEqual(MAX_FILTER_LENGTH);
    const r = await h.call('POST', '/event_subscriptions', {
      body: { sources: [{ type: TCP, fields: ['conn.bytes_in'], filter }], destination_ids: [destinationId] },
    });
    expect(r.status, r.text).toBe(400);
    expect(r.json, r.text).toMatchObject({ error_code: 'invalid_filter', details: { field: 'sources[0].filter', filter_code: 'too_large' } });
    expect(r.json.msg.length, r.text).toBeLessThan(1_000);
    expect((await h.call('GET', '/event_subscriptions')).status).toBe(200);
  });
}

const COSTLY = expensiveFilter(3819);
const costly = (r: { status: number; json: { error_code?: string; details?: { cost?: number; limit?: number } } }, field: string): void => {
  expect([r.status, r.json.error_code]).toEqual([400, 'filter_too_costly']);
  expect(r.json.details).toMatchObject({ field, limit: MAX_EVALUATION_COST });
  expect(r.json.details?.cost).toBeGreaterThan(MAX_EVALUATION_COST);
};

it('a filter that may do more work on a record than the limit should be refused with its cost at create, at a source change and by the playground tap', async () => {
  const created = await h.call('POST', '/event_subscriptions', { body: { sources: [{ type: TCP, fields: ['conn.bytes_in'], filter: COSTLY }], destination_ids: [destinationId] } });
  costly(created, 'sources[0].filter');
  expect(created.json.msg).toContain(String(created.json.details.cost));

  const sub = await h.call('POST', '/event_subscriptions', { body: { sources: [{ type: TCP, fields: ['conn.bytes_in'], filter: 'ev.conn.server_port == 22' }], destination_ids: [destinationId] } });
  expect(sub.status, sub.text).toBe(201);
  costly(await h.call('PATCH', `/event_subscriptions/${sub.json.id}/sources/${TCP}`, { body: { filter: COSTLY } }), 'filter');
  costly(await h.call('PATCH', `/event_subscriptions/${sub.json.id}`, { body: { sources: [{ type: TCP, fields: ['conn.bytes_in'], filter: COSTLY }] } }), 'sources[0].filter');
  // The playground tap: a source not saved, checked as at create, never streamed.
  costly(await h.call('POST', '/tap?seconds=1', { body: { type: TCP, fields: ['conn.bytes_in'], filter: COSTLY } }), 'filter');
  // Nothing changed.
  const kept = await h.call('GET', `/event_subscriptions/${sub.json.id}/sources/${TCP}`);
  expect(kept.json.filter).toBe('ev.conn.server_port == 22');
});
