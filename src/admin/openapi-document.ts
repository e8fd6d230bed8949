// The OpenAPI document as generators read it: every schema with a `title` (named() in schemas.ts) is
// written once under components/schemas/<title> and referenced by $ref wherever it is used, so a
// generated client gets one class per request body, response, union variant and reusable part. The
// route schemas themselves stay whole: Fastify validates requests with them, and the document shows
// the very same schemas, only factored.

type Json = Record<string, unknown>;

const REF_PREFIX = '#/components/schemas/';

/** Keys whose values are schemas, or maps or lists of them, inside a schema. */
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs'];
const SCHEMA_LISTS = ['oneOf', 'anyOf', 'allOf', 'prefixItems'];
const SCHEMA_VALUES = ['items', 'not', 'additionalProperties', 'contains', 'if', 'then', 'else'];

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Two schemas the same, whatever the order of their keys. */
function sameSchema(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameSchema(x, b[i]));
  if (!isObject(a) || !isObject(b)) return a === b;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => k in b && sameSchema(a[k], b[k]));
}

class Components {
  readonly schemas: Record<string, Json> = {};

  /** The schema with its named parts replaced by references, itself by one when it is named. */
  hoist(schema: unknown): unknown {
    if (!isObject(schema)) return schema;
    const out: Json = { ...schema };
    for (const key of SCHEMA_MAPS) {
      const map = schema[key];
      if (isObject(map)) out[key] = Object.fromEntries(Object.entries(map).map(([k, v]) => [k, this.hoist(v)]));
    }
    for (const key of SCHEMA_LISTS) {
      const list = schema[key];
      if (Array.isArray(list)) out[key] = list.map((v) => this.hoist(v));
    }
    for (const key of SCHEMA_VALUES) if (isObject(schema[key])) out[key] = this.hoist(schema[key]);
    const name = out.title;
    if (typeof name !== 'string' || out.$ref !== undefined) return out;
    const known = this.schemas[name];
    // One name, one schema: two different schemas under one name would make a client send the wrong one.
    // A body's schema comes without its description (it is the body's), which a use inside another gives.
    const { description: knownText, ...knownRest } = known ?? {};
    const { description: text, ...rest } = out;
    const differ = known !== undefined && (!sameSchema(knownRest, rest) || (knownText !== undefined && text !== undefined && knownText !== text));
    if (differ) throw new Error(`Two different schemas are named ${name} in the OpenAPI document: ${JSON.stringify(known)} and ${JSON.stringify(out)}.`);
    this.schemas[name] = known === undefined || knownText === undefined ? out : known;
    return { $ref: `${REF_PREFIX}${name}` };
  }
}

/**
 * The document with every named schema under components/schemas. A request or response body's own
 * description is the request body's or response's (where @fastify/swagger also puts it), so it is left
 * out of the body's schema, which may be shared.
 */
export function withNamedSchemas(doc: Json): Json {
  const components = new Components();
  const media = (content: unknown): unknown => {
    if (!isObject(content)) return content;
    return Object.fromEntries(
      Object.entries(content).map(([type, m]) => {
        if (!isObject(m) || !isObject(m.schema)) return [type, m];
        const { description: _shownBeside, ...schema } = m.schema;
        return [type, { ...m, schema: components.hoist(schema) }];
      }),
    );
  };
  const paths: Json = {};
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    const ops: Json = {};
    for (const [method, op] of Object.entries(isObject(item) ? item : {})) {
      if (!isObject(op)) {
        ops[method] = op;
        continue;
      }
      const next: Json = { ...op };
      if (Array.isArray(op.parameters)) next.parameters = op.parameters.map((p: unknown) => (isObject(p) ? { ...p, schema: components.hoist(p.schema) } : p));
      if (isObject(op.requestBody)) next.requestBody = { ...op.requestBody, content: media(op.requestBody.content) };
      if (isObject(op.responses)) {
        next.responses = Object.fromEntries(Object.entries(op.responses).map(([status, r]) => [status, isObject(r) ? { ...r, ...(r.content !== undefined && { content: media(r.content) }) } : r]));
      }
      ops[method] = next;
    }
    paths[path] = ops;
  }
  const existing = isObject(doc.components) ? doc.components : {};
  const sorted = Object.fromEntries(Object.entries(components.schemas).sort(([a], [b]) => a.localeCompare(b)));
  return { ...doc, paths, components: { ...existing, schemas: { ...(isObject(existing.schemas) ? existing.schemas : {}), ...sorted } } };
}
