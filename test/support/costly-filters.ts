// Filters that do much work on a record within the length limit (issue 38, finding 2), shared by the
// unit and integration tests of the filter cost bound and the bench (bench/filter-cost.ts).

/**
 * The review's kind of filter, `length` characters long: big string literals joined to the record's
 * fields and searched, with a pattern that makes the substring search compare many characters at each
 * position.
 */
export function expensiveFilter(length: number): string {
  const part = (field: string, pad: number): string => `(ev.conn.${field} + "${'a'.repeat(pad)}").contains("${'a'.repeat(40)}b")`;
  const parts = [part('server_name', 1200), part('client_ip', 1200)];
  const fixed = parts.join(' || ').length + ' || '.length + part('server_ip', 0).length;
  return [...parts, part('server_ip', length - fixed)].join(' || ');
}
