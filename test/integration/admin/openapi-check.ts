// Checks a response of the admin API against the service's own OpenAPI document: the status must be
// documented for the route, and the body must match the documented schema (what an API fuzzer checks).
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export interface OpenApiDoc {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
  /** The named schemas the others refer to ($ref "#/components/schemas/<name>"). */
  components?: { schemas?: Record<string, object> };
}

export interface DocumentedRoute {
  method: string;
  /** OpenAPI template, e.g. "/edges/tcp/{id}/ip_restriction". */
  path: string;
}

/** OpenAPI 3.0 `nullable: true` as JSON Schema: the type also admits null. */
function toJsonSchema(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(toJsonSchema);
  if (s === null || typeof s !== 'object') return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) if (k !== 'nullable') out[k] = toJsonSchema(v);
  const o = s as { nullable?: boolean; type?: string | string[]; enum?: unknown[] };
  if (o.nullable === true && typeof o.type === 'string') {
    out.type = [o.type, 'null'];
    if (Array.isArray(o.enum)) out.enum = [...o.enum, null];
  }
  return out;
}

export class OpenApiChecker {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly templates: { method: string; path: string; re: RegExp }[] = [];

  constructor(readonly doc: OpenApiDoc) {
    addFormats(this.ajv);
    for (const [path, ops] of Object.entries(doc.paths)) {
      const re = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const method of Object.keys(ops)) this.templates.push({ method: method.toUpperCase(), path, re });
    }
  }

  routes(): DocumentedRoute[] {
    return this.templates.map(({ method, path }) => ({ method, path }));
  }

  /** Undefined when it conforms (or the route is not documented); otherwise what is wrong. */
  problem(method: string, urlPath: string, status: number, contentType: string | null, text: string): string | undefined {
    const path = urlPath.split('?')[0] ?? '';
    const t = this.templates.find((x) => x.method === method && x.re.test(path));
    if (t === undefined) return undefined;
    const op = this.doc.paths[t.path]?.[method.toLowerCase()];
    const documented = op?.responses[String(status)];
    if (documented === undefined) return `${method} ${t.path} answered ${status}, which its OpenAPI responses do not list`;
    const schema = documented.content?.['application/json']?.schema;
    if (schema === undefined) return text === '' ? undefined : `${method} ${t.path} ${status} has a body but documents none`;
    if (!(contentType ?? '').startsWith('application/json')) return `${method} ${t.path} ${status} has content type ${contentType}`;
    const key = `${method} ${t.path} ${status}`;
    let validate = this.cache.get(key);
    // The components ride along in the compiled schema, where its $refs point.
    if (validate === undefined) this.cache.set(key, (validate = this.ajv.compile({ ...(toJsonSchema(schema) as object), components: toJsonSchema(this.doc.components ?? {}) })));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return `${key}: the body is not JSON`;
    }
    if (!validate(body)) return `${key}: ${this.ajv.errorsText(validate.errors)} in ${text.slice(0, 500)}`;
    return undefined;
  }
}
