// A form drawn from a request's JSON schema, as the served OpenAPI document states it (forms.gen.json):
// objects are groups of fields, a "exactly one of" union (a destination's kind, a cloud target's auth)
// is a choice that shows the chosen branch's fields, every field carries the schema's description as its
// help, and the API's message about a field is shown beside it. A new destination kind is drawn without
// console code. Secrets (write-only fields) start empty and are never filled from an answer.
import type { JSX, TargetedEvent } from 'preact';
import { Field, FieldError, fieldAria, inWords } from './parts.tsx';

export type JsonSchema = {
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly oneOf?: readonly JsonSchema[];
  readonly anyOf?: readonly JsonSchema[];
  readonly enum?: readonly unknown[];
  readonly items?: JsonSchema;
  readonly additionalProperties?: boolean | JsonSchema;
  readonly readOnly?: boolean;
  readonly writeOnly?: boolean;
  readonly format?: string;
  readonly default?: unknown;
  readonly examples?: readonly unknown[];
  readonly title?: string;
  /** An "exactly one of" object: each property is a choice, one sent as null counts as absent. */
  readonly 'x-null-is-absent'?: boolean;
};

/** What the person typed, by dotted field path; a union's chosen branch under "<path>#choice". */
export type FormValues = Readonly<Record<string, string | boolean>>;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const WRITE_ONLY = 'Write-only';
const keyOf = (path: readonly string[]): string => path.join('.');
/** The suffix of a union's key in FormValues: "target#choice" holds the chosen kind. */
export const CHOICE = '#choice';
const choiceKey = (path: readonly string[]): string => `${keyOf(path)}${CHOICE}`;
const typesOf = (s: JsonSchema): readonly string[] => (s.type === undefined ? [] : typeof s.type === 'string' ? [s.type] : s.type);
/** A secret: write-only as the schema marks it, or as its description says (the kinds' secretRequest). */
const isSecret = (s: JsonSchema): boolean => s.writeOnly === true || s.format === 'password' || s.description?.includes(WRITE_ONLY) === true;
/** Only null is allowed: a branch's way of saying "not this one". */
const onlyNull = (s: JsonSchema): boolean => typesOf(s).length === 1 && typesOf(s)[0] === 'null';

/**
 * The branches of an "exactly one of" object: as the served document states it, an object marked
 * x-null-is-absent whose every property is a choice; or a oneOf whose branches each name their one
 * required property.
 */
export function unionBranches(s: JsonSchema): { name: string; schema: JsonSchema }[] | undefined {
  if (s['x-null-is-absent'] === true && s.properties !== undefined) return Object.entries(s.properties).map(([name, schema]) => ({ name, schema }));
  if (s.oneOf === undefined) return undefined;
  const branches = s.oneOf.map((b) => {
    const name = b.required?.length === 1 ? b.required[0] : undefined;
    const schema = name === undefined ? undefined : b.properties?.[name];
    return name === undefined || schema === undefined ? undefined : { name, schema };
  });
  return branches.every((b) => b !== undefined) ? (branches as { name: string; schema: JsonSchema }[]) : undefined;
}

const humanize = (name: string): string => {
  const words = name.replaceAll('_', ' ');
  return (words.charAt(0).toUpperCase() + words.slice(1)).replace(/\b(arn|url|id|ms|ip|uri|hec|ca|pem|api)\b/gi, (w) => w.toUpperCase()).replace(/\bMS\b/, 'ms');
};

export interface SchemaFormProps {
  readonly schema: JsonSchema;
  readonly values: FormValues;
  onChange(key: string, value: string | boolean): void;
  /** The API's message about the field it named, by its dotted path. */
  readonly errors: Readonly<Record<string, string>>;
  /** An update: secrets left empty keep the stored ones. */
  readonly update: boolean;
  /** Top-level properties not to draw (and not to send). */
  readonly omit?: readonly string[];
  /** Top-level properties drawn first, in this order; the rest follow in the schema's order. */
  readonly first?: readonly string[];
  /** Labels of top-level properties, where the name alone says too little. */
  readonly labels?: Readonly<Record<string, string>>;
}

export function SchemaForm(props: SchemaFormProps): JSX.Element {
  return <>{objectFields(props.schema, [], props)}</>;
}

