// docs/events.md against the catalogue it describes: every table row is what src/events/catalog.ts and
// the audit payload schemas say, so the page cannot drift from the code.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUDIT_KINDS, FILTERABLE, TRAFFIC_EVENT_TYPES, TRAFFIC_FIELDS, filterableField } from '../../../src/events/catalog.js';
import { AUDIT_PAYLOAD_SCHEMAS } from '../../../src/records/audit-decoder.js';

const page = readFileSync(new URL('../../../docs/events.md', import.meta.url), 'utf8');

/** The rows of the first table under the heading `heading`, as trimmed cells, header and rule left out. */
function table(heading: string): string[][] {
  const start = page.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/events.md has no heading ${heading}`);
  const lines = page.slice(start + heading.length + 2).split('\n');
  const first = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(first + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split(' | ').map((c) => c.trim()));
  }
  return rows;
}

const code = (s: string): string => `\`${s}\``;

describe('docs/events.md', () => {
  it('should list every field of each traffic event type with its type, filterability and meaning, in order', () => {
    for (const t of TRAFFIC_EVENT_TYPES) {
      const expected = TRAFFIC_FIELDS[t].map((f) => [code(f.name), f.type, f.filterable ? 'yes' : '', f.description]);
      expect(table(`### Fields of ${t}`), t).toEqual(expected);
    }
  });

  it('should list the filterable fields with their type, index, rule and example', () => {
    const rows = table('### Filterable fields');
    expect(rows.map((r) => r[0])).toEqual(Object.keys(FILTERABLE).map(code));
    for (const [name, spec] of Object.entries(FILTERABLE)) {
      const row = rows.find((r) => r[0] === code(name)) ?? [];
      expect(row[1], name).toBe(filterableField(name)?.type);
      expect(row[2], name).toBe(spec.index === 'ip' ? 'equality, CIDR range' : 'equality');
      const rules = [
        ...(spec.range === undefined ? [] : [`${spec.range.what}, ${spec.range.min} to ${spec.range.max}`]),
        ...(spec.nonEmpty === true ? ['never empty'] : []),
        ...(spec.maxLength === undefined ? [] : [`at most ${spec.maxLength} characters`]),
      ];
      const rule = rules.join('; ');
      expect(row[3], name).toBe(rule);
      expect(row[4], name).toBe(code(JSON.stringify(spec.example)));
    }
  });

  it('should list every audit kind with its payload schema and that schema\'s fields', () => {
    const rows = table('## Audit events');
    expect(rows.map((r) => r[0])).toEqual([...AUDIT_KINDS, 'agent_session'].map(code));
    for (const row of rows) {
      const kind = (row[0] as string).slice(1, -1) as keyof typeof AUDIT_PAYLOAD_SCHEMAS;
      const file = AUDIT_PAYLOAD_SCHEMAS[kind];
      expect(row[3], kind).toBe(code(file));
      const schema = JSON.parse(readFileSync(new URL(`../../../schemas/audit/${file}`, import.meta.url), 'utf8')) as { properties?: object };
      expect(row[4], kind).toBe(schema.properties === undefined ? 'any object' : Object.keys(schema.properties).map(code).join(', '));
    }
  });

  it('should list every field of the destination health payload with its meaning, as its schema gives them', () => {
    const schema = JSON.parse(readFileSync(new URL(`../../../schemas/audit/${AUDIT_PAYLOAD_SCHEMAS.event_destination_health}`, import.meta.url), 'utf8')) as {
      properties: Record<string, { description: string }>;
    };
    const rows = table('### Fields of event_destination_health.v0');
    expect(rows.map((r) => [r[0], r[2]])).toEqual(Object.entries(schema.properties).map(([name, p]) => [code(name), p.description]));
  });

  it('should name both traffic event types', () => {
    expect(table('## Traffic events').map((r) => r[0])).toEqual(TRAFFIC_EVENT_TYPES.map(code));
  });
});
