// compile(): every kind of problem, with its 1-based line and column, and all problems reported at once.
import { describe, expect, it } from 'vitest';
import { MAX_FILTER_LENGTH, compile } from '../../../src/cel/compile.js';
import type { FilterProblem } from '../../../src/cel/types.js';

const TCP = 'tcp_connection_closed.v0';
const HTTP = 'http_request_complete.v0';

/** The 1-based line and column of the n-th occurrence of `needle` in `text`, found independently of the compiler. */
function at(text: string, needle: string, occurrence = 1): { line: number; column: number } {
  let index = -1;
  for (let k = 0; k < occurrence; k++) {
    index = text.indexOf(needle, index + 1);
    if (index < 0) throw new Error(`'${needle}' not in text`);
  }
  const before = text.slice(0, index);
  const line = before.split('\n').length;
  const column = index - (before.lastIndexOf('\n') + 1) + 1;
  return { line, column };
}

function problems(text: string, eventType: 'tcp_connection_closed.v0' | 'http_request_complete.v0' = TCP): readonly FilterProblem[] {
  const r = compile(text, eventType);
  if (r.ok) throw new Error(`expected problems for ${text}`);
  return r.problems;
}

function only(text: string, eventType?: 'tcp_connection_closed.v0' | 'http_request_complete.v0'): FilterProblem {
  const ps = problems(text, eventType);
  expect(ps).toHaveLength(1);
  return ps[0] as FilterProblem;
}

