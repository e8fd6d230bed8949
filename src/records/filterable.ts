// Checks on the four filterable fields that both wire forms share, applied before any filter sees a record.
import { DecodeError } from './errors.js';
import type { FilterableFields } from './record-types.js';

/**
 * Beyond their types: a TCP port is 0-65535, and conn.client_ip is never empty. The latter also keeps
 * the wire forms apart: client_ip is the first field of every plain Avro record and an empty string
 * encodes as the single byte 0x00, the Confluent magic byte, so no valid plain Avro record starts with 0.
 */
export function checkFilterable(f: FilterableFields): void {
  const { client_ip, server_port } = f.conn;
  if (client_ip.length === 0) throw new DecodeError('schema_violation', 'conn.client_ip must not be empty.');
  if (server_port < 0 || server_port > 65_535) {
    throw new DecodeError('schema_violation', `conn.server_port: ${server_port} is not a TCP port (0-65535).`);
  }
}

/** The filterable fields of a validated record, as a fresh object, so the record and the filter input do not alias. */
export function filterableOf(record: { conn?: unknown }): FilterableFields {
  const c = record.conn as FilterableFields['conn'];
  return { conn: { client_ip: c.client_ip, server_ip: c.server_ip, server_name: c.server_name, server_port: c.server_port } };
}
