// A filter's cost is the work it does, not its steps (issue 38, finding 2): joining and searching
// kilobyte strings costs their characters, so such a filter is refused with its cost, and the
// filters real subscriptions use stay far below the bound.
import { describe, expect, it } from 'vitest';
import { MAX_AST_NODES, MAX_EVALUATION_COST, MAX_FILTER_LENGTH, compileFilter } from '../../../src/cel/compile.js';
import { FILTERABLE, exampleFilter } from '../../../src/events/catalog.js';
import { checkFilterable } from '../../../src/records/filterable.js';
import type { FilterableFields } from '../../../src/records/record-types.js';
import { expensiveFilter } from '../../support/costly-filters.js';

const HTTP = 'http_request_complete.v0';

const problemsOf = (text: string): ReturnType<typeof compileFilter> => compileFilter(text, HTTP);

describe('filter cost', () => {
  it('should refuse the 3,819-character filter of joined and searched strings with its cost and the limit', () => {
    const text = expensiveFilter(3819);
    expect(text).toHaveLength(3819);
    expect(text.length).toBeLessThanOrEqual(MAX_FILTER_LENGTH);
    const r = problemsOf(text);
    if (r.ok) throw new Error(`accepted at cost ${r.filter.cost}`);
    expect(r.problems).toHaveLength(1);
    const [p] = r.problems;
    expect(p).toMatchObject({ code: 'too_costly', limit: MAX_EVALUATION_COST, line: 1, column: 1 });
    // Three searches of a 41-character pattern over at least 1,200 characters each.
    expect(p?.cost).toBeGreaterThan(3 * 1200 * 41);
    expect(p?.message).toContain(String(p?.cost));
  });

  it('should count a string by the most characters its field may hold', () => {
    const short = problemsOf('ev.conn.client_ip.contains("a")');
    const long = problemsOf('ev.conn.server_name.contains("a")');
    if (!short.ok || !long.ok) throw new Error('expected both to compile');
    const maxName = FILTERABLE['conn.server_name']?.maxLength as number;
    const maxIp = FILTERABLE['conn.client_ip']?.maxLength as number;
    expect(maxName).toBeGreaterThan(maxIp);
    expect(long.filter.cost).toBeGreaterThan(maxName);
    expect(long.filter.cost - short.filter.cost).toBe(maxName - maxIp);
  });

  it('should count a comprehension once per element of its range', () => {
    const list = (n: number): string => `[${Array.from({ length: n }, (_, i) => `"${String(i).padStart(3, '0')}"`).join(',')}]`;
    const cost = (n: number): number => {
      const r = problemsOf(`${list(n)}.exists(x, ev.conn.server_name.endsWith(x))`);
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      return r.filter.cost;
    };
    // Per element: the body once, and the element's own literal.
    expect(cost(20) - cost(10)).toBe(cost(30) - cost(20));
    expect(cost(20) - cost(10)).toBeGreaterThan(10 * 4);
  });

  it("should accept the docs', README's and model test's kinds of filters far below the bound", () => {
    const filters = [
      exampleFilter('ev'),
      'ev.conn.server_port == 443 && cidr("10.0.0.0/8").containsIP(ev.conn.client_ip)',
      'ev.conn.server_name.endsWith(".shop.example.com") && ev.conn.client_ip.startsWith("10.")',
      '(ev.conn.server_name.contains("shop") || size(ev.conn.server_name) > 12) && !(ev.conn.server_ip != "198.51.100.1")',
      'ev.conn.server_name.matches("^(api|www|shop)\\\\.example\\\\.(com|net|org)$")',
      `ev.conn.server_name in [${Array.from({ length: 200 }, (_, i) => `"h${i}.example.com"`).join(',')}]`,
      'inCidrRange(ev.conn.client_ip, "10.0.0.0/8") || inCidrRange(ev.conn.client_ip, "192.168.0.0/16")',
      'ev.conn.server_port in [443, 8443] && ev.conn.server_name in ["a.example.com", "b.example.com"]',
    ];
    for (const text of filters) {
      const r = problemsOf(text);
      if (!r.ok) throw new Error(`${text}: ${JSON.stringify(r.problems)}`);
      expect(r.filter.cost, text).toBeLessThan(MAX_EVALUATION_COST / 4);
    }
  });

  it('should measure a filter at the node limit without recursing off the stack', () => {
    const text = Array.from({ length: MAX_AST_NODES / 8 }, (_, i) => `ev.conn.server_port == ${i}`).join(' || ');
    const r = problemsOf(text);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.filter.cost).toBeGreaterThan(0);
  });
});

describe('the field sizes a cost is counted with', () => {
  const fields = (conn: Partial<FilterableFields['conn']>): FilterableFields =>
    ({ conn: { server_name: 'api.example.com', server_ip: '198.51.100.1', client_ip: '203.0.113.7', server_port: 443, ...conn } }) as FilterableFields;

  it('should refuse a record whose filterable string is longer than the catalogue allows, before any filter sees it', () => {
    const max = FILTERABLE['conn.server_name']?.maxLength as number;
    expect(() => checkFilterable(fields({ server_name: 'a'.repeat(max) }))).not.toThrow();
    expect(() => checkFilterable(fields({ server_name: 'a'.repeat(max + 1) }))).toThrow(/conn.server_name is longer than 253 characters/);
    expect(() => checkFilterable(fields({ client_ip: '1'.repeat(46) }))).toThrow(/conn.client_ip is longer than 45 characters/);
  });
});
