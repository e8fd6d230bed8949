// API abuse, limits: a filter within the length limit can still be built to exhaust the parser, the
// checker or the evaluator. Each such filter must be refused at create time with a clear 400, and the
// server must stay up for the next request.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MAX_AST_NODES, MAX_EVALUATION_COST, MAX_FILTER_LENGTH, MAX_LIST_ELEMENTS, MAX_NESTING_DEPTH } from '../../../src/cel/limits.js';
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
  [`an evaluation costing more than ${MAX_EVALUATION_COST} steps`, `${list(400)}.exists(x, ${list(400)}.exists(y, x == y && ev.conn.server_port == x))`],
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
