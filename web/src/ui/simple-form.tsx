// A small create form of text, list and choice fields, for the operator's resources: the body is built
// from what was typed, and the API's message about a field is shown beside it.
import { useState } from 'preact/hooks';
import type { ApiFailure } from '../api/client.ts';
import { useAction } from './hooks.ts';
import { Field, Problem, fieldAria } from './parts.tsx';

export interface SimpleField {
  readonly name: string;
  readonly label: string;
  readonly help?: string;
  /** text (default), lines (a list, one per line), or a choice among options. */
  readonly kind?: 'text' | 'lines' | 'choice';
  readonly options?: readonly { value: string; label: string }[];
  readonly placeholder?: string;
  readonly required?: boolean;
}

export interface SimpleFormProps {
  /** Ids of the controls start with it. */
  readonly id: string;
  readonly fields: readonly SimpleField[];
  readonly submitLabel: string;
  /** Sends the body; what it throws is shown, its field beside the field. */
  submit(body: Record<string, string | string[]>): Promise<void>;
}

export function SimpleForm({ id, fields, submitLabel, submit }: SimpleFormProps) {
  const initial = (): Record<string, string> => Object.fromEntries(fields.map((f) => [f.name, f.kind === 'choice' ? (f.options?.[0]?.value ?? '') : '']));
  const [values, setValues] = useState<Record<string, string>>(initial);
  const action = useAction();
  const errorOf = (failure: ApiFailure | undefined, name: string): string | undefined => (failure?.field === name || failure?.field?.startsWith(`${name}[`) === true ? failure.problem.msg : undefined);
  const onSubmit = (e: Event): void => {
    e.preventDefault();
    void action.run(async () => {
      const body: Record<string, string | string[]> = {};
      for (const f of fields) {
        const v = values[f.name] ?? '';
        if (f.kind === 'lines') body[f.name] = v.split('\n').map((l) => l.trim()).filter((l) => l !== '');
        else if (v !== '' || f.required === true) body[f.name] = v;
      }
      await submit(body);
      setValues(initial());
    });
  };
  return (
    <form class="inline-form" onSubmit={onSubmit} noValidate>
      {fields.map((f) => {
        const fid = `${id}-${f.name}`;
        const error = errorOf(action.failure, f.name);
        const aria = fieldAria(fid, f.help, error);
        const set = (e: { currentTarget: { value: string } }): void => setValues((v) => ({ ...v, [f.name]: e.currentTarget.value }));
        return (
          <Field id={fid} label={f.label} help={f.help} error={error} required={f.required === true} key={f.name}>
            {f.kind === 'choice' ? (
              <select {...aria} value={values[f.name]} onChange={set}>
                {f.options?.map((o) => (
                  <option value={o.value} key={o.value}>
                    {o.label}
                  </option>
                ))}
              </select>
            ) : f.kind === 'lines' ? (
              <textarea {...aria} rows={2} value={values[f.name]} onInput={set} placeholder={f.placeholder} spellcheck={false} />
            ) : (
              <input type="text" {...aria} value={values[f.name]} onInput={set} placeholder={f.placeholder} spellcheck={false} />
            )}
          </Field>
        );
      })}
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          {submitLabel}
        </button>
      </div>
      <Problem failure={action.failure} />
    </form>
  );
}
