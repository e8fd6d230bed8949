// CEL's evaluation rules as filters see them: errors as values, commutative && and ||, int64 overflow, and "an error is no match".
import { describe, expect, it } from 'vitest';
import { compileFilter, evaluationErrorCount, type FilterProgram } from '../../../src/cel/compile.js';
import { CelErr, internalize } from '../../../src/cel/compiler/values.js';
import { celEvaluationErrors } from '../../../src/telemetry/metrics.js';

const TCP = 'tcp_connection_closed.v0';

function filter(text: string): FilterProgram {
  const r = compileFilter(text, TCP);
  if (!r.ok) throw new Error(`${text}: ${JSON.stringify(r.problems)}`);
  return r.filter;
}

const rec = (conn: Record<string, unknown>): Record<string, unknown> => ({ conn });

async function metricValue(): Promise<number> {
  return (await celEvaluationErrors.get()).values[0]?.value ?? 0;
}

describe('filter evaluation', () => {
  it('filter should ignore an error on the false side of &&, whichever side it is', () => {
    const noIp = rec({ server_port: 80 });
    expect(filter('ev.conn.server_port == 443 && ev.conn.client_ip.startsWith("10.")').evaluateRaw(noIp)).toBe(false);
    expect(filter('ev.conn.client_ip.startsWith("10.") && ev.conn.server_port == 443').evaluateRaw(noIp)).toBe(false);
  });

  it('filter should give an error for true && error, and count it as no match', () => {
    const f = filter('ev.conn.server_port == 443 && ev.conn.client_ip.startsWith("10.")');
    expect(f.evaluateRaw(rec({ server_port: 443 }))).toBeInstanceOf(CelErr);
    expect(f.evaluate(rec({ server_port: 443 }))).toBe(false);
  });

  it('filter should ignore an error on the true side of ||, whichever side it is', () => {
    const noIp = rec({ server_port: 443 });
    expect(filter('ev.conn.server_port == 443 || ev.conn.client_ip.startsWith("10.")').evaluate(noIp)).toBe(true);
    expect(filter('ev.conn.client_ip.startsWith("10.") || ev.conn.server_port == 443').evaluate(noIp)).toBe(true);
  });

  it('tests of several conn fields combined with &&, || and ! should give each operator\'s result, and an error when ev.conn cannot be read', () => {
    const both = filter('ev.conn.server_port == 443 && ev.conn.client_ip.startsWith("10.")');
    const either = filter('ev.conn.server_port == 443 || ev.conn.client_ip.startsWith("10.")');
    const not = filter('!(ev.conn.server_port == 443) && !ev.conn.client_ip.startsWith("10.")');
    expect(both.evaluateRaw(rec({ server_port: 443, client_ip: '10.0.0.1' }))).toBe(true);
    expect(both.evaluateRaw(rec({ server_port: 443, client_ip: '11.0.0.1' }))).toBe(false);
    expect(both.evaluateRaw(rec({ client_ip: '11.0.0.1' }))).toBe(false); // error && false
    expect(either.evaluateRaw(rec({ client_ip: '10.0.0.1' }))).toBe(true); // error || true
    expect(either.evaluateRaw(rec({ client_ip: '11.0.0.1' }))).toBeInstanceOf(CelErr); // error || false
    expect(not.evaluateRaw(rec({ server_port: 80, client_ip: '11.0.0.1' }))).toBe(true);
    expect(not.evaluateRaw(rec({ server_port: 80, client_ip: 7 }))).toBeInstanceOf(CelErr); // true && error
    for (const f of [both, either, not]) {
      for (const ev of [{}, { conn: null }, { conn: 'x' }, { conn: 1 }, null, 42, 'text', undefined]) {
        expect(f.evaluateRaw(ev)).toBeInstanceOf(CelErr);
        expect(f.evaluate(ev)).toBe(false);
      }
    }
  });

  it('interning should give back every string unchanged, names that mean something to objects included', () => {
    for (const s of ['conn', '', '__proto__', 'constructor', '1', '01', '4294967295', '-0', 'é🐱', 'x'.repeat(5000)]) expect(internalize(s)).toBe(s);
    expect(filter('ev.conn.server_name == "__proto__" || ev.conn.server_name == "constructor"').evaluate(rec({ server_name: 'constructor' }))).toBe(true);
  });

  it('int64 overflow should be an error, not a wrapped or rounded number', () => {
    const f = filter('ev.conn.server_port * 9223372036854775807 > 0');
    expect(f.evaluateRaw(rec({ server_port: 2 }))).toBeInstanceOf(CelErr);
    expect(f.evaluateRaw(rec({ server_port: 1 }))).toBe(true);
    expect(filter('-9223372036854775807 - ev.conn.server_port < 0').evaluateRaw(rec({ server_port: 2 }))).toBeInstanceOf(CelErr);
  });

  it('integer division should truncate toward zero, and division or modulus by zero should be an error', () => {
    expect(filter('-7 / 2 == -3 && 7 / -2 == -3 && -7 % 2 == -1').evaluate({})).toBe(true);
    expect(filter('ev.conn.server_port / 2 == 221').evaluate(rec({ server_port: 443 }))).toBe(true);
    expect(filter('100 / ev.conn.server_port > 0').evaluateRaw(rec({ server_port: 0 }))).toBeInstanceOf(CelErr);
    expect(filter('100 % ev.conn.server_port > 0').evaluateRaw(rec({ server_port: 0 }))).toBeInstanceOf(CelErr);
  });

  it('size should count code points, not UTF-16 units', () => {
    const f = filter('size(ev.conn.server_name) == 3 && ev.conn.server_name.size() == 3');
    expect(f.evaluate(rec({ server_name: 'a🐱b' }))).toBe(true);
    expect(f.evaluate(rec({ server_name: 'abcd' }))).toBe(false);
  });

  it('numbers of different types should compare by value, as cel-go does', () => {
    expect(filter('dyn(ev.conn.server_port) == 443.0 && dyn(ev.conn.server_port) == 443u').evaluate(rec({ server_port: 443 }))).toBe(true);
    expect(filter('ev.conn.server_port < 443.5 && ev.conn.server_port > 442u').evaluate(rec({ server_port: 443 }))).toBe(true);
    expect(filter('dyn(ev.conn.server_port) == "443"').evaluateRaw(rec({ server_port: 443 }))).toBe(false);
  });

  it('strings should order by code point, as cel-go does (not by UTF-16 unit)', () => {
    // U+FF21 is below U+1F431 as code points, above its surrogate 0xD83D as a UTF-16 unit.
    expect(filter('ev.conn.server_name < "🐱"').evaluate(rec({ server_name: '\uff21' }))).toBe(true);
  });

  it('int() should parse only base-10 integers, as Go\'s strconv.ParseInt does', () => {
    const f = filter('int(ev.conn.server_name) == 5');
    expect(f.evaluate(rec({ server_name: '+5' }))).toBe(true);
    for (const bad of ['', ' 5', '0x5', '5.0']) expect(f.evaluateRaw(rec({ server_name: bad }))).toBeInstanceOf(CelErr);
  });

  it('a missing field should be an error, and has() should tell it apart', () => {
    expect(filter('ev.conn.server_name == "x"').evaluateRaw(rec({}))).toBeInstanceOf(CelErr);
    expect(filter('ev.conn.server_name == "x"').evaluateRaw({})).toBeInstanceOf(CelErr);
    expect(filter('!has(ev.conn.server_name) || ev.conn.server_name == "x"').evaluate(rec({}))).toBe(true);
    expect(filter('has(ev.conn.server_name)').evaluateRaw({})).toBeInstanceOf(CelErr);
  });

  it('an integer field held as bigint should read the same as one held as a number', () => {
    for (const text of ['ev.conn.server_port == 443', 'ev.conn.server_port + 0 == 443', 'ev.conn.server_port in [80, 443]', 'ev.conn.server_port >= 443']) {
      expect(filter(text).evaluate(rec({ server_port: 443n }))).toBe(true);
      expect(filter(text).evaluate(rec({ server_port: 443 }))).toBe(true);
    }
  });

  it('a field holding the wrong type should be an error on the fast and the general path alike', () => {
    for (const text of ['ev.conn.server_port == 443', 'ev.conn.server_port + 0 == 443', 'ev.conn.server_port in [443]']) {
      for (const bad of ['443', 443.5, true, { n: 443 }]) expect(filter(text).evaluateRaw(rec({ server_port: bad }))).toBeInstanceOf(CelErr);
    }
    expect(filter('ev.conn.client_ip.startsWith("10.")').evaluateRaw(rec({ client_ip: 10 }))).toBeInstanceOf(CelErr);
  });

  it('evaluate should never throw, whatever it is given', () => {
    const f = filter('ev.conn.server_port == 443 || ev.conn.client_ip.matches("^10") || size(ev.conn.server_name) > 3');
    for (const weird of [null, undefined, 42, 'text', [], { conn: null }, { conn: 'x' }, { conn: [] }, { conn: { server_port: 2 ** 60 } }]) {
      expect(() => f.evaluate(weird)).not.toThrow();
      expect(f.evaluate(weird)).toBe(false);
    }
  });

  it('every evaluation ending in an error should be counted, in the process counter and the metric', async () => {
    const f = filter('ev.conn.server_port == 443');
    const before = evaluationErrorCount();
    const metricBefore = await metricValue();
    f.evaluate({});
    f.evaluate(rec({ server_port: 'x' }));
    f.evaluate(rec({ server_port: 443 }));
    f.evaluate(rec({ server_port: 80 }));
    expect(evaluationErrorCount() - before).toBe(2);
    expect((await metricValue()) - metricBefore).toBe(2);
  });
});