function objectFields(schema: JsonSchema, path: readonly string[], props: SchemaFormProps): (JSX.Element | null)[] {
  const rank = (name: string): number => (path.length === 0 && props.first?.includes(name) === true ? props.first.indexOf(name) : Number.MAX_SAFE_INTEGER);
  return Object.entries(schema.properties ?? {})
    .sort(([a], [b]) => rank(a) - rank(b))
    .filter(([name, s]) => !(path.length === 0 && props.omit?.includes(name)) && !s.readOnly && !onlyNull(s))
    .map(([name, s]) => node(s, [...path, name], schema.required?.includes(name) === true, props));
}

function node(schema: JsonSchema, path: readonly string[], required: boolean, props: SchemaFormProps): JSX.Element | null {
  const key = keyOf(path);
  const id = `f-${path.join('-')}`;
  const name = path[path.length - 1] ?? '';
  const label = (path.length === 1 ? props.labels?.[name] : undefined) ?? humanize(name);
  const said = props.errors[key];
  const error = said === undefined ? undefined : inWords(said, key, label);
  const branches = unionBranches(schema);
  if (branches !== undefined) {
    const chosen = branches.find((b) => b.name === props.values[choiceKey(path)]) ?? branches[0];
    if (chosen === undefined) return null;
    const help = chosen.schema.description ?? schema.description;
    return (
      <fieldset class="group" key={key}>
        <legend>{label}</legend>
        <Field id={id} label={path.length === 1 ? 'Kind' : `Kind of ${label.toLowerCase()}`} help={help} error={error} errorPath={key} required>
          <select {...fieldAria(id, help, error)} value={chosen.name} onChange={(e) => props.onChange(choiceKey(path), e.currentTarget.value)}>
            {branches.map((b) => (
              <option value={b.name} key={b.name}>
                {b.name}
              </option>
            ))}
          </select>
        </Field>
        {typesOf(chosen.schema).includes('object') ? objectFields(chosen.schema, [...path, chosen.name], props) : node(chosen.schema, [...path, chosen.name], true, props)}
      </fieldset>
    );
  }
  const types = typesOf(schema);
  if (types.includes('object') && schema.properties !== undefined) {
    return (
      <fieldset class="group" key={key}>
        <legend>{label}</legend>
        {schema.description !== undefined && <p class="help">{schema.description}</p>}
        {objectFields(schema, path, props)}
      </fieldset>
    );
  }
  const secret = isSecret(schema);
  let help = schema.description;
  if (secret && props.update) help = `${help ?? ''} Leave empty to keep the stored value.`.trim();
  const aria = fieldAria(id, help, error);
  const raw = props.values[key];
  const text = typeof raw === 'string' ? raw : '';
  const set = (e: TargetedEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>): void => props.onChange(key, e.currentTarget.value);
  const example = schema.examples?.[0];
  const placeholder = example === undefined ? undefined : `e.g. ${typeof example === 'string' ? example : JSON.stringify(example)}`;
  let control: JSX.Element;
  if (types.includes('boolean')) {
    const checked = typeof raw === 'boolean' ? raw : schema.default === true;
    return (
      <div class="field checkbox" key={key}>
        <input type="checkbox" {...aria} checked={checked} onChange={(e) => props.onChange(key, e.currentTarget.checked)} />
        <label for={id}>{label}</label>
        {help !== undefined && <p class="help" id={`${id}-help`}>{help}</p>}
        {error !== undefined && <FieldError id={id} error={error} path={key} />}
      </div>
    );
  } else if (schema.enum !== undefined) {
    control = (
      <select {...aria} value={text} onChange={set}>
        {!required && <option value="">(default)</option>}
        {/* A nullable enum lists null: "(default)" stands for it, as for any optional field left empty. */}
        {schema.enum.filter((v) => v !== null).map((v) => (
          <option value={String(v)} key={String(v)}>
            {String(v)}
          </option>
        ))}
      </select>
    );
  } else if (types.includes('array') || (types.includes('object') && schema.additionalProperties !== false)) {
    const listHelp = types.includes('array') ? 'One per line.' : 'One "name: value" per line.';
    help = `${help ?? ''} ${listHelp}`.trim();
    control = <textarea {...fieldAria(id, help, error)} rows={3} value={text} onInput={set} placeholder={placeholder} />;
  } else if (types.includes('integer') || types.includes('number')) {
    control = <input type="number" inputMode="decimal" step={types.includes('integer') ? 1 : 'any'} {...aria} value={text} onInput={set} placeholder={placeholder} />;
  } else if (secret) {
    control = <input type="password" autoComplete="new-password" spellcheck={false} {...aria} value={text} onInput={set} />;
  } else {
    control = <input type="text" spellcheck={false} {...aria} value={text} onInput={set} placeholder={placeholder} />;
  }
  return (
    <Field id={id} label={label} help={help} error={error} errorPath={key} required={required} key={key}>
      {control}
    </Field>
  );
}