describe('compile', () => {
  it('should compile a valid filter and keep the parsed expression for the matcher', () => {
    const r = compile('ev.conn.server_port == 443 && ev.conn.client_ip.startsWith("10.")', TCP);
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.filter.expr.exprKind.case).toBe('callExpr');
      expect(r.filter.eventType).toBe(TCP);
      expect(r.filter.evaluate({ conn: { server_port: 443, client_ip: '10.0.0.9' } })).toBe(true);
    }
  });

  it('should report a syntax error where the parser stopped', () => {
    const text = 'ev.conn.server_port == 443 &&\n  ev.conn.client_ip # 1';
    expect(only(text)).toMatchObject({ code: 'syntax', ...at(text, '#') });
  });

  it('should report an unclosed string literal at its opening quote', () => {
    const text = 'ev.conn.server_name == "example.com';
    expect(only(text)).toMatchObject({ code: 'syntax', ...at(text, '"') });
  });

  it('should report a bracket that is never closed at the bracket, not where the parser gave up', () => {
    const text = 'ev.conn.server_port == 443 &&\ncidr("10.0.0.0/8").containsIP(ev.conn.client_ip';
    const p = only(text);
    expect(p).toMatchObject({ code: 'syntax', ...at(text, '(', 2) });
    expect(p.message).toContain('is not closed');
  });

  it('should report a closer of the wrong kind at the closer, and of several unclosed brackets the innermost', () => {
    const text = 'ev.conn.server_port in [443, 8443] && (ev.conn.client_ip.startsWith("10.") || size([1, 2) > 1)';
    // The "[" of [1, 2 is closed by ")": a mismatch, reported at that ")".
    expect(only(text)).toMatchObject({ code: 'syntax', ...at(text, ')', 2) });
    const open = '(ev.conn.server_port == 443 && (ev.conn.client_ip == "10.0.0.1" || ev.conn.server_port == 22)';
    expect(only(open)).toMatchObject({ code: 'syntax', ...at(open, '(') });
  });

  it('should report a closing bracket that closes nothing, and ignore brackets in comments and string literals', () => {
    const text = 'ev.conn.server_port == 443) // (\n';
    const p = only(text);
    expect(p).toMatchObject({ code: 'syntax', ...at(text, ')') });
    expect(p.message).toContain('closes nothing');
    expect(compile('ev.conn.server_name == "a(b[" && ev.conn.server_name != \'}])\'', TCP).ok).toBe(true);
    // A comment ends at a lone carriage return too, as the parser ends it: the ) after it counts.
    expect(compile('(ev.conn.server_port == 443 // https\r) || false', TCP).ok).toBe(true);
  });

  it('should report an invalid escape sequence at its backslash', () => {
    const text = 'ev.conn.server_name == "a\\qb"';
    expect(only(text)).toMatchObject({ code: 'syntax', ...at(text, '\\') });
  });

  it('should report an out-of-range integer literal', () => {
    const text = 'ev.conn.server_port == 9223372036854775808';
    expect(only(text)).toMatchObject({ code: 'syntax', ...at(text, '9223') });
  });

  it('should name an unknown field and the event type, at the start of the field', () => {
    const text = 'ev.conn.server_port == 443 &&\n  ev.conn.client_port == 1';
    const p = only(text);
    expect(p).toMatchObject({ code: 'unknown_field', ...at(text, 'ev.conn.client_port') });
    expect(p.message).toContain('ev.conn.client_port is not a field of tcp_connection_closed.v0');
  });

  it('should report an undeclared name as an unknown field', () => {
    const text = 'port == 443';
    expect(only(text)).toMatchObject({ code: 'unknown_field', ...at(text, 'port') });
  });

  it('should refuse a field that exists but is not filterable', () => {
    const text = 'ev.conn.bytes_in > 1000';
    const p = only(text);
    expect(p).toMatchObject({ code: 'not_filterable', line: 1, column: 1 });
    expect(p.message).toContain('ev.conn.bytes_in');
  });

  it('should refuse a non-filterable field of the HTTP event, inside has() too', () => {
    const text = 'ev.conn.server_port == 443 && has(ev.http.request.method)';
    expect(only(text, HTTP)).toMatchObject({ code: 'not_filterable', ...at(text, 'ev.http') });
  });

  it('should refuse using a group of fields as a value, which would reach other fields through dyn()', () => {
    const text = 'dyn(ev.conn).bytes_in > 0';
    expect(only(text)).toMatchObject({ code: 'type', ...at(text, 'ev.conn') });
  });

  it('should allow has() on a group and a comprehension variable named ev', () => {
    expect(compile('has(ev.conn) && [1, 2].exists(ev, ev == 2)', TCP).ok).toBe(true);
  });

  it('should report comparing an int field with a string at the operator', () => {
    const text = 'ev.conn.server_port == "443"';
    const p = only(text);
    expect(p).toMatchObject({ code: 'type', ...at(text, '==') });
    expect(p.message).toContain('int and string');
  });

  it('should report ordering a string field against an int at the operator', () => {
    const text = 'ev.conn.client_ip > 3';
    expect(only(text)).toMatchObject({ code: 'type', ...at(text, '>') });
  });

  it('should refuse a filter whose result is not a bool, at the start of the expression', () => {
    const text = '\n  ev.conn.server_port + 1';
    const p = only(text);
    expect(p).toMatchObject({ code: 'not_bool', ...at(text, 'ev') });
    expect(p.message).toContain('int');
  });

  it('should report an unknown function and an unknown method', () => {
    const text = 'lookup(ev.conn.client_ip) || ev.conn.server_name.reverse() == "x"';
    const ps = problems(text);
    expect(ps).toEqual([
      expect.objectContaining({ code: 'unknown_function', ...at(text, 'lookup') }),
      expect.objectContaining({ code: 'unknown_function', ...at(text, '.reverse') }),
    ]);
  });

  it('should report an invalid regular expression when the filter is compiled', () => {
    const text = 'ev.conn.server_name.matches("(unclosed")';
    expect(only(text)).toMatchObject({ code: 'invalid_argument', ...at(text, '.matches') });
  });

  it('should report an invalid constant CIDR range when the filter is compiled', () => {
    const text = 'cidr("10.0.0.0/33").containsIP(ev.conn.client_ip)';
    expect(only(text)).toMatchObject({ code: 'invalid_argument', ...at(text, 'cidr') });
  });

  it('should return every problem at once, ordered by position', () => {
    const text = 'ev.conn.client_port == 1 &&\n  ev.conn.server_port == "x" &&\n  frobnicate(ev.conn.bytes_out)';
    expect(problems(text)).toEqual([
      expect.objectContaining({ code: 'unknown_field', ...at(text, 'ev.conn.client_port') }),
      expect.objectContaining({ code: 'type', ...at(text, '==', 2) }),
      expect.objectContaining({ code: 'unknown_function', ...at(text, 'frobnicate') }),
      expect.objectContaining({ code: 'not_filterable', ...at(text, 'ev.conn.bytes_out') }),
    ]);
  });

  it('should refuse a filter longer than the limit before parsing it', () => {
    const text = `ev.conn.server_name == "${'a'.repeat(MAX_FILTER_LENGTH)}"`;
    expect(only(text)).toMatchObject({ code: 'too_large', line: 1, column: 1 });
  });

  it('should give each problem a sentence', () => {
    const text = 'ev.conn.client_port == 1 && ev.conn.server_port + 1';
    for (const p of problems(text)) expect(p.message).toMatch(/^\S.*\.$/);
  });
});