/** The request body the form describes: empty optional fields are left out, so the API's defaults apply. */
export function formBody(schema: JsonSchema, values: FormValues, omit: readonly string[] = []): Record<string, Json> {
  const body = build(schema, [], values, omit);
  return body !== null && typeof body === 'object' && !Array.isArray(body) ? body : {};
}

function build(schema: JsonSchema, path: readonly string[], values: FormValues, omit: readonly string[] = []): Json | undefined {
  const branches = unionBranches(schema);
  if (branches !== undefined) {
    const chosen = branches.find((b) => b.name === values[choiceKey(path)]) ?? branches[0];
    if (chosen === undefined) return undefined;
    return { [chosen.name]: build(chosen.schema, [...path, chosen.name], values) ?? {} };
  }
  const types = typesOf(schema);
  if (types.includes('object') && schema.properties !== undefined) {
    const out: Record<string, Json> = {};
    for (const [name, s] of Object.entries(schema.properties)) {
      if ((path.length === 0 && omit.includes(name)) || s.readOnly || onlyNull(s)) continue;
      const v = build(s, [...path, name], values);
      if (v !== undefined) out[name] = v;
    }
    return Object.keys(out).length === 0 && path.length > 0 && !isRequiredAt(schema) ? undefined : out;
  }
  const raw = values[keyOf(path)];
  if (typeof raw === 'boolean') return types.includes('boolean') ? raw : undefined;
  if (raw === undefined || raw.trim() === '') return undefined;
  if (types.includes('array')) return lines(raw);
  if (types.includes('object')) return Object.fromEntries(lines(raw).map((l) => [l.slice(0, Math.max(0, l.indexOf(':'))).trim() || l, l.includes(':') ? l.slice(l.indexOf(':') + 1).trim() : '']));
  if (types.includes('integer') || types.includes('number')) {
    // Not a number: sent as typed, so the API says what it wants next to the field.
    const n = Number(raw);
    return Number.isFinite(n) ? n : raw;
  }
  return raw;
}

/** An object with required properties is worth sending even when the person left it empty: the API then names what is missing. */
const isRequiredAt = (schema: JsonSchema): boolean => (schema.required?.length ?? 0) > 0;

const lines = (text: string): string[] => text.split('\n').map((l) => l.trim()).filter((l) => l !== '');

/** The form's values for a resource as the API answered it: secrets (null in answers) stay empty. */
export function formValues(schema: JsonSchema, value: unknown, path: readonly string[] = [], out: Record<string, string | boolean> = {}): Record<string, string | boolean> {
  if (value === null || value === undefined) return out;
  const branches = unionBranches(schema);
  if (branches !== undefined && typeof value === 'object') {
    const chosen = branches.find((b) => (value as Record<string, unknown>)[b.name] !== undefined && (value as Record<string, unknown>)[b.name] !== null);
    if (chosen !== undefined) {
      out[choiceKey(path)] = chosen.name;
      formValues(chosen.schema, (value as Record<string, unknown>)[chosen.name], [...path, chosen.name], out);
    }
    return out;
  }
  const types = typesOf(schema);
  if (types.includes('object') && schema.properties !== undefined && typeof value === 'object') {
    for (const [name, s] of Object.entries(schema.properties)) {
      if (!s.readOnly && !isSecret(s)) formValues(s, (value as Record<string, unknown>)[name], [...path, name], out);
    }
    return out;
  }
  const key = keyOf(path);
  if (Array.isArray(value)) out[key] = value.map(String).join('\n');
  else if (typeof value === 'object') out[key] = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}: ${String(v)}`).join('\n');
  else if (typeof value === 'boolean') out[key] = value;
  else out[key] = String(value);
  return out;
}
